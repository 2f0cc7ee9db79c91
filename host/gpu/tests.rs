//! Unit tests of `gpu` (no GPU needed).

use super::*;

#[test]
fn handles_move_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Gpu>();
    send_sync::<crate::expand::Expander>();
}
