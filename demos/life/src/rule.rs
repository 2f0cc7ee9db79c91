//! [`Rule`]: a Life-like rule (outer-totalistic, Moore neighbourhood, two states) as birth and
//! survival masks, read and written in Golly's notations, and [`RuleSpec`], a rule with
//! Golly's bounded-grid suffix (`B3/S23:T64,48`).
//!
//! Notations read (case does not matter): `B3/S23` (Golly's canonical form, also `B3S23`,
//! `b3s23`, `S23/B3`) and the older survival-first `23/3` (survival digits, `/`, birth digits).
//! A rule is written canonically, `B3/S23`. Digits are neighbour counts 0 to 8; anything else
//! (isotropic letters such as `B2a`, hexagonal `H` or von Neumann `V` suffixes, named rules,
//! more than two states) is refused with an error that says what was found.
//!
//! **B0 rules** (a dead cell with no live neighbours is born: `B0`, `B013/S0123`, ...) run
//! exactly as written, on the torus: every cell's neighbourhood is finite there, so the board
//! simply turns alive where the rule says so. Golly does the same on a bounded torus; on its
//! unbounded plane it emulates B0 by running complemented rules on alternate generations, which
//! warpwork does not need because it has no unbounded plane.
//!
//! **Bounded grids.** Of Golly's suffixes only a plain torus, `:T<width>,<height>` (both at
//! least 1), is accepted: it is warpwork's own topology and gives the board size. The plane
//! (`:P`), Klein bottle (`:K`), cross-surface (`:C`), sphere (`:S`), a torus with shifted edges
//! (`:T30+5,20`) and an infinite tube (`:T0,20`) are refused, naming the topology.

use crate::{Error, Result};

/// A Life-like rule: which neighbour counts (0 to 8) give birth to a dead cell and which keep a
/// live one alive. Conway's Life is [`Rule::CONWAY`], B3/S23.
///
/// ```
/// use warpwork_life::Rule;
/// let highlife: Rule = "b36s23".parse()?;
/// assert_eq!(highlife.to_string(), "B36/S23");
/// assert_eq!("23/36".parse::<Rule>()?, highlife); // survival first, Golly's older notation
/// assert!(highlife.born(6) && !highlife.survives(6));
/// assert!("B2a/S".parse::<Rule>().is_err()); // isotropic rules are not outer-totalistic
/// # Ok::<(), warpwork::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    birth: u16,
    survival: u16,
}

impl Default for Rule {
    fn default() -> Self {
        Rule::CONWAY
    }
}

impl Rule {
    /// Conway's Life, B3/S23.
    pub const CONWAY: Rule = Rule { birth: 1 << 3, survival: 1 << 2 | 1 << 3 };

    /// The rule with these masks: bit `n` of `birth` (of `survival`) set when a dead (live) cell
    /// with `n` live neighbours is alive next. `None` when a mask has bits above bit 8.
    ///
    /// ```
    /// use warpwork_life::Rule;
    /// assert_eq!(Rule::from_masks(1 << 3, 1 << 2 | 1 << 3), Some(Rule::CONWAY));
    /// assert_eq!(Rule::from_masks(1 << 9, 0), None);
    /// ```
    pub const fn from_masks(birth: u16, survival: u16) -> Option<Rule> {
        if birth >> 9 != 0 || survival >> 9 != 0 {
            return None;
        }
        Some(Rule { birth, survival })
    }

    /// The birth mask (bit `n`: born with `n` neighbours).
    pub const fn birth(self) -> u16 {
        self.birth
    }

    /// The survival mask (bit `n`: survives with `n` neighbours).
    pub const fn survival(self) -> u16 {
        self.survival
    }

    /// Whether a dead cell with `neighbours` live neighbours is born.
    pub const fn born(self, neighbours: u32) -> bool {
        neighbours <= 8 && self.birth >> neighbours & 1 != 0
    }

    /// Whether a live cell with `neighbours` live neighbours survives.
    pub const fn survives(self, neighbours: u32) -> bool {
        neighbours <= 8 && self.survival >> neighbours & 1 != 0
    }

