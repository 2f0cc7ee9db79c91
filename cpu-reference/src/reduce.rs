//! Reductions on the CPU with the GPU reductions' contract: sum (wrapping for integers), min
//! and max under [`Op`] with the scans' identities and float rules ([`crate::scan::Element`]),
//! argmin and argmax (ties: the smallest index; floats: the first NaN wins, `-0.0` before
//! `+0.0` for argmin and after it for argmax), and segmented reductions over offsets (each
//! offset clamped to the input's length, an end before its begin taken as the begin).
//!
//! Float sums are computed in chunks (another order than the GPU's): compare them with a
//! tolerance ([`compensated_sum`] gives a near-exact value and `Σ|x|` to scale it), or on
//! inputs whose every partial sum is exact. Min, max, argmin and argmax are exact.

use crate::scan::{Element, Op};
use rayon::prelude::*;
use std::cmp::Ordering;

/// Below this many elements the serial loop beats splitting work across threads.
const PARALLEL_MIN: usize = 1 << 14;

/// `x₀ ⊕ x₁ ⊕ …` under `op`; the identity for an empty input.
pub fn reduce<T: Element>(input: &[T], op: Op) -> T {
    let id = T::identity(op);
    let fold = |c: &[T]| c.iter().fold(id, |a, &x| T::combine(op, a, x));
    if input.len() < PARALLEL_MIN {
        return fold(input);
    }
    let partials: Vec<T> = input.par_chunks(PARALLEL_MIN).map(fold).collect();
    fold(&partials)
}

/// An element argmin and argmax can order.
pub trait ArgElement: Element {
    /// Whether the element is a NaN (never, for integers).
    fn is_nan_value(self) -> bool;
    /// The order of two non-NaN elements (`-0.0 < +0.0` for floats).
    fn order(a: Self, b: Self) -> Ordering;
}

macro_rules! int_arg {
    ($($t:ty),*) => {$(
        impl ArgElement for $t {
            fn is_nan_value(self) -> bool {
                false
            }
            fn order(a: Self, b: Self) -> Ordering {
                a.cmp(&b)
            }
        }
    )*};
}
int_arg!(u32, i32, u64, i64);

macro_rules! float_arg {
    ($($t:ty),*) => {$(
        impl ArgElement for $t {
            fn is_nan_value(self) -> bool {
                self.is_nan()
            }
            fn order(a: Self, b: Self) -> Ordering {
                a.total_cmp(&b)
            }
        }
    )*};
}
float_arg!(f32, f64);

/// Whether `a` (at an earlier index than `b`, or equal) wins over `b`: NaN first, then the
/// smaller (`max`: the greater) value; a tie goes to `a`.
fn keeps<T: ArgElement>(a: T, b: T, max: bool) -> bool {
    match (a.is_nan_value(), b.is_nan_value()) {
        (true, _) => true,
        (false, true) => false,
        _ => {
            let o = T::order(a, b);
            if max {
                o != Ordering::Less
            } else {
                o != Ordering::Greater
            }
        }
    }
}

/// The earlier-index-first winner of two candidates.
fn better<T: ArgElement>(a: Option<(u64, T)>, b: Option<(u64, T)>, max: bool) -> Option<(u64, T)> {
    match (a, b) {
        (Some(x), Some(y)) => {
            let (first, second) = if x.0 <= y.0 { (x, y) } else { (y, x) };
            Some(if keeps(first.1, second.1, max) { first } else { second })
        }
        (x, None) => x,
        (None, y) => y,
    }
}

fn arg<T: ArgElement>(input: &[T], max: bool) -> Option<(u64, T)> {
    let serial = |start: usize, c: &[T]| {
        c.iter().enumerate().fold(None, |best, (i, &x)| better(best, Some(((start + i) as u64, x)), max))
    };
    if input.len() < PARALLEL_MIN {
        return serial(0, input);
    }
    input
        .par_chunks(PARALLEL_MIN)
        .enumerate()
        .map(|(k, c)| serial(k * PARALLEL_MIN, c))
        .collect::<Vec<_>>()
        .into_iter()
        .fold(None, |a, b| better(a, b, max))
}

