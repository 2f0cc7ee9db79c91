//! Memory ordering: fences and scoped loads/stores for communication between blocks.
//!
//! Work distribution across blocks (decoupled look-back, device-side overflow flags) needs a
//! store in one block to become visible to loads in another in a known order. Plain Rust loads
//! may be cached in registers or the L1; these wrap the PTX memory-consistency-model forms.

use core::arch::asm;

/// `fence.acq_rel.gpu`: orders this thread's earlier memory accesses before its later ones, as
/// seen by any thread on the device (`__threadfence()`).
#[inline(always)]
pub fn fence_gpu() {
    unsafe { asm!("fence.acq_rel.gpu;", options(nostack)) };
}

/// `fence.acq_rel.cta`: the same at block scope (`__threadfence_block()`).
#[inline(always)]
pub fn fence_block() {
    unsafe { asm!("fence.acq_rel.cta;", options(nostack)) };
}

/// `ld.relaxed.gpu.global.u64`: a load that always observes the device-coherent value (never a
/// stale register or L1 copy), with no ordering of its own.
#[inline(always)]
pub unsafe fn load_relaxed_u64(p: *const u64) -> u64 {
    let v: u64;
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.relaxed.gpu.global.u64 {v}, [%g]; }}",
         p = in(reg64) p, v = out(reg64) v, options(nostack, readonly));
    v
}

/// `ld.acquire.gpu.global.u64`: later accesses of this thread are ordered after this load.
#[inline(always)]
pub unsafe fn load_acquire_u64(p: *const u64) -> u64 {
    let v: u64;
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.acquire.gpu.global.u64 {v}, [%g]; }}",
         p = in(reg64) p, v = out(reg64) v, options(nostack));
    v
}

/// `st.release.gpu.global.u64`: earlier accesses of this thread are visible before this store.
#[inline(always)]
pub unsafe fn store_release_u64(p: *mut u64, v: u64) {
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; st.release.gpu.global.u64 [%g], {v}; }}",
         p = in(reg64) p, v = in(reg64) v, options(nostack));
}

/// `st.relaxed.gpu.global.u64`: a store other blocks observe without caching, unordered.
#[inline(always)]
pub unsafe fn store_relaxed_u64(p: *mut u64, v: u64) {
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; st.relaxed.gpu.global.u64 [%g], {v}; }}",
         p = in(reg64) p, v = in(reg64) v, options(nostack));
}

/// `ld.relaxed.gpu.global.u32`.
#[inline(always)]
pub unsafe fn load_relaxed_u32(p: *const u32) -> u32 {
    let v: u32;
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.relaxed.gpu.global.u32 {v}, [%g]; }}",
         p = in(reg64) p, v = out(reg32) v, options(nostack, readonly));
    v
}

/// `ld.global.nc.u32`: a load through the read-only (non-coherent) data path, for inputs no
/// thread of the launch writes.
#[inline(always)]
pub unsafe fn load_nc_u32(p: *const u32) -> u32 {
    let v: u32;
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.global.nc.u32 {v}, [%g]; }}",
         p = in(reg64) p, v = out(reg32) v, options(nostack, pure, readonly));
    v
}

/// `ld.global.nc.u64`: as [`load_nc_u32`], 8 bytes (8-byte aligned).
#[inline(always)]
pub unsafe fn load_nc_u64(p: *const u64) -> u64 {
    let v: u64;
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.global.nc.u64 {v}, [%g]; }}",
         p = in(reg64) p, v = out(reg64) v, options(nostack, pure, readonly));
    v
}

/// `ld.global.nc.v4.u32`: a 16-byte read-only load. `p` must be 16-byte aligned.
#[inline(always)]
pub unsafe fn load_nc_v4_u32(p: *const [u32; 4]) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.global.nc.v4.u32 {{{a}, {b}, {c}, {d}}}, [%g]; }}",
         p = in(reg64) p, a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
         options(nostack, pure, readonly));
    [a, b, c, d]
}

/// `ld.global.v4.f32`: one 16-byte load. `p` must be a 16-byte aligned global address.
///
/// Plain Rust loads of 16-byte aligned data usually become `ld.global.v4` too; this guarantees it.
#[inline(always)]
pub unsafe fn load_v4_f32(p: *const [f32; 4]) -> [f32; 4] {
    let (a, b, c, d): (f32, f32, f32, f32);
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.global.v4.f32 {{{a}, {b}, {c}, {d}}}, [%g]; }}",
         p = in(reg64) p, a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
         options(nostack, readonly));
    [a, b, c, d]
}

/// `st.global.v4.f32`: one 16-byte store of all four lanes. `p` must be a 16-byte aligned global
/// address.
///
/// A plain Rust store of a 16-byte value whose last word LLVM can prove unchanged is split into
/// narrower stores of the changed words (`st.v2` + `st.b32`), which writes partial sectors; this
/// always writes the whole 16 bytes with one instruction.
#[inline(always)]
pub unsafe fn store_v4_f32(p: *mut [f32; 4], v: [f32; 4]) {
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; st.global.v4.f32 [%g], {{{a}, {b}, {c}, {d}}}; }}",
         p = in(reg64) p, a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3],
         options(nostack));
}

/// `ld.acquire.gpu.global.u32`: later accesses of this thread are ordered after this load.
#[inline(always)]
pub unsafe fn load_acquire_u32(p: *const u32) -> u32 {
    let v: u32;
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.acquire.gpu.global.u32 {v}, [%g]; }}",
         p = in(reg64) p, v = out(reg32) v, options(nostack));
    v
}

