//! [`fold_args`]: the argmin / argmax of a few results of argmin / argmax, each from its own
//! part of one input: what the sharded argmin / argmax does with its ranks' results.

use crate::warp::{ArgKey, OrderKey, ReduceOp};

/// Of the `count` results `(indices[k], values[k])` (an index of `u64::MAX` holds no element:
/// an empty part), the one [`ReduceOp`] `Op` (an `ArgMin` or `ArgMax`) picks — the element's
/// key in the operator's order, then the smallest index — with `base` added to its index; or
/// `(u64::MAX, empty)` for none. The parts come in input order, so their indices, made global,
/// order as the elements' do.
///
/// # Safety
/// `indices` and `values` hold `count` elements each; one thread runs it.
#[inline(always)]
pub unsafe fn fold_args<Op, T>(indices: *const u64, values: *const T, count: u32, base: u64, empty: T) -> (u64, T)
where
    Op: ReduceOp<Item = T, T = ArgKey>,
    T: OrderKey,
{
    let (mut best, mut value) = (ArgKey::NONE, empty);
    for k in 0..count as usize {
        let index = *indices.add(k);
        if index == u64::MAX {
            continue;
        }
        let v = *values.add(k);
        let winner = Op::combine(best, Op::lift(v, index + base));
        if winner != best {
            (best, value) = (winner, v);
        }
    }
    (best.index, value)
}
