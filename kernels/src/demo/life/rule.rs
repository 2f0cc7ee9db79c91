//! The B3/S23 rule, per cell and bit-sliced over 32 cells, and the torus wrap.

/// The B3/S23 rule: a dead cell with 3 live neighbours is born, a live one with 2 or 3 survives.
#[inline(always)]
pub fn rule(alive: bool, neighbours: u32) -> bool {
    neighbours == 3 || (alive && neighbours == 2)
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
