//! A memory-bound particle update, the workload of the list-partitioning comparison
//! ([`crate::device::partition`]): per particle it reads a position and a velocity (two 16-byte vector
//! loads) and writes both back (two 16-byte stores), with a few flops in between.

use crate::arch::{load_v4_f32, store_v4_f32};
use crate::device::partition::Indices;

/// Four `f32`s, 16-byte aligned so that loads and stores of one are single vector instructions
/// (`ld.global.v4.f32`). `w` is carried along unchanged.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub struct Vec4(pub [f32; 4]);

/// Fraction of the vertical speed a particle keeps when it bounces off the floor `y = 0`.
pub const RESTITUTION: f32 = 0.5;

/// One explicit Euler step of a particle under gravity `g`, bouncing off the floor `y = 0`.
/// The CPU reference (`warpwork_cpu_reference::particles::step`) is the same.
#[inline(always)]
pub fn step(pos: Vec4, vel: Vec4, dt: f32, g: [f32; 3]) -> (Vec4, Vec4) {
    let (mut p, mut v) = (pos.0, vel.0);
    for k in 0..3 {
        v[k] += g[k] * dt;
        p[k] += v[k] * dt;
    }
    if p[1] < 0.0 {
        p[1] = -p[1];
        v[1] = -v[1] * RESTITUTION;
    }
    (Vec4(p), Vec4(v))
}

/// Updates the particles at `indices` in place.
///
/// # Safety
/// `pos` and `vel` hold every index the iterator yields.
#[inline(always)]
pub unsafe fn update(indices: Indices, pos: *mut Vec4, vel: *mut Vec4, dt: f32, g: [f32; 3]) {
    // Explicit 16-byte vector loads and stores: see `arch::store_v4_f32` for why.
    let (pos, vel) = (pos as *mut [f32; 4], vel as *mut [f32; 4]);
    for i in indices {
        let (p, v) = step(Vec4(load_v4_f32(pos.add(i))), Vec4(load_v4_f32(vel.add(i))), dt, g);
        store_v4_f32(pos.add(i), p.0);
        store_v4_f32(vel.add(i), v.0);
    }
}