    /// The rule as the kernels take it (`abi::pack_rule`: birth in bits 0–8, survival in
    /// bits 16–24).
    ///
    /// ```
    /// use warpwork_life::{abi, Rule};
    /// assert_eq!(Rule::CONWAY.packed(), abi::B3_S23);
    /// ```
    pub const fn packed(self) -> u32 {
        crate::abi::pack_rule(self.birth, self.survival)
    }

    /// Reads a rule without a bounded-grid suffix (see the [module docs](self) for the
    /// notations); [`RuleSpec::parse`] takes one with a suffix.
    fn parse_rule(text: &str) -> std::result::Result<Rule, String> {
        let t = text.trim();
        let upper = t.to_ascii_uppercase();
        let digits = |s: &str| -> std::result::Result<u16, String> {
            let mut mask = 0u16;
            for c in s.chars() {
                match c.to_digit(10) {
                    Some(d) if d <= 8 => mask |= 1 << d,
                    _ => {
                        return Err(format!(
                            "rule {t:?}: {c:?} is not a neighbour count 0-8 (only outer-totalistic Moore rules such as B3/S23 run here)"
                        ))
                    }
                }
            }
            Ok(mask)
        };
        let (b, s) = if let Some(rest) = upper.strip_prefix('B') {
            // B<digits>[/]S<digits>
            let (b, s) = rest.split_once('S').ok_or_else(|| format!("rule {t:?}: expected B<digits>/S<digits>"))?;
            (b.strip_suffix('/').unwrap_or(b), s)
        } else if let Some(rest) = upper.strip_prefix('S') {
            // S<digits>[/]B<digits>
            let (s, b) = rest.split_once('B').ok_or_else(|| format!("rule {t:?}: expected S<digits>/B<digits>"))?;
            (b, s.strip_suffix('/').unwrap_or(s))
        } else if let Some((s, b)) = upper.split_once('/') {
            (b, s) // survival first
        } else {
            return Err(format!("rule {t:?}: expected B<digits>/S<digits> (e.g. B3/S23) or <survival>/<birth> (23/3)"));
        };
        Ok(Rule { birth: digits(b)?, survival: digits(s)? })
    }
}

impl std::str::FromStr for Rule {
    type Err = Error;
    fn from_str(s: &str) -> Result<Rule> {
        let spec: RuleSpec = s.parse()?;
        match spec.torus {
            None => Ok(spec.rule),
            Some(_) => Err(Error::InvalidInput(format!("rule {s:?}: a bounded grid is not part of a rule here"))),
        }
    }
}

impl std::fmt::Display for Rule {
    /// Golly's canonical form, `B3/S23`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digits =
            |m: u16| (0..9).filter(|n| m >> n & 1 != 0).map(|n| char::from(b'0' + n as u8)).collect::<String>();
        write!(f, "B{}/S{}", digits(self.birth), digits(self.survival))
    }
}

/// A rule and, where its text has Golly's torus suffix `:T<width>,<height>`, the torus size.
///
/// ```
/// use warpwork_life::{Rule, RuleSpec};
/// let spec: RuleSpec = "B3/S23:T30,20".parse()?;
/// assert_eq!((spec.rule, spec.torus), (Rule::CONWAY, Some((30, 20))));
/// assert_eq!(spec.to_string(), "B3/S23:T30,20");
/// let e = "B3/S23:K30*,20".parse::<RuleSpec>().unwrap_err();
/// assert!(e.to_string().contains("Klein bottle"));
/// # Ok::<(), warpwork::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RuleSpec {
    /// The rule.
    pub rule: Rule,
    /// The torus `(width, height)` of a `:T<w>,<h>` suffix.
    pub torus: Option<(usize, usize)>,
}

impl RuleSpec {
    /// Reads a rule with an optional bounded-grid suffix; the error message says what was wrong.
    pub fn parse(text: &str) -> std::result::Result<RuleSpec, String> {
        let (rule, suffix) = match text.split_once(':') {
            Some((r, s)) => (r, Some(s.trim())),
            None => (text, None),
        };
        let rule = Rule::parse_rule(rule)?;
        let torus = match suffix {
            None => None,
            Some(s) => Some(torus(s).map_err(|m| format!("rule {:?}: {m}", text.trim()))?),
        };
        Ok(RuleSpec { rule, torus })
    }
}

