//! What warpwork does where there may be no GPU at all: errors, not panics.

use warpwork::{Error, Gpu};

#[test]
fn opening_a_device_never_panics() {
    // On a machine without a driver this must be NoDriver; with one, a device or NoDevice.
    match Gpu::new(0) {
        Ok(gpu) => assert!(gpu.info().compute_capability.0 >= 7),
        Err(Error::NoDriver | Error::NoDevice { .. } | Error::UnsupportedDevice { .. }) => {}
        Err(e) => panic!("unexpected error opening device 0: {e}"),
    }
}

#[test]
fn a_missing_ordinal_is_a_typed_error() {
    match Gpu::new(1 << 20) {
        Err(Error::NoDriver) => {}
        Err(Error::NoDevice { ordinal, count }) => assert!(ordinal == 1 << 20 && count < ordinal),
        other => panic!("expected NoDriver or NoDevice, got {other:?}"),
    }
}

#[test]
fn no_driver_error_says_what_is_missing() {
    let msg = Error::NoDriver.to_string();
    assert!(msg.contains("driver"), "{msg}");
}