/// The index and value of the least element (ties: the smallest index; floats: the first NaN,
/// and `-0.0 < +0.0`); `None` for an empty input.
pub fn arg_min<T: ArgElement>(input: &[T]) -> Option<(u64, T)> {
    arg(input, false)
}

/// The index and value of the greatest element (ties: the smallest index; floats: the first
/// NaN, and `+0.0 > -0.0`); `None` for an empty input.
pub fn arg_max<T: ArgElement>(input: &[T]) -> Option<(u64, T)> {
    arg(input, true)
}

/// `out[s]` = the reduction of `input[offsets[s]..offsets[s + 1]]` under `op`, for the
/// `offsets.len() - 1` segments; each offset clamped to `input.len()`, an end before its begin
/// taken as the begin (an empty segment: the identity).
pub fn segmented_reduce<T: Element>(input: &[T], offsets: &[u64], op: Op) -> Vec<T> {
    let n = input.len() as u64;
    offsets
        .par_windows(2)
        .map(|w| {
            let begin = w[0].min(n);
            let end = w[1].clamp(begin, n);
            input[begin as usize..end as usize].iter().fold(T::identity(op), |a, &x| T::combine(op, a, x))
        })
        .collect()
}

/// A near-exact float sum (Neumaier's compensated summation in `f64`) and `Σ|x|`: the GPU's
/// float sums are compared against the first with a tolerance scaled by the second.
pub fn compensated_sum(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (mut sum, mut c, mut abs) = (0.0f64, 0.0f64, 0.0f64);
    for x in values {
        let t = sum + x;
        c += if sum.abs() >= x.abs() { (sum - t) + x } else { (x - t) + sum };
        sum = t;
        abs += x.abs();
    }
    (sum + c, abs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_inputs_give_identities() {
        assert_eq!(reduce::<u32>(&[], Op::Sum), 0);
        assert_eq!(reduce::<i64>(&[], Op::Min), i64::MAX);
        assert_eq!(reduce::<f32>(&[], Op::Max), f32::NEG_INFINITY);
        assert_eq!(arg_min::<f64>(&[]), None);
    }

    #[test]
    fn ties_go_to_the_smallest_index_and_nan_wins() {
        assert_eq!(arg_min(&[3u32, 1, 1, 2]), Some((1, 1)));
        assert_eq!(arg_max(&[3i32, 7, 1, 7]), Some((1, 7)));
        let v = [1.0f32, f32::NAN, -5.0, f32::NAN];
        assert_eq!(arg_min(&v).unwrap().0, 1);
        assert_eq!(arg_max(&v).unwrap().0, 1);
        assert_eq!(arg_min(&[0.0f64, -0.0]).unwrap().0, 1);
        assert_eq!(arg_max(&[-0.0f64, 0.0]).unwrap().0, 1);
        assert_eq!(arg_max(&[0.0f64, -0.0, 0.0]).unwrap().0, 0);
        assert!(reduce(&v, Op::Min).is_nan());
    }

    #[test]
    fn parallel_matches_serial() {
        let v: Vec<i64> = (0..100_000).map(|i| (i * 7919 % 100_003) - 50_000).collect();
        assert_eq!(reduce(&v, Op::Sum), v.iter().sum::<i64>());
        assert_eq!(reduce(&v, Op::Min), *v.iter().min().unwrap());
        let (i, x) = arg_max(&v).unwrap();
        assert_eq!(x, *v.iter().max().unwrap());
        assert_eq!(i as usize, v.iter().position(|&y| y == x).unwrap());
    }

    #[test]
    fn segments_clamp_their_offsets() {
        let v = [1u32, 2, 3, 4, 5];
        assert_eq!(segmented_reduce(&v, &[0, 2, 2, 5], Op::Sum), [3, 0, 12]);
        assert_eq!(segmented_reduce(&v, &[4, 9, 3], Op::Max), [5, 0]);
        assert!(segmented_reduce(&v, &[0], Op::Min).is_empty());
    }

    #[test]
    fn compensated_sums_cancel() {
        let (s, abs) = compensated_sum([1e16, 1.0, -1e16, 1.0]);
        assert_eq!((s, abs), (2.0, 2e16 + 2.0));
    }
}
