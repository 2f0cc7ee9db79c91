//! Exact `f32` sums: a fixed-point accumulator wide enough for every finite `f32`, so that adding
//! values to it gives the same result in any order, and the one rounding to `f32` at the end.
//!
//! Every finite `f32` is an integer multiple of 2^−149 (the least subnormal) below 2^128, so a
//! sum of them is an integer in units of 2^−149 of at most 277 bits plus a carry for each
//! addition: [`F32_DIGITS`] signed 64-bit digits `d[i]` of weight 2^(32·i − 149) hold it
//! exactly, the upper 32 bits of each digit absorbing the carries of up to 2^31 additions
//! before they are propagated. A value's contribution to digit `i` ([`f32_digit`]) needs
//! nothing but the value and `i`, so the device reduce keeps digit `i` in lane `i` of a warp
//! and each lane adds its own; values that are not finite, and whether any value is other than
//! −0.0, are kept as [`flags`] beside the digits. [`f32_round`] turns digits and flags into
//! the correctly rounded (to nearest, ties to even) `f32` of the exact sum, with IEEE 754's
//! answers for infinities, NaNs and the sign of a zero sum.
//!
//! The device reduce sums each warp's share of a unit in a fixed order and adds those partial
//! sums here ([`ExactF32`] is the same accumulator in one place, for the tests' CPU model of the
//! device sum), so the sum's bits do not depend on which block took which unit.

/// Digits of the `f32` accumulator: 9 · 32 = 288 bits from 2^−149, past the 277 of `f32::MAX`
/// (a sum past that is rounded to infinity; the digits' upper halves hold the carries).
pub const F32_DIGITS: usize = 9;

/// What is not in the digits: the bits of [`flags`].
pub mod flags {
    /// A NaN was added.
    pub const NAN: u32 = 1;
    /// +∞ was added.
    pub const POS_INF: u32 = 2;
    /// −∞ was added.
    pub const NEG_INF: u32 = 4;
    /// A value other than −0.0 was added: a zero sum is then +0.0 (IEEE 754's `x + −x`), else
    /// −0.0 (the sum of no values, or of −0.0s only).
    pub const NOT_NEG_ZERO: u32 = 8;
}

/// The flags that adding the `f32` of bits `bits` sets.
#[inline(always)]
pub const fn f32_flags(bits: u32) -> u32 {
    let not_neg_zero = if bits != 0x8000_0000 { flags::NOT_NEG_ZERO } else { 0 };
    if bits & 0x7f80_0000 != 0x7f80_0000 {
        not_neg_zero
    } else if bits & 0x007f_ffff != 0 {
        not_neg_zero | flags::NAN
    } else if bits >> 31 == 0 {
        not_neg_zero | flags::POS_INF
    } else {
        not_neg_zero | flags::NEG_INF
    }
}

/// What the `f32` of bits `bits` adds to digit `i` (weight 2^(32·i − 149)) of the accumulator:
/// its significand shifted to its exponent, cut into 32-bit digits, negated for a negative
/// value; 0 for an infinity or a NaN (they are [`flags`]).
#[inline(always)]
pub const fn f32_digit(bits: u32, i: u32) -> i64 {
    let e = (bits >> 23) & 0xff;
    if e == 0xff {
        return 0;
    }
    // value = m · 2^(p − 149): a subnormal (e = 0) has no hidden bit and the exponent of e = 1.
    let m = (bits & 0x007f_ffff) | if e != 0 { 0x0080_0000 } else { 0 };
    let p = if e != 0 { e - 1 } else { 0 };
    let w = (m as u64) << (p & 31);
    let q = p >> 5;
    let d = if i == q {
        w & 0xffff_ffff
    } else if i == q + 1 {
        w >> 32
    } else {
        0
    };
    if bits >> 31 != 0 {
        -(d as i64)
    } else {
        d as i64
    }
}

/// Moves each digit's carry (its value past 32 bits, signed) into the next: afterwards digits
/// `0 .. F32_DIGITS − 1` are in `[0, 2^32)` and the last holds the sign. The value is unchanged.
#[inline(always)]
pub const fn f32_carry(mut d: [i64; F32_DIGITS]) -> [i64; F32_DIGITS] {
    let mut i = 0;
    while i + 1 < F32_DIGITS {
        let c = d[i] >> 32;
        d[i] -= c << 32;
        d[i + 1] += c;
        i += 1;
    }
    d
}

