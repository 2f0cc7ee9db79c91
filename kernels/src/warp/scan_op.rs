//! Scan operators: what a scan combines, and its identity, for warpwork's element types; and the
//! warp-wide scan under any operator, which the block scan and the look-back are built on.
//!
//! An operator only has to be **associative** (`combine(combine(a, b), c) == combine(a,
//! combine(b, c))`) with `IDENTITY` neutral on both sides: warpwork's scans keep the order of
//! their operands (`combine(earlier, later)`), so your own kernels may scan with
//! non-commutative operators too. Floating-point addition is associative only up to rounding:
//! see `docs/scan.md` for the order a float sum is evaluated in.
//!
//! The operators warpwork exports kernels for ([`Sum`], [`Min`], [`Max`] over `u32`, `i32`,
//! `u64`, `i64`, `f32`, `f64`):
//! * [`Sum`] wraps for integers; for floats it is IEEE addition with identity `-0.0` (the one
//!   value `x + id == x` holds for, `x = -0.0` included).
//! * [`Min`] / [`Max`] have identity `MAX` / `MIN` for integers and `+inf` / `-inf` for floats.
//!   For floats they are IEEE 754-2019 `minimum` / `maximum`: a NaN operand gives a NaN (always
//!   `f32::NAN` / `f64::NAN`, whatever the operand's payload), and `-0.0 < +0.0`. Rust's
//!   `f32::min` would ignore NaNs instead, and return either zero.

use crate::arch::{lane_id, shfl_down, shfl_idx, shfl_up, WARP_SIZE};
use core::marker::PhantomData;

/// How the decoupled look-back ([`crate::device::lookback`]) keeps a tile's published state
/// for an element type.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TileLayout {
    /// One 64-bit word per tile: status in the high 32 bits, a 4-byte value in the low 32.
    Packed32,
    /// Two 64-bit words per tile (16 bytes, aligned), each with the status in its high 32 bits
    /// and one half of an 8-byte value in its low 32.
    Pair,
}

/// An element a scan can move through registers, shuffles and look-back words: 4 or 8 bytes,
/// handled as its bits.
pub trait ScanElement: Copy {
    /// Eight bytes wide (two 32-bit words per shuffle).
    const WIDE: bool;
    /// The look-back's tile layout: [`TileLayout::Packed32`] for 4-byte elements,
    /// [`TileLayout::Pair`] for 8-byte ones unless the type says otherwise.
    const TILE_LAYOUT: TileLayout = if Self::WIDE { TileLayout::Pair } else { TileLayout::Packed32 };
    /// The element's bits (zero-extended for 4-byte elements).
    fn to_bits(self) -> u64;
    /// The element with these bits (the low 32 for 4-byte elements).
    fn from_bits(bits: u64) -> Self;
}

macro_rules! scan_element {
    ($($t:ty: $wide:literal, |$v:ident| $to:expr, |$b:ident| $from:expr;)*) => {$(
        impl ScanElement for $t {
            const WIDE: bool = $wide;
            #[inline(always)]
            fn to_bits(self) -> u64 {
                let $v = self;
                $to
            }
            #[inline(always)]
            fn from_bits($b: u64) -> Self {
                $from
            }
        }
    )*};
}

scan_element! {
    u32: false, |v| v as u64, |b| b as u32;
    i32: false, |v| v as u32 as u64, |b| b as u32 as i32;
    f32: false, |v| v.to_bits() as u64, |b| f32::from_bits(b as u32);
    u64: true, |v| v, |b| b;
    i64: true, |v| v as u64, |b| b as i64;
    f64: true, |v| v.to_bits(), |b| f64::from_bits(b);
}

/// An associative operator with an identity, over elements of type `T`.
pub trait ScanOp {
    /// The element type.
    type T: ScanElement;
    /// `combine(IDENTITY, x) == x == combine(x, IDENTITY)` for every `x`.
    const IDENTITY: Self::T;
    /// `a ⊕ b`, with `a` the earlier operand in scan order.
    fn combine(a: Self::T, b: Self::T) -> Self::T;
    /// Whether `combine` is exactly associative and commutative, so that a reduction may take
    /// the elements in any order and grouping for the same bits: all but the float sums.
    const ANY_ORDER: bool = true;

