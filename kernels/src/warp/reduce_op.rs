//! Reduction operators: what a reduction combines, for the warp, block and device reductions
//! ([`crate::warp::warp_reduce`], [`crate::block::block_reduce`],
//! [`crate::device::reduce`]).
//!
//! A [`ReduceOp`] turns each input element (and its index) into an accumulator ([`ReduceOp::lift`])
//! and combines accumulators. Every [`ScanOp`] is one ([`Sum`](crate::warp::Sum),
//! [`Min`](crate::warp::Min), [`Max`](crate::warp::Max): the accumulator is the element); so are
//! [`ArgMin`] and [`ArgMax`], whose accumulator is an [`ArgKey`]: the element's position in an
//! order (its key) and its index.
//!
//! Reductions combine in a tree whose shape is fixed by the launch, not in input order: an
//! operator must be **associative and commutative** (floating-point addition is, up to
//! rounding; the order is fixed, so a float sum gives the same bits on every run).

use super::scan_op::{ordered_fold, OrderedFloat};
use crate::device::scan::tile::item;
use crate::warp::{ScanElement, ScanOp};
use core::marker::PhantomData;

/// An associative and commutative operator over accumulators of type `T`, fed with elements of
/// type `Item` and their indices.
pub trait ReduceOp {
    /// The input element.
    type Item: ScanElement;
    /// What is combined (for [`ScanOp`]s, the element itself). Its size is a multiple of 4 bytes
    /// (it moves through 32-bit shuffles and shared memory).
    type T: Copy;
    /// `combine(IDENTITY, x) == x` for every `x`: the result of an empty reduction.
    const IDENTITY: Self::T;
    /// The accumulator of element `x` at `index`.
    fn lift(x: Self::Item, index: u64) -> Self::T;
    /// `a ⊕ b`.
    fn combine(a: Self::T, b: Self::T) -> Self::T;
    /// Whether the result is the same, bit for bit, whatever the order and grouping of the
    /// combines ([`ScanOp::ANY_ORDER`]; the arg operators' keys and indices are exact).
    const ANY_ORDER: bool;

    /// `acc` combined with every element of `V` 16-byte vectors, in order: element `j` of
    /// vector `u` (`16 / size_of::<Item>()` per vector) lifted with index `index(u, j)`. The
    /// indices increase in that order and are all greater than those already in `acc` (a
    /// thread's own elements, in index order), which lets an operator take fewer steps than
    /// one combine per element: the arg operators find the chunk's best key first and look
    /// for its index only when the chunk wins. The result is the same as the combines'.
    #[inline(always)]
    fn accumulate<const V: usize>(
        acc: Self::T,
        chunks: &[[u32; 4]; V],
        index: impl Fn(usize, usize) -> u64,
    ) -> Self::T {
        let mut acc = acc;
        for (u, c) in chunks.iter().enumerate() {
            for j in 0..per_vector::<Self::Item>() {
                acc = Self::combine(acc, Self::lift(item::<Self::Item>(c, j), index(u, j)));
            }
        }
        acc
    }
}

/// Elements of `T` in a 16-byte vector.
#[inline(always)]
const fn per_vector<T>() -> usize {
    16 / core::mem::size_of::<T>()
}

/// [`ReduceOp::accumulate`] for the arg operators: `best`, the least key of the chunks, and
/// only if it beats `acc` (or `acc` holds no element yet) the index of its first occurrence,
/// element `at() % per` of vector `at() / per`.
#[inline(always)]
fn arg_accumulate<T: ScanElement>(
    acc: ArgKey,
    best: u64,
    index: impl Fn(usize, usize) -> u64,
    at: impl FnOnce() -> usize,
) -> ArgKey {
    if best < acc.key || acc.index == u64::MAX {
        let at = at();
        ArgKey { key: best, index: index(at / per_vector::<T>(), at % per_vector::<T>()) }
    } else {
        acc
    }
}

/// The position (vector · elements per vector + element) of the first element of `chunks` for
/// which `test` holds; 0 if none does.
#[inline(always)]
fn first<T: ScanElement, const V: usize>(chunks: &[[u32; 4]; V], test: impl Fn(T) -> bool) -> usize {
    // Scanned from the back, the last match seen is the first one: a test and a select each.
    let mut at = 0u32;
    for (u, c) in chunks.iter().enumerate().rev() {
        for j in (0..per_vector::<T>()).rev() {
            if test(item::<T>(c, j)) {
                at = (u * per_vector::<T>() + j) as u32;
            }
        }
    }
    at as usize
}