/// `st.release.gpu.global.u32`: earlier accesses of this thread are visible before this store.
#[inline(always)]
pub unsafe fn store_release_u32(p: *mut u32, v: u32) {
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; st.release.gpu.global.u32 [%g], {v}; }}",
         p = in(reg64) p, v = in(reg32) v, options(nostack));
}

/// `st.relaxed.gpu.global.u32`: a store other blocks observe without caching, unordered.
#[inline(always)]
pub unsafe fn store_relaxed_u32(p: *mut u32, v: u32) {
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; st.relaxed.gpu.global.u32 [%g], {v}; }}",
         p = in(reg64) p, v = in(reg32) v, options(nostack));
}

/// `st.global.v4.u32`: one 16-byte store. `p` must be 16-byte aligned. Writing whole 16-byte
/// vectors halves the store instructions of 8-byte records and keeps every warp store one
/// contiguous 512-byte run.
#[inline(always)]
pub unsafe fn store_v4_u32(p: *mut [u32; 4], v: [u32; 4]) {
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; st.global.v4.u32 [%g], {{{a}, {b}, {c}, {d}}}; }}",
         p = in(reg64) p, a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3],
         options(nostack));
}

/// `st.global.cs.v4.u32`: [`store_v4_u32`] marked *streaming* (evict first from L2): for large
/// outputs written once, so that they do not push out of L2 the inputs still being read.
#[inline(always)]
pub unsafe fn store_v4_u32_streaming(p: *mut [u32; 4], v: [u32; 4]) {
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; st.global.cs.v4.u32 [%g], {{{a}, {b}, {c}, {d}}}; }}",
         p = in(reg64) p, a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3],
         options(nostack));
}

/// `ld.global.v4.u32`: a 16-byte coherent load (for data written by an earlier launch or by
/// other blocks before a barrier/fence). `p` must be 16-byte aligned.
#[inline(always)]
pub unsafe fn load_v4_u32(p: *const [u32; 4]) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.global.v4.u32 {{{a}, {b}, {c}, {d}}}, [%g]; }}",
         p = in(reg64) p, a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
         options(nostack, readonly));
    [a, b, c, d]
}

/// [`load_v4_u32`] that marks the lines it reads to be kept in L2 ahead of others
/// (`createpolicy.fractional.L2::evict_last` and `ld.global.L2::cache_hint`; sm_80+, the sm_90
/// module): for data a later kernel reads again. Give the lines back with
/// [`l2_priority_normal`] where that kernel does not (a plain load gives them back too).
#[cfg(feature = "sm90")]
#[inline(always)]
pub unsafe fn load_v4_u32_evict_last(p: *const [u32; 4]) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    asm!("{{ .reg .b64 %g, %pol; cvta.to.global.u64 %g, {p}; \
          createpolicy.fractional.L2::evict_last.b64 %pol, 1.0; \
          ld.global.L2::cache_hint.v4.u32 {{{a}, {b}, {c}, {d}}}, [%g], %pol; }}",
         p = in(reg64) p, a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
         options(nostack, readonly));
    [a, b, c, d]
}

/// `applypriority.global.L2::evict_normal`: the 128-byte L2 line at `p` (128-byte aligned, in
/// global memory) back to the normal eviction priority (sm_80+: the sm_90 module).
#[cfg(feature = "sm90")]
#[inline(always)]
pub unsafe fn l2_priority_normal(p: *const u8) {
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; applypriority.global.L2::evict_normal [%g], 128; }}",
         p = in(reg64) p, options(nostack));
}

/// `ld.relaxed.gpu.global.v2.u64`: two 64-bit words at a 16-byte aligned `p`, each read as by
/// [`load_relaxed_u64`] (each single-copy atomic; the pair is not), in one instruction.
#[inline(always)]
pub unsafe fn load_relaxed_v2_u64(p: *const [u64; 2]) -> [u64; 2] {
    let (a, b): (u64, u64);
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; ld.relaxed.gpu.global.v2.u64 {{{a}, {b}}}, [%g]; }}",
         p = in(reg64) p, a = out(reg64) a, b = out(reg64) b, options(nostack, readonly));
    [a, b]
}

/// `st.relaxed.gpu.global.v2.u64`: two 64-bit words to a 16-byte aligned `p`, each written as by
/// [`store_relaxed_u64`], in one instruction.
#[inline(always)]
pub unsafe fn store_relaxed_v2_u64(p: *mut [u64; 2], v: [u64; 2]) {
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; st.relaxed.gpu.global.v2.u64 [%g], {{{a}, {b}}}; }}",
         p = in(reg64) p, a = in(reg64) v[0], b = in(reg64) v[1], options(nostack));
}

/// `cp.async.cg.shared.global` of 16 bytes (sm_80+: the sm_90 module): copies global `src` to
/// shared `dst` (a generic pointer into shared memory) without passing through registers, and
/// without allocating in L1. Complete with [`copy_async_wait_all`]. Both 16-byte aligned.
#[cfg(feature = "sm90")]
#[inline(always)]
pub unsafe fn copy_async_16(dst: *mut [u32; 4], src: *const [u32; 4]) {
    asm!("{{ .reg .b64 %s, %g; cvta.to.shared.u64 %s, {d}; cvta.to.global.u64 %g, {s}; \
          cp.async.cg.shared.global [%s], [%g], 16; }}",
         d = in(reg64) dst, s = in(reg64) src, options(nostack));
}

/// `cp.async.wait_all`: this thread's [`copy_async_16`]s have landed in shared memory (other
/// threads see them after a barrier).
#[cfg(feature = "sm90")]
#[inline(always)]
pub fn copy_async_wait_all() {
    unsafe { asm!("cp.async.wait_all;", options(nostack)) };
}
