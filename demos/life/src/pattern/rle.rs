//! The RLE reader. Two passes over the text: the first checks everything (syntax, the header
//! against the [`Limits`], every run against the header's bounding box) and allocates nothing;
//! only then is the board allocated, and the second pass writes the live runs into it a word
//! at a time. So a bad file is refused in time linear in its length, and a good one costs its
//! length plus the words its live runs cover.

use super::text::{at, check_length, clean_name, err, is_blank, is_header, lines, strip_bom};
use super::{Pattern, PatternError};
use crate::{BitGrid, Limits, RuleSpec};

/// What the first pass found before the runs.
struct Header<'a> {
    /// Line of the header.
    line: usize,
    width: usize,
    height: usize,
    /// The first `#N` line's text, uncleaned.
    name: Option<(usize, &'a str)>,
    /// The header's rule, else the last `#r` line's.
    rule: Option<RuleSpec>,
}

/// Reads an RLE pattern within `limits` (see the [module docs](super) for what is accepted).
///
/// ```
/// use warpwork_life::{pattern, Limits};
/// let p = pattern::parse_rle("#N Glider\nx = 3, y = 3\nbo$2bo$3o!", &Limits::DEFAULT)?;
/// assert_eq!((p.grid.width(), p.grid.population(), p.name.as_deref()), (3, 5, Some("Glider")));
/// let e = pattern::parse_rle("x = 1048576, y = 1048576\n!", &Limits::DEFAULT).unwrap_err();
/// assert!(matches!(e.kind, pattern::PatternErrorKind::Limit { .. }));
/// # Ok::<(), pattern::PatternError>(())
/// ```
pub fn parse_rle(text: &str, limits: &Limits) -> Result<Pattern, PatternError> {
    check_length(text, limits)?;
    let text = strip_bom(text);
    let header = read(text, limits, &mut |_, _, _| {})?;
    let mut grid = BitGrid::with_limits(header.width, header.height, limits).map_err(|e| at(header.line, 1, e))?;
    read(text, limits, &mut |x, y, n| grid.fill_run(x, y, n))?;
    let name = match header.name {
        Some((line, raw)) => Some(clean_name(raw, line)?),
        None => None,
    };
    Ok(Pattern { grid, name, rule: header.rule })
}

/// One pass over the text: checks it, and calls `live(x, y, n)` for each run of `n` live cells
/// from `(x, y)` (always inside the header's box).
fn read<'a>(
    text: &'a str,
    limits: &Limits,
    live: &mut dyn FnMut(usize, usize, usize),
) -> Result<Header<'a>, PatternError> {
    let mut lines = lines(text);
    let mut name = None;
    let mut size = None;
    let mut rule = None;
    let mut last = (1, 1);
    for (ln, line) in lines.by_ref() {
        last = (ln, line.chars().count() + 1);
        let t = line.trim_start_matches(is_blank);
        let col = line.len() - t.len() + 1;
        if t.is_empty() {
            continue;
        }
        if let Some(c) = t.strip_prefix('#') {
            match c.chars().next() {
                Some('N') if name.is_none() => name = Some((ln, &c[1..])),
                Some('r') => rule = Some(read_rule(c[1..].trim_matches(is_blank), ln, col + 2)?),
                _ => {}
            }
            continue;
        }
        if !is_header(t) {
            return Err(err(ln, col, "expected the header line 'x = .., y = ..' (or '#' comment lines) first"));
        }
        let (w, h, header_rule) = parse_header(line, ln, limits)?;
        size = Some((ln, (w, h)));
        rule = header_rule.or(rule);
        break;
    }
    let Some((header_line, (width, height))) = size else {
        return Err(err(last.0, 1, "no 'x = .., y = ..' header line"));
    };
    // The longest run that fits the box; longer counts are refused as their digits are read.
    let longest = width.max(height) as u64;
    let (mut x, mut y) = (0usize, 0usize);
    let mut count: Option<(u64, usize, usize)> = None; // (value, line, column where it started)
    for (ln, line) in lines {
        last = (ln, line.chars().count() + 1);
        if line.trim_start_matches(is_blank).starts_with('#') {
            continue;
        }
        for (ci, c) in line.chars().enumerate() {
            let col = ci + 1;
            match c {
                '0'..='9' => {
                    let (v, l, s) = count.unwrap_or((0, ln, col));
                    let digit = c as u64 - '0' as u64;
                    match v.checked_mul(10).and_then(|v| v.checked_add(digit)).filter(|&v| v <= longest) {
                        Some(v) => count = Some((v, l, s)),
                        None => return Err(err(l, s, format!("run count longer than the {width}x{height} box"))),
                    }
                }
                'b' | 'o' | '$' => {
                    let n = match count.take() {
                        None => 1,
                        Some((0, l, s)) => return Err(err(l, s, "a run count of 0")),
                        Some((v, _, _)) => v as usize,
                    };
                    if c == '$' {
                        if n > height - y {
                            return Err(err(
                                ln,
                                col,
                                format!("{n} row end(s) at row {y} pass the {height} rows of the header"),
                            ));
                        }
                        y += n;
                        x = 0;
                        continue;
                    }
                    if y >= height || n > width - x {
                        return Err(err(
                            ln,
                            col,
                            format!(
                                "run of {n} cells at ({x}, {y}) passes the {width}x{height} bounding box of the header"
                            ),
                        ));
                    }
                    if c == 'o' {
                        live(x, y, n);
                    }
                    x += n;
                }
                '!' => {
                    if let Some((_, l, s)) = count {
                        return Err(err(l, s, "run count before '!' has no tag"));
                    }
                    return Ok(Header { line: header_line, width, height, name, rule });
                }
                c if is_blank(c) => {
                    if let Some((_, l, s)) = count {
                        return Err(err(l, s, "whitespace between a run count and its tag"));
                    }
                }
                other => {
                    return Err(err(
                        ln,
                        col,
                        format!("unexpected {other:?} (expected a run count, 'b', 'o', '$' or '!')"),
                    ))
                }
            }
        }
    }
    Err(err(last.0, last.1, "missing '!' at the end of the pattern"))
}

