//! What the Life kernels and the `warpwork-life` host crate share, defined once: the packed
//! rule and its evaluation (per cell, and bit-sliced over 32 cells: B3/S23's specialised form
//! and the `lop3` circuit whose truth tables are any rule, in `abi/lut.rs`), the torus wrap, the launch shapes the host sizes grids
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

#[path = "abi/lut.rs"]
mod lut;
pub use lut::{lop3, rule_lut_step, rule_luts, LUT_MARKER, LUT_PLACEHOLDERS, LUT_TABLES};

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
    /// One bit per cell, 32 per thread, the rule in its `lop3` tables ([`super::rule_luts`],
    /// written in by the host): `(src, dst, words_per_row, height)`.
    pub const BIT32: &str = "life_bit32";
    /// One bit per cell, 64 per lane, one generation per launch, the rule in its `lop3` tables:
    /// `(src, dst, words_per_row, height, strip_rows, out_row0, out_rows)`, writing output rows
    /// `out_row0 .. out_row0 + out_rows ≤ height` of the torus to `dst`'s first `out_rows` rows.
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
    /// The bit kernels whose rule is in their `lop3` tables, with the number of rule steps each
    /// has in its code (one per word and generation of its pipeline: `1` for [`BIT32`], `2·g`
    /// for a `bit64` kernel of `g` generations): each marked `lop3` appears that many times in
    /// the kernel's PTX, which the host checks when it writes a rule's tables in.
    pub const LUT_KERNELS: [(&str, usize); 7] =
        [(BIT32, 1), (BIT64_T1, 2), (BIT64_T2, 4), (BIT64_T4, 8), (BIT64_T8, 16), (BIT64_T12, 24), (BIT64_T8_FLAT, 16)];
    /// The B3/S23-only twins of the bit kernels (the rule in its specialised form, 5 logic
    /// instructions per word where the tables take 6): the same parameters, in the order of
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
        LUT_KERNELS.iter().position(|&(k, _)| k == name).map(|i| B3S23_TWINS[i])
    }
    /// Live cells of a board: `(data, n_bytes, mask, total)`.
    pub const POPULATION: &str = "life_population";

    /// Every exported kernel. The bit kernels with the rule in their tables ([`LUT_KERNELS`])
    /// are in the shipped module with B3/S23's tables; the host launches them from a module of
    /// their own per rule, with that rule's tables written in.
    pub const KERNELS: [&str; 22] = [
        NAIVE_1D,
        NAIVE_2D,
        BYTE,
        SPARSE,
        MULTI,
        TILED,
        BALLOT,
        LUT_KERNELS[0].0,
        LUT_KERNELS[1].0,
        LUT_KERNELS[2].0,
        LUT_KERNELS[3].0,
        LUT_KERNELS[4].0,
        LUT_KERNELS[5].0,
        LUT_KERNELS[6].0,
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
    pub(super) fn neighbourhoods(chunk: u32) -> [[u32; 3]; 3] {
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