    /// `acc` combined with every element of `V` 16-byte vectors of `T`, in order (what a thread
    /// of a reduction does with its loads). Operators may take fewer steps than one combine per
    /// element, for the same result: the float minimum and maximum compare integer keys and
    /// note NaNs on the side.
    #[inline(always)]
    fn fold_chunks<const V: usize>(acc: Self::T, chunks: &[[u32; 4]; V]) -> Self::T {
        let mut acc = acc;
        for c in chunks {
            for j in 0..16 / core::mem::size_of::<Self::T>() {
                acc = Self::combine(acc, crate::device::scan::tile::item(c, j));
            }
        }
        acc
    }
}

/// Sum: wrapping for integers, IEEE addition (identity `-0.0`) for floats.
pub struct Sum<T>(PhantomData<T>);
/// Minimum: identity `T::MAX` for integers, `+inf` for floats ([`minimum_f32`] semantics).
pub struct Min<T>(PhantomData<T>);
/// Maximum: identity `T::MIN` for integers, `-inf` for floats ([`maximum_f32`] semantics).
pub struct Max<T>(PhantomData<T>);

macro_rules! op {
    ($op:ident<$t:ty>, $id:expr, |$a:ident, $b:ident| $body:expr $(, fold: $fold:path)? $(, any_order: $any:expr)?) => {
        impl ScanOp for $op<$t> {
            type T = $t;
            const IDENTITY: $t = $id;
            $(const ANY_ORDER: bool = $any;)?
            #[inline(always)]
            fn combine($a: $t, $b: $t) -> $t {
                $body
            }
            $(
            #[inline(always)]
            fn fold_chunks<const V: usize>(acc: $t, chunks: &[[u32; 4]; V]) -> $t {
                $fold(acc, chunks)
            }
            )?
        }
    };
}

macro_rules! integer_ops {
    ($($t:ty),*) => {$(
        op!(Sum<$t>, 0, |a, b| a.wrapping_add(b));
        op!(Min<$t>, <$t>::MAX, |a, b| core::cmp::min(a, b));
        op!(Max<$t>, <$t>::MIN, |a, b| core::cmp::max(a, b));
    )*};
}
integer_ops!(u32, i32, u64, i64);

op!(Sum<f32>, -0.0, |a, b| a + b, any_order: false);
op!(Min<f32>, f32::INFINITY, |a, b| minimum_f32(a, b), fold: fold_minimum_f32);
op!(Max<f32>, f32::NEG_INFINITY, |a, b| maximum_f32(a, b), fold: fold_maximum_f32);
op!(Sum<f64>, -0.0, |a, b| a + b, any_order: false);
op!(Min<f64>, f64::INFINITY, |a, b| minimum_f64(a, b), fold: fold_minimum_f64);
op!(Max<f64>, f64::NEG_INFINITY, |a, b| maximum_f64(a, b), fold: fold_maximum_f64);

/// A float's bits mapped to an unsigned integer of the same order (`-inf` … `-0.0`, `+0.0` …
/// `+inf`): what the float minimum and maximum fold ([`fold_float`]) and the float arg keys
/// (`crate::warp::OrderKey`) compare.
pub(super) trait OrderedFloat: ScanElement {
    /// The unsigned integer of the float's width.
    type Bits: Copy + PartialEq;
    /// The ordered bits: negative floats with every bit flipped, the others with the sign set.
    fn ordered(self) -> Self::Bits;
    /// The float whose [`OrderedFloat::ordered`] bits are `bits`.
    fn from_ordered(bits: Self::Bits) -> Self;
    /// The float's own bits, in its width ([`ScanElement::to_bits`] widens them to 64: the
    /// `f32` arg kernels then compared 64-bit values, 23 more PTX instructions).
    fn bits(self) -> Self::Bits;
    fn nan(self) -> bool;
}

macro_rules! ordered_float {
    ($($t:ty: $u:ty, $i:ty;)*) => {$(
        impl OrderedFloat for $t {
            type Bits = $u;
            #[inline(always)]
            fn ordered(self) -> $u {
                // A shift and one logic operation, where a test and a select took four.
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                let b = self.to_bits();
                b ^ (((b as $i) >> (<$u>::BITS - 1)) as $u | SIGN)
            }
            #[inline(always)]
            fn from_ordered(bits: $u) -> $t {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                <$t>::from_bits(if bits & SIGN != 0 { bits ^ SIGN } else { !bits })
            }
            #[inline(always)]
            fn bits(self) -> $u {
                self.to_bits()
            }
            #[inline(always)]
            fn nan(self) -> bool {
                self.is_nan()
            }
        }
    )*};
}
ordered_float! {
    f32: u32, i32;
    f64: u64, i64;
}

