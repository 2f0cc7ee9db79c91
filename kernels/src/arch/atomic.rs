//! Relaxed atomics at device (`.gpu`) scope on global memory, and at block scope on shared memory.
//!
//! `core::sync::atomic` on this target emits system-scope (`.sys`) atomics on generic addresses:
//! correct, but stronger and slower than work distribution needs. These wrap `atom.global.*` /
//! `atom.shared.*` with PTX's default semantics (`.relaxed`, `.gpu` scope). Pair them with the
//! fences in [`super::memory`] where ordering with other memory accesses matters.
//!
//! Every function is `unsafe`: the pointer must be valid, aligned, and point into the named state
//! space (a global-memory pointer for `atomic_*`, a pointer from [`super::shared`] for
//! `shared_atomic_*`).

use core::arch::asm;

macro_rules! global_atomic {
    ($(#[$doc:meta])* $name:ident, $op:literal, $t:ty, $reg:ident) => {
        $(#[$doc])*
        #[inline(always)]
        pub unsafe fn $name(p: *mut $t, v: $t) -> $t {
            let old: $t;
            asm!(concat!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; atom.global.", $op, " {old}, [%g], {v}; }}"),
                 p = in(reg64) p, v = in($reg) v, old = out($reg) old, options(nostack));
            old
        }
    };
}
global_atomic!(/// `atomicAdd` on a global `u32`; returns the old value.
               atomic_add_u32, "add.u32", u32, reg32);
global_atomic!(/// `atomicAdd` on a global `u64`; returns the old value.
               atomic_add_u64, "add.u64", u64, reg64);
global_atomic!(/// `atomicMax` on a global `u32`; returns the old value.
               atomic_max_u32, "max.u32", u32, reg32);
global_atomic!(/// `atomicMax` on a global `u64`; returns the old value.
               atomic_max_u64, "max.u64", u64, reg64);
global_atomic!(/// `atomicOr` on a global `u32`; returns the old value.
               atomic_or_u32, "or.b32", u32, reg32);
global_atomic!(/// `atomicExch` on a global `u32`; returns the old value.
               atomic_exch_u32, "exch.b32", u32, reg32);

/// `atomicCAS` on a global `u32`: stores `new` if the value equals `cmp`; returns the old value.
#[inline(always)]
pub unsafe fn atomic_cas_u32(p: *mut u32, cmp: u32, new: u32) -> u32 {
    let old: u32;
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; atom.global.cas.b32 {old}, [%g], {c}, {n}; }}",
         p = in(reg64) p, c = in(reg32) cmp, n = in(reg32) new, old = out(reg32) old, options(nostack));
    old
}

/// `atomicCAS` on a global `u64` (`atom.global.cas.b64`; `.u64` is not a valid CAS type in PTX).
#[inline(always)]
pub unsafe fn atomic_cas_u64(p: *mut u64, cmp: u64, new: u64) -> u64 {
    let old: u64;
    asm!("{{ .reg .b64 %g; cvta.to.global.u64 %g, {p}; atom.global.cas.b64 {old}, [%g], {c}, {n}; }}",
         p = in(reg64) p, c = in(reg64) cmp, n = in(reg64) new, old = out(reg64) old, options(nostack));
    old
}

macro_rules! shared_atomic {
    ($(#[$doc:meta])* $name:ident, $op:literal, $t:ty, $reg:ident) => {
        $(#[$doc])*
        #[inline(always)]
        pub unsafe fn $name(p: *mut $t, v: $t) -> $t {
            let old: $t;
            asm!(concat!("{{ .reg .b64 %s; cvta.to.shared.u64 %s, {p}; atom.shared.", $op, " {old}, [%s], {v}; }}"),
                 p = in(reg64) p, v = in($reg) v, old = out($reg) old, options(nostack));
            old
        }
    };
}
shared_atomic!(/// `atomicAdd` on a shared-memory `u32`; returns the old value.
               shared_atomic_add_u32, "add.u32", u32, reg32);
shared_atomic!(/// `atomicAdd` on a shared-memory `u64`; returns the old value.
               shared_atomic_add_u64, "add.u64", u64, reg64);
shared_atomic!(/// `atomicMax` on a shared-memory `u32`; returns the old value.
               shared_atomic_max_u32, "max.u32", u32, reg32);
shared_atomic!(/// `atomicOr` on a shared-memory `u32`; returns the old value.
               shared_atomic_or_u32, "or.b32", u32, reg32);

/// `atomicCAS` on a shared-memory `u32`.
#[inline(always)]
pub unsafe fn shared_atomic_cas_u32(p: *mut u32, cmp: u32, new: u32) -> u32 {
    let old: u32;
    asm!("{{ .reg .b64 %s; cvta.to.shared.u64 %s, {p}; atom.shared.cas.b32 {old}, [%s], {c}, {n}; }}",
         p = in(reg64) p, c = in(reg32) cmp, n = in(reg32) new, old = out(reg32) old, options(nostack));
    old
}
