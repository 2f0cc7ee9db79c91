//! Scans on the CPU with the GPU scans' contract: exclusive and inclusive, under sum (wrapping
//! for integers), min and max, for `u32`, `i32`, `u64`, `i64`, `f32` and `f64`.
//!
//! The identities and float rules are warpwork's (see `docs/scan.md`): float sums start from
//! `-0.0`; float min and max are IEEE 754-2019 `minimum` / `maximum` (a NaN operand gives
//! `f32::NAN` / `f64::NAN`, and `-0.0 < +0.0`), so min and max results agree with the GPU bit
//! for bit. Float sums are computed in chunks (a different order from the GPU's): compare them
//! with a tolerance, or on inputs whose every partial sum is exact.

use rayon::prelude::*;

/// Below this many elements the serial loop beats splitting work across threads.
const PARALLEL_MIN: usize = 1 << 14;

/// The operator of a scan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Sum (wrapping for integers).
    Sum,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
}

/// An element type the scans take.
pub trait Element: Copy + Send + Sync + PartialEq + std::fmt::Debug {
    /// The identity of `op`.
    fn identity(op: Op) -> Self;
    /// `a ⊕ b` under `op`, `a` the earlier operand.
    fn combine(op: Op, a: Self, b: Self) -> Self;
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Element for $t {
            fn identity(op: Op) -> Self {
                match op {
                    Op::Sum => 0,
                    Op::Min => <$t>::MAX,
                    Op::Max => <$t>::MIN,
                }
            }
            fn combine(op: Op, a: Self, b: Self) -> Self {
                match op {
                    Op::Sum => a.wrapping_add(b),
                    Op::Min => a.min(b),
                    Op::Max => a.max(b),
                }
            }
        }
    )*};
}
integer!(u32, i32, u64, i64);

macro_rules! float {
    ($($t:ty),*) => {$(
        impl Element for $t {
            fn identity(op: Op) -> Self {
                match op {
                    Op::Sum => -0.0,
                    Op::Min => <$t>::INFINITY,
                    Op::Max => <$t>::NEG_INFINITY,
                }
            }
            fn combine(op: Op, a: Self, b: Self) -> Self {
                match op {
                    Op::Sum => a + b,
                    // IEEE 754-2019 minimum / maximum, as the kernels compute them.
                    Op::Min if a < b => a,
                    Op::Min if b < a => b,
                    Op::Min if a == b => <$t>::from_bits(a.to_bits() | b.to_bits()),
                    Op::Max if a > b => a,
                    Op::Max if b > a => b,
                    Op::Max if a == b => <$t>::from_bits(a.to_bits() & b.to_bits()),
                    Op::Min | Op::Max => <$t>::NAN,
                }
            }
        }
    )*};
}
float!(f32, f64);

/// `output[i] = x₀ ⊕ … ⊕ x_{i-1}` (`output[0]` is the identity).
pub fn exclusive_scan<T: Element>(input: &[T], op: Op) -> Vec<T> {
    scan(input, op, false)
}

/// `output[i] = x₀ ⊕ … ⊕ xᵢ`.
pub fn inclusive_scan<T: Element>(input: &[T], op: Op) -> Vec<T> {
    scan(input, op, true)
}

/// Chunked parallel scan: totals per chunk, a serial scan of the totals, then the chunks in
/// parallel, each from its start.
fn scan<T: Element>(input: &[T], op: Op, inclusive: bool) -> Vec<T> {
    let serial = |xs: &[T], start: T, out: &mut [T]| {
        let mut run = start;
        for (o, &x) in out.iter_mut().zip(xs) {
            let next = T::combine(op, run, x);
            *o = if inclusive { next } else { run };
            run = next;
        }
    };
    let id = T::identity(op);
    let mut out = vec![id; input.len()];
    if input.len() < PARALLEL_MIN {
        serial(input, id, &mut out);
        return out;
    }
    let chunk = PARALLEL_MIN;
    let totals: Vec<T> = input.par_chunks(chunk).map(|c| c.iter().fold(id, |a, &x| T::combine(op, a, x))).collect();
    let mut starts = Vec::with_capacity(totals.len());
    let mut run = id;
    for t in totals {
        starts.push(run);
        run = T::combine(op, run, t);
    }
    out.par_chunks_mut(chunk).zip(input.par_chunks(chunk)).zip(starts).for_each(|((o, i), s)| serial(i, s, o));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn identities_and_first_elements() {
        assert_eq!(exclusive_scan(&[5u32, 1], Op::Min), [u32::MAX, 5]);
        assert_eq!(inclusive_scan(&[-3i64, 7], Op::Max), [-3, 7]);
        let first = exclusive_scan(&[1.0f32], Op::Sum)[0];
        assert!(first == 0.0 && first.is_sign_negative());
        assert_eq!(inclusive_scan(&[-0.0f64], Op::Sum)[0].to_bits(), (-0.0f64).to_bits());
    }

    #[test]
    fn float_min_max_propagate_nan_and_order_zeros() {
        let v = [1.0f32, f32::NAN, -5.0];
        let got = inclusive_scan(&v, Op::Min);
        assert_eq!(got[0], 1.0);
        assert!(got[1].is_nan() && got[2].is_nan());
        assert_eq!(got[2].to_bits(), f32::NAN.to_bits());
        assert!(inclusive_scan(&[0.0f64, -0.0], Op::Min)[1].is_sign_negative());
        assert!(inclusive_scan(&[-0.0f64, 0.0], Op::Max)[1].is_sign_positive());
        assert_eq!(inclusive_scan(&[f64::NEG_INFINITY], Op::Max)[0], f64::NEG_INFINITY);
    }

    #[test]
    fn integer_sums_wrap() {
        assert_eq!(inclusive_scan(&[i32::MAX, 1], Op::Sum), [i32::MAX, i32::MIN]);
        assert_eq!(exclusive_scan(&[u64::MAX, 2, 0], Op::Sum), [0, u64::MAX, 1]);
    }

    proptest! {
        #[test]
        fn parallel_matches_serial(v in prop::collection::vec(any::<i32>(), 0..40_000), op in 0..3usize) {
            let op = [Op::Sum, Op::Min, Op::Max][op];
            let mut run = i32::identity(op);
            let want: Vec<i32> = v.iter().map(|&x| { run = i32::combine(op, run, x); run }).collect();
            prop_assert_eq!(inclusive_scan(&v, op), want);
        }

        #[test]
        fn float_min_max_are_associative(a in any::<f32>(), b in any::<f32>(), c in any::<f32>(), max in any::<bool>()) {
            let op = if max { Op::Max } else { Op::Min };
            let l = f32::combine(op, f32::combine(op, a, b), c);
            let r = f32::combine(op, a, f32::combine(op, b, c));
            prop_assert_eq!(l.to_bits(), r.to_bits());
            prop_assert_eq!(f32::combine(op, a, b).to_bits(), f32::combine(op, b, a).to_bits());
        }
    }
}
