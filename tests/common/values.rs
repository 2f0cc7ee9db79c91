//! Test values for each arithmetic element type, shared by the scan and reduction tests (each
//! extends [`TestValues`] with what it needs beside).

use bytemuck::Pod;
use warpwork_cpu_reference::inputs;

/// An element type's test values.
pub trait TestValues: Pod {
    const FLOAT: bool;
    /// Random values over the type's range (floats: reals in [-1, 1)).
    fn random(n: usize, seed: u64) -> Vec<Self>;
    /// Small integers (floats: integer-valued, so that every partial sum of up to 2^20 of them
    /// is exact in any order).
    fn small_ints(n: usize, seed: u64) -> Vec<Self>;
    fn from_i32(v: i32) -> Self;
    fn to_f64(self) -> f64;
}

macro_rules! int_values {
    ($($t:ty),*) => {$(
        impl TestValues for $t {
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
        }
    )*};
}
int_values!(u32, i32, u64, i64);

macro_rules! float_values {
    ($($t:ty),*) => {$(
        impl TestValues for $t {
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
        }
    )*};
}
float_values!(f32, f64);
