//! Shared memory.
//!
//! Rust cannot place a `static` in PTX's shared state space, so shared arrays are declared in
//! PTX (`global_asm!`) and reached through `cvta.shared`, which yields a generic pointer that
//! ordinary loads and stores use.

/// A pointer to the block's dynamic shared memory (`extern __shared__`), sized at launch by the
/// host (`shared_mem_bytes`). 16-byte aligned.
#[inline(always)]
pub fn dynamic_shared<T>() -> *mut T {
    let p: u64;
    unsafe {
        core::arch::asm!("cvta.shared.u64 {p}, warpwork_dynamic_smem;", p = out(reg64) p, options(pure, nomem, nostack))
    };
    p as *mut T
}

core::arch::global_asm!(".extern .shared .align 16 .b8 warpwork_dynamic_smem[];");

/// Declares a block-wide static shared array and evaluates to a `*mut T` pointing at it.
///
/// `static_shared!(NAME: [T; N])` reserves `N * size_of::<T>()` bytes, 16-byte aligned, in every
/// kernel that uses it. `NAME` names a PTX symbol (`warpwork_smem_NAME`): it must be unique in
/// the kernel crate.
/// `T` and `N` are evaluated inside a module of their own: name types by a path that resolves
/// from anywhere (`u32`, `crate::MyType`), and `N` as a literal or a path constant.
///
/// ```ignore
/// let counts: *mut u32 = static_shared!(WARP_COUNTS: [u32; 32]);
/// ```
#[macro_export]
macro_rules! static_shared {
    ($name:ident : [$t:ty; $n:expr]) => {{
        // `global_asm!` is only allowed at item level, hence the module around it.
        #[allow(non_snake_case)]
        mod $name {
            core::arch::global_asm!(
                concat!(".shared .align 16 .b8 warpwork_smem_", stringify!($name), "[{bytes}];"),
                bytes = const (core::mem::size_of::<$t>() * ($n)),
            );
        }
        let p: u64;
        unsafe {
            core::arch::asm!(concat!("cvta.shared.u64 {p}, warpwork_smem_", stringify!($name), ";"),
                             p = out(reg64) p, options(pure, nomem, nostack))
        };
        p as *mut $t
    }};
}

/// Loads a `T` from shared memory with `ld.shared` (`LDS`), given a generic pointer into shared
/// memory (from [`static_shared!`] or [`dynamic_shared`]).
///
/// A plain load through such a pointer is a *generic* load (`LD`, which checks the address
/// window at run time): the pointer came out of inline PTX, so neither LLVM nor ptxas knows it
/// is shared. 16-byte aligned `T`s whose size is a multiple of 16 load as `ld.shared.v4`, others
/// one 32-bit word at a time. `T`'s size must be a multiple of 4 bytes (checked at compile time).
///
/// # Safety
/// `p` must point to a readable, suitably aligned `T` in shared memory.
#[inline(always)]
pub unsafe fn load_shared<T: Copy>(p: *const T) -> T {
    use core::mem::{align_of, size_of, MaybeUninit};
    const { assert!(size_of::<T>().is_multiple_of(4)) };
    let mut out = MaybeUninit::<T>::uninit();
    let dst = out.as_mut_ptr() as *mut u32;
    let src = p as u64;
    if size_of::<T>().is_multiple_of(16) && align_of::<T>() >= 16 {
        let mut i = 0;
        while i < size_of::<T>() / 16 {
            let (a, b, c, d): (u32, u32, u32, u32);
            core::arch::asm!(
                "{{ .reg .b64 %s; cvta.to.shared.u64 %s, {p}; ld.shared.v4.b32 {{{a}, {b}, {c}, {d}}}, [%s]; }}",
                p = in(reg64) src + 16 * i as u64, a = out(reg32) a, b = out(reg32) b, c = out(reg32) c,
                d = out(reg32) d, options(nostack, readonly));
            dst.add(4 * i).write(a);
            dst.add(4 * i + 1).write(b);
            dst.add(4 * i + 2).write(c);
            dst.add(4 * i + 3).write(d);
            i += 1;
        }
    } else {
        let mut i = 0;
        while i < size_of::<T>() / 4 {
            let w: u32;
            core::arch::asm!("{{ .reg .b64 %s; cvta.to.shared.u64 %s, {p}; ld.shared.b32 {w}, [%s]; }}",
                             p = in(reg64) src + 4 * i as u64, w = out(reg32) w, options(nostack, readonly));
            dst.add(i).write(w);
            i += 1;
        }
    }
    out.assume_init()
}

