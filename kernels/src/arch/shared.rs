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
