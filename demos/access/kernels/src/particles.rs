//! A memory-bound particle update, the workload of the list-partitioning comparison
//! (warpwork-kernels' `device::partition`): per particle it reads a position and a velocity (two
//! 16-byte vector loads) and writes both back (two 16-byte stores), with a few flops in between:
//! the step of [`crate::abi::particles`].

pub use crate::abi::particles::{step, Step, RESTITUTION, THREADS};
use warpwork_kernels::arch::{load_v4_f32, store_v4_f32};
use warpwork_kernels::device::partition::Indices;

/// Four `f32`s, 16-byte aligned so that loads and stores of one are single vector instructions
/// (`ld.global.v4.f32`). `w` is carried along unchanged.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Vec4(pub [f32; 4]);

/// Updates the particles at `indices` in place.
///
/// # Safety
/// `pos` and `vel` hold every index the iterator yields.
#[inline(always)]
pub unsafe fn update(indices: Indices, pos: *mut Vec4, vel: *mut Vec4, s: &Step) {
    // Explicit 16-byte vector loads and stores: see warpwork-kernels' `arch::store_v4_f32` for why.
    let (pos, vel) = (pos as *mut [f32; 4], vel as *mut [f32; 4]);
    for i in indices {
        let (p, v) = step(load_v4_f32(pos.add(i)), load_v4_f32(vel.add(i)), s);
        store_v4_f32(pos.add(i), p);
        store_v4_f32(vel.add(i), v);
    }
}
