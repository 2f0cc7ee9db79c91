//! The reduction tests' element types (`reduce_gpu.rs`, `reduce_segmented_gpu.rs`): values for
//! each type, and comparison with the CPU reference.

use bytemuck::Pod;
use warpwork::reduce::{ReduceItem, ReduceOp};
use warpwork_cpu_reference::inputs;
use warpwork_cpu_reference::reduce::ArgElement;
use warpwork_cpu_reference::scan::Op;

/// An element type under test.
pub trait TestElement: ReduceItem + ArgElement + Pod {
    const FLOAT: bool;
    /// Random values over the type's range (floats: reals in [-1, 1)).
    fn random(n: usize, seed: u64) -> Vec<Self>;
    /// Small integers (floats: integer-valued, so that sums of up to 2^20 of them are exact).
    fn small_ints(n: usize, seed: u64) -> Vec<Self>;
    fn from_i32(v: i32) -> Self;
    fn to_f64(self) -> f64;
    /// The least and greatest values of the type (floats: the infinities).
    fn extremes() -> (Self, Self);
    /// `-0.0` (integers: 0).
    fn neg_zero() -> Self;
}

macro_rules! int_element {
    ($($t:ty),*) => {$(
        impl TestElement for $t {
            const FLOAT: bool = false;
            fn random(n: usize, seed: u64) -> Vec<Self> {
                inputs::uniform_u64(n, seed).into_iter().map(|x| x as $t).collect()
            }
            fn small_ints(n: usize, seed: u64) -> Vec<Self> {
                inputs::uniform_range(n, seed, 0, 16).into_iter().map(|x| x as $t).collect()
            }
            fn from_i32(v: i32) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
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
            const FLOAT: bool = true;
            fn random(n: usize, seed: u64) -> Vec<Self> {
                inputs::uniform_u64(n, seed).into_iter().map(|x| ((x >> 11) as f64 / (1u64 << 52) as f64 - 1.0) as $t).collect()
            }
            fn small_ints(n: usize, seed: u64) -> Vec<Self> {
                inputs::uniform_range(n, seed, 0, 16).into_iter().map(|x| x as $t - 8.0).collect()
            }
            fn from_i32(v: i32) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
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
