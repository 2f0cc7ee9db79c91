//! Text handling both readers share: the byte-order mark, line ends, names, error positions.

use super::{PatternError, PatternErrorKind};
use crate::Limits;

/// `text` without a leading UTF-8 byte-order mark (editors on Windows write one; it is not
/// part of the pattern).
pub(super) fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{FEFF}').unwrap_or(text)
}

/// The lines of `text`, numbered from 1, split at `\n`, `\r\n` and a lone `\r` (old Mac
/// files), as Golly's reader splits them. A line end at the very end adds no empty line.
pub(super) fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = text;
    let mut number = 0;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        number += 1;
        let (line, next) = match rest.find(['\r', '\n']) {
            Some(i) if rest[i..].starts_with("\r\n") => (&rest[..i], &rest[i + 2..]),
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, ""),
        };
        rest = next;
        Some((number, line))
    })
}

/// Whether a line (without its leading blanks) is an RLE header: `x` or `y`, blanks, `=`.
pub(super) fn is_header(line: &str) -> bool {
    line.strip_prefix(['x', 'y']).is_some_and(|rest| rest.trim_start_matches(is_blank).starts_with('='))
}

/// Whether `c` separates runs within a line (space, tab, form feed; line ends split lines).
pub(super) fn is_blank(c: char) -> bool {
    c.is_ascii_whitespace()
}

/// Whether `c` may reach a terminal or a file unchanged: not a control character (C0, DEL,
/// C1) nor a bidirectional-text override, which could rewrite what a terminal shows.
fn is_printable(c: char) -> bool {
    !c.is_control() && !matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every control character (and bidirectional override) removed, so that a pattern
/// name or a file name can be printed or written into a file without escape sequences or line
/// breaks. The readers return names already cleaned this way; the writers clean the names
/// they are given.
///
/// ```
/// use warpwork_life::pattern::without_controls;
/// assert_eq!(without_controls("gun\u{1b}[2J\n!"), "gun[2J!");
/// ```
pub fn without_controls(text: &str) -> String {
    text.chars().filter(|&c| is_printable(c)).collect()
}

/// A name as the readers return it: control characters removed, then trimmed.
pub(super) fn clean_name(raw: &str, line: usize) -> Result<String, PatternError> {
    let mut name = String::new();
    name.try_reserve_exact(raw.len()).map_err(|_| PatternError {
        line,
        column: 1,
        message: "out of memory for the pattern's name".into(),
        kind: PatternErrorKind::OutOfMemory { bytes: raw.len() as u64 },
    })?;
    name.extend(raw.chars().filter(|&c| is_printable(c)));
    let trimmed = name.trim();
    if trimmed.len() != name.len() {
        name = trimmed.to_string();
    }
    Ok(name)
}

/// A syntax error at `(line, column)`.
pub(super) fn err(line: usize, column: usize, message: impl Into<String>) -> PatternError {
    PatternError { line, column, message: message.into(), kind: PatternErrorKind::Syntax }
}

/// A [`warpwork::Error`] from a [`Limits`] check, placed at `(line, column)`.
pub(super) fn at(line: usize, column: usize, e: crate::Error) -> PatternError {
    let kind = match e {
        crate::Error::LimitExceeded { what, needed, limit } => PatternErrorKind::Limit { what, needed, limit },
        crate::Error::OutOfMemory { bytes, .. } => PatternErrorKind::OutOfMemory { bytes },
        _ => PatternErrorKind::Syntax,
    };
    PatternError { line, column, message: e.to_string(), kind }
}

/// The text-length check every reader starts with.
pub(super) fn check_length(text: &str, limits: &Limits) -> Result<(), PatternError> {
    limits.check_text(text.len() as u64).map_err(|e| at(1, 1, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_at_every_line_end() {
        let got: Vec<(usize, &str)> = lines("a\r\nb\rc\n\nd").collect();
        assert_eq!(got, [(1, "a"), (2, "b"), (3, "c"), (4, ""), (5, "d")]);
        assert_eq!(lines("a\n").count(), 1);
        assert_eq!(lines("").count(), 0);
        assert_eq!(lines("\r\r\n").map(|(_, l)| l).collect::<Vec<_>>(), ["", ""]);
    }

    #[test]
    fn names_lose_controls_and_overrides() {
        assert_eq!(clean_name("  \u{1b}[31mred\u{7}  ", 1).unwrap(), "[31mred");
        assert_eq!(clean_name("a\u{202E}b\u{85}c", 1).unwrap(), "abc");
        assert_eq!(without_controls("tab\there"), "tabhere");
        assert_eq!(strip_bom("\u{FEFF}x"), "x");
        assert_eq!(strip_bom("x\u{FEFF}"), "x\u{FEFF}");
    }
}