/// The exact sum that digits `d` and flags `f` hold, rounded to the nearest `f32` (ties to
/// even): NaN if a NaN or both infinities were added, an infinity if one was (or the sum is
/// past `f32::MAX` by half an ulp or more), −0.0 for a zero sum of −0.0s only (or of nothing),
/// else +0.0 for a zero sum. The digits may hold any carries that fit in them.
pub const fn f32_round(d: [i64; F32_DIGITS], f: u32) -> f32 {
    if f & flags::NAN != 0 || f & (flags::POS_INF | flags::NEG_INF) == flags::POS_INF | flags::NEG_INF {
        return f32::NAN;
    }
    if f & flags::POS_INF != 0 {
        return f32::INFINITY;
    }
    if f & flags::NEG_INF != 0 {
        return f32::NEG_INFINITY;
    }
    let mut d = f32_carry(d);
    let negative = d[F32_DIGITS - 1] < 0;
    if negative {
        let mut i = 0;
        while i < F32_DIGITS {
            d[i] = -d[i];
            i += 1;
        }
        d = f32_carry(d);
    }
    let sign = if negative { 0x8000_0000u32 } else { 0 };
    // The magnitude: words 0 .. F32_DIGITS − 1 of 32 bits, the last at most 63 bits.
    let top_word = d[F32_DIGITS - 1] as u64;
    if top_word >> 32 != 0 {
        // At least 2^(32·F32_DIGITS − 149) = 2^139.
        return f32::from_bits(sign | 0x7f80_0000);
    }
    // Every index below is a loop counter (no digit is picked by a computed index, which on the
    // GPU would put the digits in local memory): the highest set bit, then the words around
    // the rounding bit.
    let mut top = 0;
    let mut any = false;
    let mut i = 0;
    while i < F32_DIGITS {
        if d[i] != 0 {
            top = 32 * i as u32 + 31 - (d[i] as u64 as u32).leading_zeros();
            any = true;
        }
        i += 1;
    }
    if !any {
        return if f & flags::NOT_NEG_ZERO != 0 { 0.0 } else { -0.0 };
    }
    if top <= 23 {
        // Below 2^−125: exact, and the bits of an `f32` below it are the integer itself (a
        // subnormal's significand, or 2^23 plus the fraction for exponent field 1).
        return f32::from_bits(sign | d[0] as u32);
    }
    // The 24 bits from `top` down, the rounding bit below them and whether anything is below that.
    let shift = top - 23;
    let r = shift - 1;
    let (word, bit) = (r / 32, r % 32);
    let (mut low, mut high, mut sticky) = (0u64, 0u64, false);
    let mut i = 0;
    while i < F32_DIGITS {
        let w = d[i] as u64;
        if i as u32 == word {
            low = w;
            sticky |= w & ((1u64 << bit) - 1) != 0;
        } else if i as u32 == word + 1 {
            high = w;
        } else if (i as u32) < word {
            sticky |= w != 0;
        }
        i += 1;
    }
    let window = (low | high << 32) >> bit;
    let mut m = (window >> 1) as u32 & 0x00ff_ffff;
    if window & 1 != 0 && (sticky || m & 1 != 0) {
        m += 1;
    }
    // `m` in [2^23, 2^24]: its hidden bit carries into the exponent field, which is `shift + 1`.
    let bits = (shift << 23) + m;
    if bits >= 0x7f80_0000 {
        f32::from_bits(sign | 0x7f80_0000)
    } else {
        f32::from_bits(sign | bits)
    }
}

/// The exact accumulator in one place: what the device reduce keeps across a warp's lanes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExactF32 {
    /// Digit `i` has weight 2^(32·i − 149).
    pub digits: [i64; F32_DIGITS],
    /// [`flags`].
    pub flags: u32,
}

impl ExactF32 {
    /// Adds `x` exactly.
    pub const fn add(&mut self, x: f32) {
        let bits = x.to_bits();
        let mut i = 0;
        while i < F32_DIGITS {
            self.digits[i] += f32_digit(bits, i as u32);
            i += 1;
        }
        self.flags |= f32_flags(bits);
    }

    /// Adds everything `other` holds.
    pub const fn merge(&mut self, other: &ExactF32) {
        let mut i = 0;
        while i < F32_DIGITS {
            self.digits[i] += other.digits[i];
            i += 1;
        }
        self.flags |= other.flags;
    }

