//! The reduction tests' element types (`reduce_gpu.rs`, `reduce_segmented_gpu.rs`): their
//! extremes beside their values, and comparison with the CPU reference.

use super::values::TestValues;
use warpwork::reduce::{ReduceItem, ReduceOp};
use warpwork_cpu_reference::reduce::ArgElement;
use warpwork_cpu_reference::scan::Op;

/// An element type under test: its values ([`TestValues`]) and its extremes.
pub trait TestElement: ReduceItem + ArgElement + TestValues {
    /// The least and greatest values of the type (floats: the infinities).
    fn extremes() -> (Self, Self);
    /// `-0.0` (integers: 0).
    fn neg_zero() -> Self;
}

macro_rules! int_element {
    ($($t:ty),*) => {$(
        impl TestElement for $t {
            fn extremes() -> (Self, Self) {
                (<$t>::MIN, <$t>::MAX)
            }
            fn neg_zero() -> Self {
                0
            }
        }
    )*};
}
int_element!(u32, i32, u64, i64);

macro_rules! float_element {
    ($($t:ty),*) => {$(
        impl TestElement for $t {
            fn extremes() -> (Self, Self) {
                (<$t>::NEG_INFINITY, <$t>::INFINITY)
            }
            fn neg_zero() -> Self {
                -0.0
            }
        }
    )*};
}
float_element!(f32, f64);

pub const OPS: [ReduceOp; 3] = [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max];

pub fn cpu_op(op: ReduceOp) -> Op {
    match op {
        ReduceOp::Sum => Op::Sum,
        ReduceOp::Min => Op::Min,
        ReduceOp::Max => Op::Max,
    }
}

/// Equal bit for bit, or (floats) equal as numbers, or both NaN.
pub fn same<T: TestElement>(a: T, b: T) -> bool {
    bytemuck::bytes_of(&a) == bytemuck::bytes_of(&b)
        || (T::FLOAT && (a.to_f64() == b.to_f64() || (a.to_f64().is_nan() && b.to_f64().is_nan())))
}