/// The elements of `chunks` folded under `pick` from `init` as their [`OrderedFloat::ordered`]
/// bits, and whether any was NaN: an integer min or max and a NaN test per element.
#[inline(always)]
pub(super) fn ordered_fold<T: OrderedFloat, const V: usize>(
    chunks: &[[u32; 4]; V],
    init: T::Bits,
    pick: impl Fn(T::Bits, T::Bits) -> T::Bits,
) -> (T::Bits, bool) {
    let (mut best, mut nan) = (init, false);
    for c in chunks {
        for j in 0..16 / core::mem::size_of::<T>() {
            let x: T = crate::device::scan::tile::item(c, j);
            nan |= x.nan();
            best = pick(best, x.ordered());
        }
    }
    (best, nan)
}

/// [`ScanOp::fold_chunks`] for the float minimum and maximum: the least or greatest of the
/// elements' [`OrderedFloat`] bits, and whether any element was NaN kept beside it (the result
/// is then `NAN`, as [`minimum_f32`] gives): an integer min or max and a NaN test per element
/// instead of a float minimum's three comparisons. The same bits as the combines.
macro_rules! fold_float {
    ($($name:ident: $t:ty, $u:ty, $pick:ident;)*) => {$(
        #[inline(always)]
        fn $name<const V: usize>(acc: $t, chunks: &[[u32; 4]; V]) -> $t {
            let (best, nan) = ordered_fold::<$t, V>(chunks, acc.ordered(), |a: $u, b: $u| a.$pick(b));
            if nan || acc.is_nan() {
                <$t>::NAN
            } else {
                <$t>::from_ordered(best)
            }
        }
    )*};
}

#[cfg(not(feature = "sm90"))]
fold_float! {
    fold_minimum_f32: f32, u32, min;
    fold_maximum_f32: f32, u32, max;
}
fold_float! {
    fold_minimum_f64: f64, u64, min;
    fold_maximum_f64: f64, u64, max;
}

/// [`ScanOp::fold_chunks`] for the `f32` minimum and maximum on sm_90 builds: `min.NaN.f32` /
/// `max.NaN.f32`, the IEEE 754-2019 operation in one instruction per element (a tree of three
/// per vector, then one into the accumulator), and any NaN made `NAN` at the end. The same bits
/// as the combines.
#[cfg(feature = "sm90")]
macro_rules! fold_nan_f32 {
    ($($name:ident: $op:ident;)*) => {$(
        #[inline(always)]
        fn $name<const V: usize>(acc: f32, chunks: &[[u32; 4]; V]) -> f32 {
            use crate::arch::$op;
            let mut m = acc;
            for c in chunks {
                let [a, b, x, y] = c.map(f32::from_bits);
                m = $op(m, $op($op(a, b), $op(x, y)));
            }
            canonical(m)
        }
    )*};
}

#[cfg(feature = "sm90")]
fold_nan_f32! {
    fold_minimum_f32: min_nan_f32;
    fold_maximum_f32: max_nan_f32;
}

