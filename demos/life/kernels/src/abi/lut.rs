//! The rule step of the bit kernels as a fixed circuit of six `lop3.b32` instructions, five of
//! whose truth tables are the rule ([`rule_luts`]): the kernels are built once, with B3/S23's
//! tables as placeholders, and the host writes a rule's tables into the PTX text before it loads
//! it, so that any rule runs at the speed of compiled-in logic.
//!
//! On the bit-sliced 3×3 total `t = s + 2·u` with `u = cy + x + 2·y ∈ 0..=4` (the two full adders
//! of [`super::rule_sliced`]), the next state is `T[alive][s][u]`: per `u`, a *dead column*
//! `(T[0][0][u], T[0][1][u])` and an *alive column*. Three `lop3`s of `(cy, x, y)` give bits
//! `P`, `Q`, `R` of `u`; `D = lop3(P, Q, s)` is the dead cells' next state, `A = lop3(R, Q, s)`
//! the live cells', and `alive ? A : D` (a fixed multiplexer) the result. This works for a rule
//! when `Q` splits the five values of `u` into two groups in each of which the dead columns take
//! at most two values (which `P` tells apart) and so do the alive columns (`R`); some `Q` does
//! for every one of the 2^18 rules (checked by the tests). B3/S23's specialised form takes five
//! logic instructions where this takes six.

use super::add3;

/// The comment that follows each rule `lop3` in the PTX, with the table's number `k`
/// (`// warpwork-life-lut-<k>`): what the host looks for to write table `k` in.
pub const LUT_MARKER: &str = "// warpwork-life-lut-";

/// Number of rule tables: `P`, `Q`, `R` (of `cy, x, y`), `D` and `A` (see the module docs).
pub const LUT_TABLES: usize = 5;

/// The tables the kernels are built with: B3/S23's ([`rule_luts`]), which the host replaces.
pub const LUT_PLACEHOLDERS: [u8; LUT_TABLES] = [0x14, 0x14, 0x56, 0x80, 0x90];

/// The next state of a dead (`alive = 0`) or live cell for `s` and `u` as a column
/// `T[alive][0][u] | T[alive][1][u] << 1`, and which of its two bits can occur (a dead cell never
/// has `t = 9`, a live one never `t = 0`).
fn column(rule: u32, alive: u32, u: u32) -> (u8, u8) {
    let mut col = 0;
    let mut occurs = 0;
    for s in 0..2 {
        let t = s + 2 * u;
        let (bit, can) = match alive {
            0 => (t <= 8 && rule >> t & 1 != 0, t <= 8),
            _ => (t >= 1 && rule >> (16 + t - 1) & 1 != 0, t >= 1),
        };
        col |= (bit as u8) << s;
        occurs |= (can as u8) << s;
    }
    (col, occurs)
}

/// Splits the columns of the `u` in `group` (a bit mask of `0..=4`) into at most two values:
/// `Some((bit of u, value of bit 0, value of bit 1))`, or `None` when they take three or more.
fn two_values(rule: u32, alive: u32, group: u32) -> Option<(u32, [u8; 2])> {
    for v0 in 0..4u8 {
        for v1 in v0..4u8 {
            let mut bits = 0;
            let fits = (0..5).filter(|u| group >> u & 1 != 0).all(|u| {
                let (col, occurs) = column(rule, alive, u);
                if col & occurs == v0 & occurs {
                    true
                } else if col & occurs == v1 & occurs {
                    bits |= 1 << u;
                    true
                } else {
                    false
                }
            });
            if fits {
                return Some((bits, [v0, v1]));
            }
        }
    }
    None
}

/// The five truth tables of a packed rule ([`super::pack_rule`]), in the order `P, Q, R, D, A`
/// of the module docs: `lop3.b32 d, a, b, c, lut` computes bit `4a + 2b + c` of `lut`. The
/// first `Q` (as a bit mask of the values of `u`, from 0 up) that works is taken, so the tables
/// are a pure function of the rule.
///
/// ```
/// use warpwork_life::abi::{pack_rule, rule_luts, B3_S23, LUT_PLACEHOLDERS};
/// assert_eq!(rule_luts(B3_S23), LUT_PLACEHOLDERS);
/// let high_life = pack_rule(1 << 3 | 1 << 6, 1 << 2 | 1 << 3); // B36/S23
/// assert_ne!(rule_luts(high_life), LUT_PLACEHOLDERS);
/// ```
pub fn rule_luts(rule: u32) -> [u8; LUT_TABLES] {
    for q in 0..32u32 {
        let mut p = 0;
        let mut r = 0;
        let mut d = [[0u8; 2]; 2]; // d[q][p]: the dead column
        let mut a = [[0u8; 2]; 2];
        let mut ok = true;
        for g in 0..2 {
            let group = if g == 1 { q } else { !q & 0x1f };
            match (two_values(rule, 0, group), two_values(rule, 1, group)) {
                (Some((pb, dv)), Some((rb, av))) => {
                    p |= pb;
                    r |= rb;
                    d[g] = dv;
                    a[g] = av;
                }
                _ => ok = false,
            }
        }
        if !ok {
            continue;
        }
        // Tables of (cy, x, y): index 4·cy + 2·x + y, u = cy + x + 2·y.
        let of_u = |bits: u32| {
            (0..8).fold(0u8, |acc, i| acc | ((bits >> ((i >> 2) + (i >> 1 & 1) + 2 * (i & 1)) & 1) as u8) << i)
        };
        // Tables of (P or R, Q, s): index 4·p + 2·q + s.
        let of_columns =
            |cols: [[u8; 2]; 2]| (0..8).fold(0u8, |acc, i| acc | (cols[i >> 1 & 1][i >> 2] >> (i & 1) & 1) << i);
        return [of_u(p), of_u(q), of_u(r), of_columns(d), of_columns(a)];
    }
    unreachable!("every rule has a split (rule_luts_match_the_cell_rule_for_every_rule)")
}

