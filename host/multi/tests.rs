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

/// The scratch layout the sharded reduce and the sharded scan share: for every start (each
/// 4-byte offset from a 16-byte boundary), rank count and element size, the own value, the
/// gathered values and the work area are 16-byte aligned, in order, without overlap, inside the
/// scratch, and the work area holds what each user's reduces (and the scan) need.
#[test]
fn the_shared_scratch_layout_fits_both_users() {
    fn check<T: crate::reduce::ReduceItem>() {
        let size = std::mem::size_of::<T>() as u64;
        for n in [0usize, 1, 1000, 1 << 20] {
            for ranks in 1..=9 {
                let needs = [
                    (reduce::reduce_shard_scratch_len::<T>(n, ranks), crate::reduce::scratch_len::<T>(n.max(ranks))),
                    (
                        shard_scratch_len::<T>(n, ranks),
                        crate::reduce::scratch_len::<T>(n).max(crate::scan::scratch_len::<T>(n)),
                    ),
                ];
                for (len, work_needed) in needs {
                    for addr in [0x1000u64, 0x1004, 0x1008, 0x100c] {
                        let a = reduce::Area::in_scratch::<T>(addr, len, ranks);
                        assert!(a.own >= addr && a.own.is_multiple_of(16) && a.own + size <= a.gathered);
                        assert!(a.gathered.is_multiple_of(16) && a.gathered + ranks as u64 * size <= a.work);
                        assert!(a.work.is_multiple_of(16) && a.work + 4 * a.work_words as u64 <= addr + 4 * len as u64);
                        assert!(a.work_words >= work_needed, "n {n}, {ranks} ranks, at {addr:#x}");
                    }
                }
            }
        }
    }
    check::<u32>();
    check::<u64>();
    check::<f64>();
}