/// The IEEE 754-2019 `minimum` and `maximum` of a float type; with `fast: min, max`, sm_90
/// builds take those instructions (`min.NaN` / `max.NaN`, one each) and make a NaN result `NAN`.
macro_rules! ieee_min_max {
    ($t:ty, $min:ident, $max:ident $(, fast: $min_nan:ident, $max_nan:ident)?) => {
        #[doc = concat!("IEEE 754-2019 `minimum` of two `", stringify!($t), "`s: NaN if either is NaN (always `",
                        stringify!($t), "::NAN`), and `-0.0 < +0.0`. Commutative and associative, bit for bit.")]
        #[inline(always)]
        pub fn $min(a: $t, b: $t) -> $t {
            $(
                #[cfg(feature = "sm90")]
                return canonical(crate::arch::$min_nan(a, b));
            )?
            #[allow(unreachable_code)]
            if a < b {
                a
            } else if b < a {
                b
            } else if a == b {
                // Equal: the same bits, or two zeros (-0.0 wins).
                <$t>::from_bits(a.to_bits() | b.to_bits())
            } else {
                <$t>::NAN
            }
        }

        #[doc = concat!("IEEE 754-2019 `maximum` of two `", stringify!($t), "`s: NaN if either is NaN (always `",
                        stringify!($t), "::NAN`), and `+0.0 > -0.0`. Commutative and associative, bit for bit.")]
        #[inline(always)]
        pub fn $max(a: $t, b: $t) -> $t {
            $(
                #[cfg(feature = "sm90")]
                return canonical(crate::arch::$max_nan(a, b));
            )?
            #[allow(unreachable_code)]
            if a > b {
                a
            } else if b > a {
                b
            } else if a == b {
                // Equal: the same bits, or two zeros (+0.0 wins).
                <$t>::from_bits(a.to_bits() & b.to_bits())
            } else {
                <$t>::NAN
            }
        }
    };
}
ieee_min_max!(f32, minimum_f32, maximum_f32, fast: min_nan_f32, max_nan_f32);
ieee_min_max!(f64, minimum_f64, maximum_f64);

/// `x`, or `f32::NAN` for every NaN (what the `min.NaN` / `max.NaN` instructions give is another).
#[cfg(feature = "sm90")]
#[inline(always)]
fn canonical(x: f32) -> f32 {
    if x.is_nan() {
        f32::NAN
    } else {
        x
    }
}

/// Applies a 32-bit shuffle to every word of `v`.
#[inline(always)]
fn shuffle<T: ScanElement>(v: T, shfl: impl Fn(u32) -> u32) -> T {
    let b = v.to_bits();
    if T::WIDE {
        T::from_bits(shfl(b as u32) as u64 | (shfl((b >> 32) as u32) as u64) << 32)
    } else {
        T::from_bits(shfl(b as u32) as u64)
    }
}

/// `__shfl_up_sync` of any [`ScanElement`]: lane `l` gets lane `l - delta`'s value (its own
/// below `delta`).
#[inline(always)]
pub fn shfl_up_element<T: ScanElement>(v: T, delta: u32) -> T {
    shuffle(v, |w| shfl_up(w, delta))
}

/// `__shfl_down_sync` of any [`ScanElement`]: lane `l` gets lane `l + delta`'s value (its own
/// from `32 - delta` on).
#[inline(always)]
pub fn shfl_down_element<T: ScanElement>(v: T, delta: u32) -> T {
    shuffle(v, |w| shfl_down(w, delta))
}

/// `__shfl_sync` of any [`ScanElement`]: lane `lane`'s value.
#[inline(always)]
pub fn shfl_idx_element<T: ScanElement>(v: T, lane: u32) -> T {
    shuffle(v, |w| shfl_idx(w, lane))
}

/// Inclusive scan of `v` over the lanes of the warp under `O` (Kogge-Stone, five rounds of
/// shuffles; lane `l` gets `v₀ ⊕ … ⊕ v_l`). Every lane of the warp calls this.
#[inline(always)]
pub fn warp_inclusive_scan<O: ScanOp>(v: O::T) -> O::T {
    let lane = lane_id();
    let mut s = v;
    let mut d = 1;
    while d < WARP_SIZE {
        let earlier = shfl_up_element(s, d);
        if lane >= d {
            s = O::combine(earlier, s);
        }
        d <<= 1;
    }
    s
}

/// `v₃₁ ⊕ v₃₀ ⊕ … ⊕ v₀` over the lanes of the warp — lane 31's value *first* — to every lane:
/// for values laid out newest-first, as a look-back's window is (five rounds of shuffles and a
/// broadcast). Every lane of the warp calls this.
#[inline(always)]
pub fn warp_reduce_high_first<O: ScanOp>(v: O::T) -> O::T {
    let mut s = v;
    let mut d = 1;
    while d < WARP_SIZE {
        // Lane `l` combines lanes `l .. l + 2d` (only lane 0's result is used, and every lane
        // it reads holds a complete range).
        s = O::combine(shfl_down_element(s, d), s);
        d <<= 1;
    }
    shfl_idx_element(s, 0)
}