    /// The sum, rounded once ([`f32_round`]).
    pub const fn round(&self) -> f32 {
        f32_round(self.digits, self.flags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(xs: &[f32]) -> f32 {
        let mut a = ExactF32::default();
        for &x in xs {
            a.add(x);
        }
        a.round()
    }

    /// A small xorshift: the tests need no dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn one_value_comes_back_as_itself() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let edges = [0u32, 1, 2, 0x007f_ffff, 0x0080_0000, 0x0080_0001, 0x3f80_0000, 0x7f7f_ffff, 0x4b80_0000];
        for bits in edges.into_iter().chain((0..200_000).map(|_| rng.next() as u32)) {
            for b in [bits, bits | 0x8000_0000] {
                let x = f32::from_bits(b);
                let got = exact(&[x]);
                if x.is_nan() {
                    assert!(got.is_nan());
                } else {
                    assert_eq!(got.to_bits(), b, "{x:e}");
                }
            }
        }
    }

    #[test]
    fn sums_round_once_to_nearest_even() {
        let mut rng = Rng(12345);
        for round in 0..20_000 {
            // Values within 2^20 of each other in size: their sum in f64 is exact (24 + 20 +
            // 8 bits), so rounding it to f32 is the one correct rounding.
            let base = (rng.next() % 230) as i32 - 140;
            let len = 1 + (rng.next() % 200) as usize;
            let xs: Vec<f32> = (0..len)
                .map(|_| {
                    let e = base + (rng.next() % 20) as i32;
                    let m = (rng.next() % (1 << 24)) as f64;
                    let s = if rng.next() & 1 == 0 { 1.0 } else { -1.0 };
                    (s * m * 2f64.powi(e - 23)).clamp(-(f32::MAX as f64), f32::MAX as f64) as f32
                })
                .collect();
            let want = xs.iter().map(|&x| x as f64).sum::<f64>() as f32;
            let got = exact(&xs);
            assert_eq!(got.to_bits(), want.to_bits(), "round {round}: {got:e} vs {want:e}");
            // Any order: the same bits.
            let mut rev = xs.clone();
            rev.reverse();
            assert_eq!(exact(&rev).to_bits(), got.to_bits());
        }
    }

    #[test]
    fn wide_ranges_are_exact() {
        // 1 + 2^−149 − 1 is 2^−149, which no float order gets; 2^100 + 1 − 2^100 is 1.
        let tiny = f32::from_bits(1);
        assert_eq!(exact(&[1.0, tiny, -1.0]), tiny);
        assert_eq!(exact(&[2f32.powi(100), 1.0, -(2f32.powi(100))]), 1.0);
        assert_eq!(exact(&[f32::MAX, f32::MAX, -f32::MAX]), f32::MAX);
        // Ties to even: 2^24 + 1 is halfway between 2^24 and 2^24 + 2.
        assert_eq!(exact(&[16_777_216.0, 1.0]), 16_777_216.0);
        assert_eq!(exact(&[16_777_218.0, 1.0]), 16_777_220.0);
        // Just above the tie rounds up.
        assert_eq!(exact(&[16_777_216.0, 1.0, tiny]), 16_777_218.0);
        // Wide sums against i128 fixed point from 2^−60: values 2^−60 … 2^60.
        let mut rng = Rng(777);
        for _ in 0..5000 {
            let xs: Vec<f32> = (0..1 + rng.next() % 64)
                .map(|_| {
                    let e = (rng.next() % 97) as i32 - 60;
                    let m = (rng.next() % (1 << 24)) as f32;
                    let s = if rng.next() & 1 == 0 { 1.0 } else { -1.0 };
                    s * m * 2f32.powi(e - 23).max(2f32.powi(-60))
                })
                .collect();
            let fixed: i128 = xs.iter().map(|&x| (x as f64 * 2f64.powi(60)) as i128).sum();
            let want = fixed as f32 * 2f32.powi(-60);
            assert_eq!(exact(&xs).to_bits(), want.to_bits(), "{xs:?}");
        }
    }

    #[test]
    fn overflow_infinities_nans_and_zeros() {
        assert_eq!(exact(&[f32::MAX, f32::MAX]), f32::INFINITY);
        assert_eq!(exact(&[-f32::MAX, -f32::MAX]), f32::NEG_INFINITY);
        // f32::MAX plus less than half an ulp stays.
        assert_eq!(exact(&[f32::MAX, 2f32.powi(102)]), f32::MAX);
        assert_eq!(exact(&[f32::MAX, 2f32.powi(103)]), f32::INFINITY);
        assert_eq!(exact(&[f32::INFINITY, 1.0]), f32::INFINITY);
        assert_eq!(exact(&[f32::NEG_INFINITY, f32::MAX]), f32::NEG_INFINITY);
        assert!(exact(&[f32::INFINITY, f32::NEG_INFINITY]).is_nan());
        assert!(exact(&[1.0, f32::NAN]).is_nan());
        assert_eq!(exact(&[]).to_bits(), (-0.0f32).to_bits());
        assert_eq!(exact(&[-0.0, -0.0]).to_bits(), (-0.0f32).to_bits());
        assert_eq!(exact(&[-0.0, 0.0]).to_bits(), 0);
        assert_eq!(exact(&[1.5, -1.5]).to_bits(), 0);
        assert_eq!(exact(&[-1.5, 1.5, -0.0]).to_bits(), 0);
        assert_eq!(exact(&[-1.5, -2.5]), -4.0);
    }

    #[test]
    fn digits_take_many_carries() {
        // 2^31 additions of a value filling a whole digit would be the limit; a million here,
        // merged in two halves, sum exactly.
        let x = f32::from_bits(0x7f7f_ffff);
        let (mut a, mut b) = (ExactF32::default(), ExactF32::default());
        for _ in 0..500_000 {
            a.add(x);
            a.add(-x);
            b.add(x);
        }
        a.merge(&b);
        let mut c = ExactF32::default();
        c.add(x);
        // 500 000 · MAX overflows f32; the digits still hold it exactly.
        assert_eq!(a.round(), f32::INFINITY);
        for _ in 0..499_999 {
            a.add(-x);
        }
        assert_eq!(a.round(), c.round());
    }
}
