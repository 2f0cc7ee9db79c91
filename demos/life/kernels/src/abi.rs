//! What the Life kernels and the `warpwork-life` host crate share, defined once: the packed
//! rule and its evaluation (per cell, and bit-sliced over 32 cells: B3/S23's specialised form
//! and the masks that run any rule), the torus wrap, the launch shapes the host sizes grids
//! with, and the kernels' names.
//!
//! This file is a module of the kernel crate and, through `#[path]`, of the host crate, so it
//! is plain `core` Rust that builds for both targets; its tests run on the host
//! (`cargo test -p warpwork-life`), so the rule the kernels run is checked on the CPU.
// As in the kernels: small arrays indexed by loop counters with constant trip counts unroll.
#![allow(clippy::needless_range_loop)]

/// Side of the square thread block of the shared-tile kernel (`life_tiled`): a block of
/// `TILE × TILE` threads computes a `TILE × TILE` tile of cells.
pub const TILE: u32 = 16;
/// Cells of a row per thread of the `life_multi` kernel.
pub const MULTI_CELLS: usize = 8;
/// Output words per warp of the `life_bit64_*` kernels: lanes 1..=30. Lanes 0 and 31 hold the
/// halo words, whose outer bits go stale by one cell per generation (fine for up to 64
/// generations per launch).
pub const BIT64_OUT_LANES: u32 = 30;

/// A Life-like rule packed in one `u32` for the kernels: bit `n` is set when a dead cell with
/// `n` live neighbours is born (the `B` digits), bit `16 + n` when a live cell with `n` survives
/// (the `S` digits). Every kernel takes it as a parameter; the host builds it from its `Rule`.
pub const fn pack_rule(birth: u16, survival: u16) -> u32 {
    (birth & 0x1ff) as u32 | ((survival & 0x1ff) as u32) << 16
}

/// Conway's Life, B3/S23, packed ([`pack_rule`]).
pub const B3_S23: u32 = pack_rule(1 << 3, 1 << 2 | 1 << 3);

/// The next state of one cell under the packed `rule` ([`pack_rule`]): one shift and a mask.
#[inline(always)]
pub fn rule(rule: u32, alive: bool, neighbours: u32) -> bool {
    rule >> (neighbours + if alive { 16 } else { 0 }) & 1 != 0
}

/// `(a + b + c)` of three bit planes as (sum bit, carry bit): a full adder, two `LOP3`s.
#[inline(always)]
pub fn add3(a: u32, b: u32, c: u32) -> (u32, u32) {
    (a ^ b ^ c, (a & b) | (c & (a ^ b)))
}

/// The horizontal sum of one row word, `west + centre + east` per bit, as two bit planes (ones,
/// twos). `west`/`east` are the row shifted so that each bit holds its west / east neighbour.
#[inline(always)]
pub fn row_sum(west: u32, centre: u32, east: u32) -> (u32, u32) {
    add3(west, centre, east)
}

/// B3/S23 for 32 cells at once. `above`, `mid`, `below` are the [`row_sum`]s of the three rows
/// (the middle one *including* the cell itself), `alive` the cells. With the 3×3 total `t`
/// (neighbours + self), the next state is `t == 3 || (alive && t == 4)`.
///
/// `t = s + 2·(x + cy + 2y)` where `(s, cy)` adds the ones planes and `(x, y)` the twos planes;
/// `t == 3` is `s & (x ^ cy) & !y` and `t == 4` is `!s & !(x ^ cy) & (x ^ y)`: 9 logic ops,
/// which ptxas packs into `LOP3`s.
#[inline(always)]
pub fn rule_sliced(alive: u32, above: (u32, u32), mid: (u32, u32), below: (u32, u32)) -> u32 {
    let (s, cy) = add3(above.0, mid.0, below.0);
    let (x, y) = add3(above.1, mid.1, below.1);
    let p = x ^ cy;
    let q = x ^ y;
    (s & p & !y) | (!s & alive & !p & q)
}