/// `st.shared.v4.b32`: one 16-byte store into shared memory through a generic pointer (a plain
/// store through it would be a generic `ST`, and `[u32; 4]` is only 4-byte aligned to Rust).
///
/// # Safety
/// `p` must point to 16 writable, 16-byte aligned bytes in shared memory.
#[inline(always)]
pub unsafe fn store_shared_v4(p: *mut [u32; 4], v: [u32; 4]) {
    core::arch::asm!(
        "{{ .reg .b64 %s; cvta.to.shared.u64 %s, {p}; st.shared.v4.b32 [%s], {{{a}, {b}, {c}, {d}}}; }}",
        p = in(reg64) p, a = in(reg32) v[0], b = in(reg32) v[1], c = in(reg32) v[2], d = in(reg32) v[3],
        options(nostack));
}

/// `st.shared.b32`: one 32-bit store into shared memory through a generic pointer (a plain
/// or volatile store through it is a generic `ST`, which must first find out which memory the
/// address is in).
///
/// # Safety
/// `p` must point to 4 writable, 4-byte aligned bytes in shared memory.
#[inline(always)]
pub unsafe fn store_shared_u32(p: *mut u32, v: u32) {
    core::arch::asm!(
        "{{ .reg .b64 %s; cvta.to.shared.u64 %s, {p}; st.shared.b32 [%s], {v}; }}",
        p = in(reg64) p, v = in(reg32) v, options(nostack));
}

/// `ld.shared.v4.b32`: one 16-byte load from shared memory (see [`store_shared_v4`]).
///
/// # Safety
/// `p` must point to 16 readable, 16-byte aligned bytes in shared memory.
#[inline(always)]
pub unsafe fn load_shared_v4(p: *const [u32; 4]) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    core::arch::asm!(
        "{{ .reg .b64 %s; cvta.to.shared.u64 %s, {p}; ld.shared.v4.b32 {{{a}, {b}, {c}, {d}}}, [%s]; }}",
        p = in(reg64) p, a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
        options(nostack, readonly));
    [a, b, c, d]
}

/// `ld.shared.v2.b32`: one 8-byte load from shared memory (see [`store_shared_v4`]).
///
/// # Safety
/// `p` must point to 8 readable, 8-byte aligned bytes in shared memory.
#[inline(always)]
pub unsafe fn load_shared_v2(p: *const [u32; 2]) -> [u32; 2] {
    let (a, b): (u32, u32);
    core::arch::asm!(
        "{{ .reg .b64 %s; cvta.to.shared.u64 %s, {p}; ld.shared.v2.b32 {{{a}, {b}}}, [%s]; }}",
        p = in(reg64) p, a = out(reg32) a, b = out(reg32) b, options(nostack, readonly));
    [a, b]
}

/// `st.shared.v2.b32`: one 8-byte store into shared memory (see [`store_shared_v4`]).
///
/// # Safety
/// `p` must point to 8 writable, 8-byte aligned bytes in shared memory.
#[inline(always)]
pub unsafe fn store_shared_v2(p: *mut [u32; 2], v: [u32; 2]) {
    core::arch::asm!(
        "{{ .reg .b64 %s; cvta.to.shared.u64 %s, {p}; st.shared.v2.b32 [%s], {{{a}, {b}}}; }}",
        p = in(reg64) p, a = in(reg32) v[0], b = in(reg32) v[1], options(nostack));
}
