//! The stream hold behind `Gpu::time_ms` on the host.

use crate::arch::{global_timer_ns, thread_idx_x};
use core::ptr::{read_volatile, write_volatile};

/// Holds its stream until the host stores a nonzero `flag[0]` (pinned, mapped host memory) or
/// `timeout_ns` pass, then stores 1 (released) or 2 (timed out) in `flag[1]`. Launched before a
/// timed piece of work, it lets the host queue all of that work before any of it starts, so the
/// events around it time the device alone, not the host's launch latency. One thread.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn hold_stream(flag: *mut u32, timeout_ns: u64) {
    if thread_idx_x() != 0 {
        return;
    }
    let start = global_timer_ns();
    loop {
        if read_volatile(flag) != 0 {
            write_volatile(flag.add(1), 1);
            return;
        }
        if global_timer_ns().wrapping_sub(start) > timeout_ns {
            write_volatile(flag.add(1), 2);
            return;
        }
    }
}