/// Any Life-like rule for 32 cells at once, from the packed rule's masks ([`pack_rule`]),
/// evaluated on the same bit-sliced total as [`rule_sliced`]: `t = s + 2·u` with `s` the sum bit
/// of the ones planes and `u = cy + x + 2·y ∈ 0..=4`. A dead cell is born when `B` has `t`, a
/// live one survives when `S` has `t − 1` (the total counts the cell itself).
///
/// The five `u == k` masks are one `LOP3` each (functions of `cy, x, y`); then, for each of the
/// four (alive, `s`) cases, the table's bits are added in (`h += [u == k] · bit`, one
/// instruction with the bit as a uniform operand per table entry: 18 entries, as a dead cell
/// never has `t = 9` and a live one never `t = 0`); three muxes pick the case. All 32 cells of
/// a word need the same table, so a uniform operand carries one bit of the rule, and a rule has
/// 18 free bits: a rule given at run time costs at least 9–18 instructions per word more than
/// B3/S23's specialised form ([`rule_sliced`], about 5 in all), which is why the bit kernels
/// keep that form beside this one.
#[derive(Clone, Copy)]
pub struct RuleMasks {
    /// `h[case][k]`: 1 when the cell is next alive for `u = k` in case `case`, else 0
    /// (0: dead, even `t`; 1: dead, odd `t`; 2: alive, even `t`; 3: alive, odd `t`).
    h: [[u32; 5]; 4],
}

impl RuleMasks {
    /// The masks of a packed rule ([`pack_rule`]).
    #[inline(always)]
    pub fn new(rule: u32) -> Self {
        let mut h = [[0; 5]; 4];
        for k in 0..5u32 {
            for s in 0..2u32 {
                let t = 2 * k + s;
                if t <= 8 {
                    h[s as usize][k as usize] = rule >> t & 1; // born with t neighbours
                }
                if t >= 1 {
                    h[2 + s as usize][k as usize] = rule >> (16 + t - 1) & 1; // survives with t − 1
                }
            }
        }
        RuleMasks { h }
    }

    /// The next state of 32 cells; arguments as [`rule_sliced`]. Table entries are ORed in with
    /// plain logic; the kernels use [`RuleMasks::next_with`] and a multiply-add instead.
    #[inline(always)]
    pub fn next(&self, alive: u32, above: (u32, u32), mid: (u32, u32), below: (u32, u32)) -> u32 {
        self.next_with(alive, above, mid, below, |e, bit, acc| acc | (e & 0u32.wrapping_sub(bit)))
    }

    /// [`RuleMasks::next`] with `mad(e, bit, acc)` adding table entry `bit` (0 or 1) for the
    /// cells `e` to `acc`. The `u == k` masks are disjoint, so `acc + e·bit` is `acc | (e & bit)`
    /// with no carry: the kernels pass a multiply-add (`mad.lo.u32`), which runs on the GPU's
    /// multiply-add pipe while the logic pipe, the bottleneck, evaluates the rest.
    #[inline(always)]
    pub fn next_with(
        &self,
        alive: u32,
        above: (u32, u32),
        mid: (u32, u32),
        below: (u32, u32),
        mad: impl Fn(u32, u32, u32) -> u32,
    ) -> u32 {
        let (s, cy) = add3(above.0, mid.0, below.0);
        let (x, y) = add3(above.1, mid.1, below.1);
        let e = [!(cy | x | y), (cy ^ x) & !y, (cy & x & !y) | (!(cy | x) & y), (cy ^ x) & y, cy & x & y];
        let h = &self.h;
        // Table entries that cannot occur are left out: t = 9 (k = 4, odd) when dead, t = 0 alive.
        let mut acc = [mad(e[0], h[0][0], 0), mad(e[0], h[1][0], 0), mad(e[1], h[2][1], 0), mad(e[0], h[3][0], 0)];
        for k in 1..5 {
            acc[0] = mad(e[k], h[0][k], acc[0]);
            acc[3] = mad(e[k], h[3][k], acc[3]);
        }
        for k in 1..4 {
            acc[1] = mad(e[k], h[1][k], acc[1]);
        }
        for k in 2..5 {
            acc[2] = mad(e[k], h[2][k], acc[2]);
        }
        let dead = (s & acc[1]) | (!s & acc[0]);
        let live = (s & acc[3]) | (!s & acc[2]);
        (alive & live) | (!alive & dead)
    }
}

/// `(x + d) mod n` for `d` in `-1..=1` and `x < n`, without a division.
#[inline(always)]
pub fn wrap(x: u32, d: i32, n: u32) -> u32 {
    if d < 0 {
        if x == 0 {
            n - 1
        } else {
            x - 1
        }
    } else if d > 0 {
        if x + 1 == n {
            0
        } else {
            x + 1
        }
    } else {
        x
    }
}