/// The size of a `T<w>,<h>` suffix (after the colon), or why it is refused.
fn torus(suffix: &str) -> std::result::Result<(usize, usize), String> {
    let mut chars = suffix.chars();
    let kind = chars.next().map(|c| c.to_ascii_uppercase());
    let rest = chars.as_str();
    let name = match kind {
        Some('T') => None,
        Some('P') => Some("a bounded plane (:P, dead cells beyond the edges)"),
        Some('K') => Some("a Klein bottle (:K)"),
        Some('C') => Some("a cross-surface (:C)"),
        Some('S') => Some("a sphere (:S)"),
        _ => Some("an unknown topology"),
    };
    if let Some(name) = name {
        return Err(format!("{name} is not supported: warpwork runs a torus only (:T<width>,<height>)"));
    }
    let (w, h) = rest.split_once(',').ok_or("a torus suffix is :T<width>,<height>")?;
    let size = |v: &str| -> std::result::Result<usize, String> {
        let v = v.trim();
        if v.contains(['+', '-']) {
            return Err("a torus with shifted edges (:T<w>+<shift>,<h>) is not supported: a plain torus only".into());
        }
        match v.parse::<usize>() {
            Ok(0) => Err("an infinite tube (a torus side of 0) is not supported: both sides must be at least 1".into()),
            Ok(n) => Ok(n),
            Err(_) => Err(format!("{v:?} is not a torus side")),
        }
    };
    Ok((size(w)?, size(h)?))
}

impl std::str::FromStr for RuleSpec {
    type Err = Error;
    fn from_str(s: &str) -> Result<RuleSpec> {
        RuleSpec::parse(s).map_err(Error::InvalidInput)
    }
}

impl std::fmt::Display for RuleSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.rule)?;
        if let Some((w, h)) = self.torus {
            write!(f, ":T{w},{h}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Rule {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn golly_notations_read_the_same_rule() {
        for s in ["B3/S23", "b3s23", "B3S23", "S23/B3", "s23b3", "23/3", " B3/S23 "] {
            assert_eq!(r(s), Rule::CONWAY, "{s}");
        }
        assert_eq!(r("B2/S").to_string(), "B2/S");
        assert_eq!(r("/2"), r("B2/S"));
        assert_eq!(r("B3678/S34678").to_string(), "B3678/S34678");
        assert_eq!(r("012345678/3").to_string(), "B3/S012345678");
        assert_eq!(r("B0/S8"), Rule::from_masks(1, 1 << 8).unwrap());
        assert_eq!(r("B/S"), Rule::from_masks(0, 0).unwrap());
    }

    #[test]
    fn other_rule_families_are_refused_with_what_was_found() {
        for (s, needle) in [
            ("B2a/S", "'A'"),
            ("B39/S23", "'9'"),
            ("B3/S23V", "'V'"),
            ("B3/S23H", "'H'"),
            ("Life", "expected"),
            ("", "expected"),
            ("B3", "expected"),
        ] {
            let e = s.parse::<Rule>().unwrap_err().to_string();
            assert!(e.contains(needle), "{s}: {e}");
        }
    }

    #[test]
    fn torus_suffix_sets_the_size_and_other_topologies_are_named() {
        let spec: RuleSpec = "b36s23:t7,5".parse().unwrap();
        assert_eq!((spec.rule.to_string(), spec.torus), ("B36/S23".into(), Some((7, 5))));
        assert_eq!("B3/S23".parse::<RuleSpec>().unwrap().torus, None);
        for (s, needle) in [
            ("B3/S23:P30,20", "plane"),
            ("B3/S23:K30*,20", "Klein bottle"),
            ("B3/S23:C30,20", "cross-surface"),
            ("B3/S23:S30", "sphere"),
            ("B3/S23:T30+5,20", "shifted"),
            ("B3/S23:T30,20-2", "shifted"),
            ("B3/S23:T0,20", "tube"),
            ("B3/S23:T30", ":T<width>,<height>"),
            ("B3/S23:X3,3", "unknown topology"),
        ] {
            let e = s.parse::<RuleSpec>().unwrap_err().to_string();
            assert!(e.contains(needle), "{s}: {e}");
        }
        assert!("B3/S23:T5,5".parse::<Rule>().is_err(), "a bare rule takes no suffix");
    }
}