impl<O: ScanOp> ReduceOp for O {
    type Item = <O as ScanOp>::T;
    type T = <O as ScanOp>::T;
    const IDENTITY: <O as ScanOp>::T = <O as ScanOp>::IDENTITY;
    const ANY_ORDER: bool = <O as ScanOp>::ANY_ORDER;
    #[inline(always)]
    fn lift(x: <O as ScanOp>::T, _index: u64) -> <O as ScanOp>::T {
        x
    }
    #[inline(always)]
    fn combine(a: <O as ScanOp>::T, b: <O as ScanOp>::T) -> <O as ScanOp>::T {
        <O as ScanOp>::combine(a, b)
    }
    #[inline(always)]
    fn accumulate<const V: usize>(
        acc: <O as ScanOp>::T,
        chunks: &[[u32; 4]; V],
        _index: impl Fn(usize, usize) -> u64,
    ) -> <O as ScanOp>::T {
        O::fold_chunks(acc, chunks)
    }
}

/// The accumulator of [`ArgMin`] and [`ArgMax`]: the element's key in the operator's order
/// (smaller wins) and its index (smaller wins among equal keys). `{u64::MAX, u64::MAX}` is
/// the identity: no element.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C)]
pub struct ArgKey {
    /// The element's rank in the operator's order ([`OrderKey`]): the winner has the smallest.
    pub key: u64,
    /// The element's index; `u64::MAX` for none.
    pub index: u64,
}

impl ArgKey {
    /// No element: the identity of [`ArgMin`] and [`ArgMax`].
    pub const NONE: ArgKey = ArgKey { key: u64::MAX, index: u64::MAX };

    /// The winner of `a` and `b`: the smaller key, then the smaller index.
    #[inline(always)]
    pub fn first(a: ArgKey, b: ArgKey) -> ArgKey {
        if b.key < a.key || (b.key == a.key && b.index < a.index) {
            b
        } else {
            a
        }
    }
}

/// Keys that order elements for [`ArgMin`] and [`ArgMax`]: an element with a smaller key wins.
///
/// For integers, the order of the values (smallest first for argmin, largest first for argmax).
/// For floats, the order of IEEE 754-2019 `minimum` / `maximum` ([`crate::warp::minimum_f32`]):
/// `-0.0` before `+0.0` for argmin (after it for argmax), and **every NaN first**, for both
/// (key 0): an argmin or argmax of an input with a NaN is the index of its first NaN, as the
/// min and max of that input are NaN. Non-NaN floats have keys of at least 1.
pub trait OrderKey: ScanElement {
    /// The key for [`ArgMin`].
    fn min_key(self) -> u64;
    /// The key for [`ArgMax`].
    fn max_key(self) -> u64;

    /// The least [`OrderKey::min_key`] of the elements of `chunks`, in the element's width (an
    /// integer min per element; floats also note NaNs).
    fn least_min_key<const V: usize>(chunks: &[[u32; 4]; V]) -> u64;
    /// The least [`OrderKey::max_key`] of the elements of `chunks`.
    fn least_max_key<const V: usize>(chunks: &[[u32; 4]; V]) -> u64;
    /// The position of the first element of `chunks` whose [`OrderKey::min_key`] is `key`, as
    /// [`first`] numbers them: the element's bits compared with the one value of that key, not
    /// each element's key computed again.
    fn first_min_key<const V: usize>(chunks: &[[u32; 4]; V], key: u64) -> usize;
    /// The position of the first element of `chunks` whose [`OrderKey::max_key`] is `key`.
    fn first_max_key<const V: usize>(chunks: &[[u32; 4]; V], key: u64) -> usize;
}

/// The least `key` of the elements of `chunks`, from `init`.
#[inline(always)]
fn least<T: ScanElement, K: Ord, const V: usize>(chunks: &[[u32; 4]; V], init: K, key: impl Fn(T) -> K) -> K {
    let mut best = init;
    for c in chunks {
        for j in 0..per_vector::<T>() {
            best = best.min(key(item::<T>(c, j)));
        }
    }
    best
}

macro_rules! int_keys {
    ($($t:ty: $u:ty, $flip:expr;)*) => {$(
        impl OrderKey for $t {
            #[inline(always)]
            fn min_key(self) -> u64 {
                (self as $u ^ $flip) as u64
            }
            #[inline(always)]
            fn max_key(self) -> u64 {
                (!(self as $u ^ $flip)) as u64
            }
            #[inline(always)]
            fn least_min_key<const V: usize>(chunks: &[[u32; 4]; V]) -> u64 {
                least(chunks, <$u>::MAX, |x: $t| x as $u ^ $flip) as u64
            }
            #[inline(always)]
            fn least_max_key<const V: usize>(chunks: &[[u32; 4]; V]) -> u64 {
                least(chunks, <$u>::MAX, |x: $t| !(x as $u ^ $flip)) as u64
            }
            #[inline(always)]
            fn first_min_key<const V: usize>(chunks: &[[u32; 4]; V], key: u64) -> usize {
                let bits = key as $u ^ $flip;
                first(chunks, |x: $t| x as $u == bits)
            }
            #[inline(always)]
            fn first_max_key<const V: usize>(chunks: &[[u32; 4]; V], key: u64) -> usize {
                let bits = !(key as $u) ^ $flip;
                first(chunks, |x: $t| x as $u == bits)
            }
        }
    )*};
}
int_keys! {
    u32: u32, 0;
    i32: u32, 1 << 31;
    u64: u64, 0;
    i64: u64, 1 << 63;
}

