//! The checks `Gpus` makes before any driver or NCCL call: they need no GPU.

use super::*;

#[test]
fn no_rank_is_invalid_input() {
    assert!(matches!(Gpus::new(&[]), Err(Error::InvalidInput(_))));
    assert!(matches!(Gpus::from_streams(Vec::new()), Err(Error::InvalidInput(_))));
}

#[test]
fn the_same_device_twice_is_refused_before_the_driver_is_asked() {
    assert!(matches!(Gpus::new(&[0, 0]), Err(Error::DuplicateDevice { ordinal: 0 })));
    assert!(matches!(Gpus::new(&[1, 2, 1]), Err(Error::DuplicateDevice { ordinal: 1 })));
}

#[test]
fn without_a_driver_or_nccl_new_answers_a_typed_error() {
    // Whatever this machine has, a two-device handle is made or refused with a typed error,
    // never a panic (cudarc panics when it cannot find libnccl).
    match Gpus::new(&[0, 1]) {
        Ok(gpus) => assert_eq!(gpus.len(), 2),
        Err(Error::NoDriver | Error::NoDevice { .. } | Error::NoNccl | Error::Nccl(_)) => {}
        Err(e) => panic!("unexpected error: {e}"),
    }
}

#[test]
fn the_nccl_error_names_the_link_to_make() {
    let message = Error::NoNccl.to_string();
    assert!(message.contains("libnccl.so") && message.contains("link"), "{message}");
}