/// `lop3.b32`'s function: bit `4a + 2b + c` of `lut`, for each bit position of `a`, `b`, `c`.
///
/// ```
/// use warpwork_life::abi::lop3;
/// assert_eq!(lop3(0b1100, 0b1010, 0b0110, 0x96), 0b1100 ^ 0b1010 ^ 0b0110); // 0x96: a ^ b ^ c
/// ```
#[inline(always)]
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut d = 0;
    for i in 0..8 {
        if lut >> i & 1 != 0 {
            let pick = |v: u32, bit: u32| if i >> bit & 1 != 0 { v } else { !v };
            d |= pick(a, 2) & pick(b, 1) & pick(c, 0);
        }
    }
    d
}

/// The rule step as the circuit: `g(k, a, b, c)` is the rule's `lop3` number `k` (table `k` of
/// [`rule_luts`]); the multiplexer on `alive` is fixed. Arguments as [`super::rule_sliced`]. The
/// kernels pass inline PTX for `g`, the CPU tests [`lop3`] with the computed tables.
///
/// ```
/// use warpwork_life::abi::{lop3, row_sum, rule_lut_step, rule_luts, B3_S23};
/// // A blinker's middle row (cells 0, 1, 2) between empty rows: the centre has 2 neighbours and
/// // survives, the ends have 1 and die.
/// let row = 0b111u32;
/// let luts = rule_luts(B3_S23);
/// let mid = row_sum(row << 1, row, row >> 1);
/// assert_eq!(rule_lut_step(row, (0, 0), mid, (0, 0), |k, a, b, c| lop3(a, b, c, luts[k])), 0b010);
/// ```
#[inline(always)]
pub fn rule_lut_step(
    alive: u32,
    above: (u32, u32),
    mid: (u32, u32),
    below: (u32, u32),
    g: impl Fn(usize, u32, u32, u32) -> u32,
) -> u32 {
    let (s, cy) = add3(above.0, mid.0, below.0);
    let (x, y) = add3(above.1, mid.1, below.1);
    let (p, q, r) = (g(0, cy, x, y), g(1, cy, x, y), g(2, cy, x, y));
    let (dead, live) = (g(3, p, q, s), g(4, r, q, s));
    (dead & !alive) | (live & alive)
}

#[cfg(test)]
mod tests {
    use super::super::{pack_rule, row_sum, rule, tests::neighbourhoods, B3_S23};
    use super::*;

    /// The circuit with [`rule_luts`]' tables agrees with the cell rule on all 512
    /// neighbourhoods, for every one of the 2^18 rules (B0 and S8 included).
    #[test]
    fn rule_luts_match_the_cell_rule_for_every_rule() {
        // Per chunk: the row sums, and which of its 32 neighbourhoods have each (rule bit).
        let chunks: Vec<_> = (0..512 / 32)
            .map(|chunk| {
                let rows = neighbourhoods(chunk);
                let mut has = [0u32; 32];
                for i in 0..32u32 {
                    let p = 32 * chunk + i;
                    let alive = p >> 4 & 1;
                    has[(16 * alive + p.count_ones() - alive) as usize] |= 1 << i;
                }
                (rows, rows.map(|[w, c, e]| row_sum(w, c, e)), has)
            })
            .collect();
        let want_of = |r: u32, has: &[u32; 32]| (0..32).filter(|&b| r >> b & 1 != 0).fold(0, |acc, b| acc | has[b]);
        for birth in 0..512u16 {
            for survival in 0..512u16 {
                let r = pack_rule(birth, survival);
                let luts = rule_luts(r);
                for (chunk, (rows, sums, has)) in chunks.iter().enumerate() {
                    let next =
                        rule_lut_step(rows[1][1], sums[0], sums[1], sums[2], |k, a, b, c| lop3(a, b, c, luts[k]));
                    assert_eq!(next, want_of(r, has), "rule {r:#x}, neighbourhoods {chunk}");
                }
            }
        }
        assert_eq!(rule_luts(B3_S23), LUT_PLACEHOLDERS, "the placeholders are B3/S23's tables");
        // The cell rule itself, for the record.
        assert!(rule(B3_S23, false, 3) && !rule(B3_S23, true, 4));
    }

    /// `lop3`'s model against PTX's definition: the table of `(0xf0, 0xcc, 0xaa)` is the table.
    #[test]
    fn lop3_reads_its_table() {
        for lut in 0..=255u8 {
            assert_eq!(lop3(0xf0, 0xcc, 0xaa, lut) & 0xff, lut as u32);
        }
        assert_eq!(lop3(0b1100, 0b1010, 0, 0xc0), 0b1000); // a & b
    }
}