/// The exported kernels' names: `kernels.rs` spells each symbol once more (an exported symbol
/// cannot be named by a constant), and the host crate's tests check that the shipped PTX
/// exports exactly `KERNELS`.
pub mod kernels {
    /// Brute force, 1D launch: `(src, dst, width, height, rule)`, `u32` cells.
    pub const NAIVE_1D: &str = "life_naive_1d";
    /// Brute force, 2D launch: `(src, dst, width, height, rule)`, `u32` cells.
    pub const NAIVE_2D: &str = "life_naive_2d";
    /// One byte per cell: `(src, dst, width, height, rule)`.
    pub const BYTE: &str = "life_byte";
    /// Sparse write-skip: `(src, dst, width, height, rule)`, `u32` cells in states 0..=3.
    pub const SPARSE: &str = "life_sparse";
    /// Several cells per thread: `(src, dst, width, height, rule)`.
    pub const MULTI: &str = "life_multi";
    /// Shared-memory tile with halo: `(src, dst, width, height, rule)`.
    pub const TILED: &str = "life_tiled";
    /// Ballot counting: `(src, dst, width, height, rule)`.
    pub const BALLOT: &str = "life_ballot";
    /// One bit per cell, 32 per thread, any rule: `(src, dst, words_per_row, height, rule)`.
    pub const BIT32: &str = "life_bit32";
    /// One bit per cell, 64 per lane, one generation per launch, any rule:
    /// `(src, dst, words_per_row, height, strip_rows, rule)`.
    pub const BIT64_T1: &str = "life_bit64_t1";
    /// As [`BIT64_T1`], 2 generations per launch.
    pub const BIT64_T2: &str = "life_bit64_t2";
    /// As [`BIT64_T1`], 4 generations per launch.
    pub const BIT64_T4: &str = "life_bit64_t4";
    /// As [`BIT64_T1`], 8 generations per launch.
    pub const BIT64_T8: &str = "life_bit64_t8";
    /// As [`BIT64_T1`], 12 generations per launch.
    pub const BIT64_T12: &str = "life_bit64_t12";
    /// As [`BIT64_T8`] with the pipeline unskewed.
    pub const BIT64_T8_FLAT: &str = "life_bit64_t8_flat";
    /// The B3/S23-only twins of the bit kernels (the rule in its specialised form, as fast as
    /// before rules existed): the same parameters without `rule`, in the order of
    /// [`BIT32`], [`BIT64_T1`], [`BIT64_T2`], [`BIT64_T4`], [`BIT64_T8`], [`BIT64_T12`],
    /// [`BIT64_T8_FLAT`].
    pub const B3S23_TWINS: [&str; 7] = [
        "life_bit32_b3s23",
        "life_bit64_t1_b3s23",
        "life_bit64_t2_b3s23",
        "life_bit64_t4_b3s23",
        "life_bit64_t8_b3s23",
        "life_bit64_t12_b3s23",
        "life_bit64_t8_flat_b3s23",
    ];
    /// The B3/S23 twin of bit kernel `name`, if it is one ([`B3S23_TWINS`]).
    pub fn b3s23_twin(name: &str) -> Option<&'static str> {
        let any = [BIT32, BIT64_T1, BIT64_T2, BIT64_T4, BIT64_T8, BIT64_T12, BIT64_T8_FLAT];
        any.iter().position(|&k| k == name).map(|i| B3S23_TWINS[i])
    }
    /// Live cells of a board: `(data, n_bytes, mask, total)`.
    pub const POPULATION: &str = "life_population";

    /// Every exported kernel.
    pub const KERNELS: [&str; 22] = [
        NAIVE_1D,
        NAIVE_2D,
        BYTE,
        SPARSE,
        MULTI,
        TILED,
        BALLOT,
        BIT32,
        BIT64_T1,
        BIT64_T2,
        BIT64_T4,
        BIT64_T8,
        BIT64_T12,
        BIT64_T8_FLAT,
        B3S23_TWINS[0],
        B3S23_TWINS[1],
        B3S23_TWINS[2],
        B3S23_TWINS[3],
        B3S23_TWINS[4],
        B3S23_TWINS[5],
        B3S23_TWINS[6],
        POPULATION,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_rule_reads_birth_and_survival() {
        for n in 0..=8 {
            assert_eq!(rule(B3_S23, false, n), n == 3, "dead with {n}");
            assert_eq!(rule(B3_S23, true, n), n == 2 || n == 3, "alive with {n}");
        }
        let seeds = pack_rule(1 << 2, 0);
        assert!((0..=8).all(|n| rule(seeds, false, n) == (n == 2) && !rule(seeds, true, n)));
    }

    /// Bit `i` of `rows[r][c]` is cell (c, r) of neighbourhood `32·chunk + i`: every 3×3
    /// neighbourhood, 32 at a time.
    fn neighbourhoods(chunk: u32) -> [[u32; 3]; 3] {
        let mut rows = [[0u32; 3]; 3];
        for i in 0..32u32 {
            let p = 32 * chunk + i;
            for r in 0..3 {
                for c in 0..3 {
                    rows[r][c] |= (p >> (3 * r + c) & 1) << i;
                }
            }
        }
        rows
    }

    /// The masks agree with the cell rule on all 512 neighbourhoods, for B3/S23, the named rules
    /// and 300 pseudo-random ones (B0 and S8 included).
    #[test]
    fn rule_masks_match_the_cell_rule_for_any_rule() {
        let mut rules = vec![B3_S23, pack_rule(0x1ff, 0x1ff), pack_rule(0, 0), pack_rule(1, 0), pack_rule(0, 1 << 8)];
        let mut z = 0x9e37_79b9u32;
        for _ in 0..300 {
            z ^= z << 13;
            z ^= z >> 17;
            z ^= z << 5;
            rules.push(z & 0x01ff_01ff);
        }
        for r in rules {
            let m = RuleMasks::new(r);
            for chunk in 0..512 / 32 {
                let rows = neighbourhoods(chunk);
                let sums = rows.map(|[w, c, e]| row_sum(w, c, e));
                let next = m.next(rows[1][1], sums[0], sums[1], sums[2]);
                // As the kernels run it: a multiply-add, which must never carry.
                let mad = |e: u32, bit: u32, acc: u32| Some(acc + e * bit).filter(|_| (e * bit) & acc == 0);
                let with_mad = m.next_with(rows[1][1], sums[0], sums[1], sums[2], |e, b, acc| {
                    mad(e, b, acc).expect("the u == k masks overlap")
                });
                assert_eq!(with_mad, next, "rule {r:#x}");
                for i in 0..32u32 {
                    let p = 32 * chunk + i;
                    let alive = p >> 4 & 1 != 0;
                    let n = p.count_ones() - alive as u32;
                    assert_eq!(next >> i & 1 != 0, rule(r, alive, n), "rule {r:#x}, neighbourhood {p:#011b}");
                }
            }
        }
    }

    #[test]
    fn full_adder_adds() {
        for bits in 0..8u32 {
            let (a, b, c) = (bits & 1, bits >> 1 & 1, bits >> 2 & 1);
            let (s, carry) = add3(a, b, c);
            assert_eq!(s + 2 * carry, a + b + c);
        }
    }

    /// Every 3×3 neighbourhood, 32 at a time (one per bit): the sliced rule agrees with [`rule`].
    #[test]
    fn sliced_rule_matches_the_cell_rule_on_every_neighbourhood() {
        for chunk in 0..512 / 32 {
            let rows = neighbourhoods(chunk);
            let sums = rows.map(|[w, c, e]| row_sum(w, c, e));
            let next = rule_sliced(rows[1][1], sums[0], sums[1], sums[2]);
            for i in 0..32u32 {
                let p = 32 * chunk + i;
                let alive = p >> 4 & 1 != 0;
                let neighbours = p.count_ones() - alive as u32;
                assert_eq!(next >> i & 1 != 0, rule(B3_S23, alive, neighbours), "neighbourhood {p:#011b}");
            }
        }
    }

    #[test]
    fn wrap_steps_around_the_torus() {
        assert_eq!(wrap(0, -1, 5), 4);
        assert_eq!(wrap(3, -1, 5), 2);
        assert_eq!(wrap(4, 1, 5), 0);
        assert_eq!(wrap(2, 1, 5), 3);
        assert_eq!(wrap(2, 0, 5), 2);
        assert_eq!((wrap(0, -1, 1), wrap(0, 1, 1)), (0, 0), "a board one cell wide");
    }
}