macro_rules! float_keys {
    ($($t:ty: $u:ty;)*) => {$(
        impl OrderKey for $t {
            #[inline(always)]
            fn min_key(self) -> u64 {
                if self.is_nan() {
                    return 0;
                }
                self.ordered() as u64
            }
            #[inline(always)]
            fn max_key(self) -> u64 {
                if self.is_nan() {
                    return 0;
                }
                (!self.ordered()) as u64
            }

            // The least key as the float minimum and maximum fold ([`ScanOp::fold_chunks`]): the
            // least or greatest of the elements' ordered bits, and any NaN noted beside it (a
            // NaN's key, 0, is then the least) — three steps per element instead of five.
            #[inline(always)]
            fn least_min_key<const V: usize>(chunks: &[[u32; 4]; V]) -> u64 {
                let (least, nan) = ordered_fold::<$t, V>(chunks, <$u>::MAX, |a: $u, b: $u| a.min(b));
                if nan { 0 } else { least as u64 }
            }
            #[inline(always)]
            fn least_max_key<const V: usize>(chunks: &[[u32; 4]; V]) -> u64 {
                let (greatest, nan) = ordered_fold::<$t, V>(chunks, 0, |a: $u, b: $u| a.max(b));
                if nan { 0 } else { (!greatest) as u64 }
            }

            // Key 0 is every NaN; any other key is one float's ordered bits (a bijection), so
            // that float's bits are the test: a comparison per element.
            #[inline(always)]
            fn first_min_key<const V: usize>(chunks: &[[u32; 4]; V], key: u64) -> usize {
                first_ordered::<$t, V>(chunks, key, key as $u)
            }
            #[inline(always)]
            fn first_max_key<const V: usize>(chunks: &[[u32; 4]; V], key: u64) -> usize {
                first_ordered::<$t, V>(chunks, key, !(key as $u))
            }
        }
    )*};
}

/// [`first`] of the float whose ordered bits are `ordered`, or of the first NaN if `key` is 0.
#[inline(always)]
fn first_ordered<T: OrderedFloat, const V: usize>(chunks: &[[u32; 4]; V], key: u64, ordered: T::Bits) -> usize {
    if key == 0 {
        first(chunks, |x: T| x.nan())
    } else {
        let bits = T::from_ordered(ordered).bits();
        first(chunks, |x: T| x.bits() == bits)
    }
}

float_keys! {
    f32: u32;
    f64: u64;
}

/// The index and value of the least element (ties: the smallest index; floats: the first NaN
/// if there is one, see [`OrderKey`]).
pub struct ArgMin<T>(PhantomData<T>);
/// The index and value of the greatest element (ties: the smallest index; floats: the first NaN
/// if there is one, see [`OrderKey`]).
pub struct ArgMax<T>(PhantomData<T>);

impl<T: OrderKey> ReduceOp for ArgMin<T> {
    type Item = T;
    type T = ArgKey;
    const IDENTITY: ArgKey = ArgKey::NONE;
    const ANY_ORDER: bool = true;
    #[inline(always)]
    fn lift(x: T, index: u64) -> ArgKey {
        ArgKey { key: x.min_key(), index }
    }
    #[inline(always)]
    fn combine(a: ArgKey, b: ArgKey) -> ArgKey {
        ArgKey::first(a, b)
    }
    #[inline(always)]
    fn accumulate<const V: usize>(acc: ArgKey, chunks: &[[u32; 4]; V], index: impl Fn(usize, usize) -> u64) -> ArgKey {
        let best = T::least_min_key(chunks);
        arg_accumulate::<T>(acc, best, index, || T::first_min_key(chunks, best))
    }
}

impl<T: OrderKey> ReduceOp for ArgMax<T> {
    type Item = T;
    type T = ArgKey;
    const IDENTITY: ArgKey = ArgKey::NONE;
    const ANY_ORDER: bool = true;
    #[inline(always)]
    fn lift(x: T, index: u64) -> ArgKey {
        ArgKey { key: x.max_key(), index }
    }
    #[inline(always)]
    fn combine(a: ArgKey, b: ArgKey) -> ArgKey {
        ArgKey::first(a, b)
    }
    #[inline(always)]
    fn accumulate<const V: usize>(acc: ArgKey, chunks: &[[u32; 4]; V], index: impl Fn(usize, usize) -> u64) -> ArgKey {
        let best = T::least_max_key(chunks);
        arg_accumulate::<T>(acc, best, index, || T::first_max_key(chunks, best))
    }
}