/// Reads a rule (from the header or a `#r` line): any Life-like rule in Golly's notations, with
/// at most a torus suffix ([`RuleSpec`]).
fn read_rule(rule: &str, ln: usize, col: usize) -> Result<RuleSpec, PatternError> {
    RuleSpec::parse(rule).map_err(|m| err(ln, col, m))
}

/// Parses `x = W, y = H[, rule = B3/S23]` (keys in any order, each at most once, a trailing
/// comma allowed) and checks the size against `limits`.
fn parse_header(line: &str, ln: usize, limits: &Limits) -> Result<(usize, usize, Option<RuleSpec>), PatternError> {
    let (mut w, mut h, mut rule) = (None, None, None);
    let mut offset = 0;
    let mut parts = line.split(',').enumerate().peekable();
    while let Some((i, part)) = parts.next() {
        let col = offset + part.chars().count() - part.trim_start_matches(is_blank).chars().count() + 1;
        offset += part.chars().count() + 1;
        if parts.peek().is_none() && i > 0 && part.trim_matches(is_blank).is_empty() {
            break; // a trailing comma
        }
        let Some((key, value)) = part.split_once('=') else {
            return Err(err(ln, col, format!("expected 'key = value' in the header, found {:?}", part.trim())));
        };
        let (key, value) = (key.trim_matches(is_blank), value.trim_matches(is_blank));
        let seen = match key {
            "x" | "y" => {
                let v: usize = Some(value)
                    .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(|| err(ln, col, format!("{key} = {value:?} is not a size (0 to {})", usize::MAX)))?;
                let slot = if key == "x" { &mut w } else { &mut h };
                slot.replace(v).is_some()
            }
            "rule" => {
                // A torus suffix has a comma of its own (`B3/S23:T30,20`): the parts after the
                // rule that are not `key = value` belong to it.
                let mut text = value.to_string();
                while let Some((_, next)) =
                    parts.next_if(|(_, p)| !p.contains('=') && !p.trim_matches(is_blank).is_empty())
                {
                    offset += next.chars().count() + 1;
                    text.push(',');
                    text.push_str(next);
                }
                rule.replace(read_rule(text.trim_matches(is_blank), ln, col)?).is_some()
            }
            other => return Err(err(ln, col, format!("unknown header key {other:?} (x, y and rule are known)"))),
        };
        if seen {
            return Err(err(ln, col, format!("header key {key:?} given twice")));
        }
    }
    match (w, h) {
        (Some(w), Some(h)) => {
            limits.check_board(w, h).map_err(|e| at(ln, 1, e))?;
            Ok((w, h, rule))
        }
        _ => Err(err(ln, 1, "the header needs both 'x = ' and 'y = '")),
    }
}
