//! A toy GPU-driven culling pipeline written against warpwork's device building blocks:
//!
//! * pass 1, [`cull_meshes`]: one thread per [`PUSH_ITEMS`] meshes tests each mesh's bounding
//!   sphere against a plane and, for a visible mesh, asks for one pass-2 item per meshlet —
//!   pushed straight into the power-of-two buckets (`push_po2_buckets_with`), no counts array;
//! * pass 2, [`cull_meshlets`]: one item per (mesh, meshlet) of the visible meshes, found by
//!   `locate::for_each`; visible meshlets are appended to an output list.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, asm_experimental_arch)]
#![allow(clippy::missing_safety_doc)]

use warpwork_kernels::arch::{atomic_add_u32, block_dim_x, block_idx_x, thread_idx_x};
use warpwork_kernels::device::expand::push::{push_po2_buckets_with, PUSH_ITEMS};
use warpwork_kernels::device::expand::{locate, ExpandView};
use warpwork_kernels::static_shared;

/// A mesh: bounding sphere and its range of meshlets. Same layout as the host's.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Mesh {
    pub center: [f32; 3],
    pub radius: f32,
    pub first_meshlet: u32,
    pub meshlets: u32,
}

/// A meshlet's bounding sphere.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Meshlet {
    pub center: [f32; 3],
    pub radius: f32,
}

#[inline(always)]
fn visible(plane: [f32; 4], c: [f32; 3], r: f32) -> bool {
    plane[0] * c[0] + plane[1] * c[1] + plane[2] * c[2] + plane[3] + r >= 0.0
}

/// Pass 1. Launch `ceil(n / (PUSH_ITEMS · 256))` blocks of 256 after `Expander::pass1_by_own_kernel`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn cull_meshes(
    view: *const ExpandView,
    meshes: *const Mesh,
    n: u32,
    plane: *const [f32; 4],
) {
    let plane = *plane;
    let first = (block_idx_x() * block_dim_x() + thread_idx_x()) * PUSH_ITEMS as u32;
    let mut counts = [0u32; PUSH_ITEMS];
    for (j, c) in counts.iter_mut().enumerate() {
        let i = first + j as u32;
        if i < n {
            let m = *meshes.add(i as usize);
            if visible(plane, m.center, m.radius) {
                *c = m.meshlets;
            }
        }
    }
    push_po2_buckets_with(
        &*view,
        first,
        counts,
        static_shared!(CULL_SCRATCH: [u64; warpwork_kernels::device::expand::push::PUSH_SCRATCH_U64]),
        static_shared!(CULL_BUCKETS: [u32; warpwork_kernels::device::expand::push::PO2_SCRATCH_U32]),
    );
}

/// Pass 2: `expand_with`'s contract (view first, persistent grid of 256-thread blocks).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn cull_meshlets(
    view: *const ExpandView,
    meshes: *const Mesh,
    meshlets: *const Meshlet,
    plane: *const [f32; 4],
    out: *mut u32,
    out_count: *mut u32,
) {
    let plane = *plane;
    locate::for_each(&*view, |mesh, local| {
        let id = (*meshes.add(mesh as usize)).first_meshlet + local;
        let m = *meshlets.add(id as usize);
        if visible(plane, m.center, m.radius) {
            let slot = atomic_add_u32(out_count, 1);
            *out.add(slot as usize) = id;
        }
    });
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    unsafe { core::arch::nvptx::trap() }
}
