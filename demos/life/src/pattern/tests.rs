//! The readers and writers: round trips, error positions, the lenient cases decided in the
//! module docs, and hostile files (huge headers and counts, truncated or unterminated runs).

use super::*;
use std::time::{Duration, Instant};

const L: Limits = Limits::DEFAULT;

fn kind(r: Result<Pattern, PatternError>) -> PatternErrorKind {
    r.expect_err("the text should be refused").kind
}

fn syntax_at(r: Result<Pattern, PatternError>) -> (usize, usize, String) {
    let e = r.expect_err("the text should be refused");
    assert_eq!(e.kind, PatternErrorKind::Syntax, "{e}");
    (e.line, e.column, e.message)
}

#[test]
fn reads_a_glider_gun_with_header_rule_and_name() {
    let p = parse(&format!("#N Gosper glider gun\n#C a comment\n{}", builtin("glider-gun").unwrap()), &L).unwrap();
    assert_eq!(p.name.as_deref(), Some("Gosper glider gun"));
    assert_eq!((p.grid.width(), p.grid.height()), (36, 9));
    assert_eq!(p.grid.population(), 36);
    assert!(p.grid.get(24, 0) && p.grid.get(0, 4) && !p.grid.get(23, 0));
}

#[test]
fn every_builtin_parses() {
    for n in BUILTIN_NAMES {
        let p = parse(builtin(n).unwrap(), &L).unwrap_or_else(|e| panic!("{n}: {e}"));
        assert!(p.grid.population() > 0, "{n}");
    }
    assert_eq!(parse(builtin("pulsar").unwrap(), &L).unwrap().grid.population(), 48);
    assert!(builtin("nope").is_none());
}

#[test]
fn rle_round_trips() {
    for (w, h, d, seed) in [(1, 1, 0.5, 1), (13, 7, 0.3, 2), (80, 5, 0.5, 3), (200, 40, 0.1, 4), (5, 9, 0.0, 5)] {
        let g = BitGrid::random(w, h, d, seed).unwrap();
        let text = to_rle(&g, Some("random")).unwrap();
        let back = parse(&text, &L).unwrap();
        assert_eq!(back.grid, g, "{text}");
        assert_eq!(back.name.as_deref(), Some("random"));
    }
}

#[test]
fn cells_round_trip() {
    let g = BitGrid::random(17, 6, 0.4, 7).unwrap();
    let back = parse(&to_cells(&g, Some("x")).unwrap(), &L).unwrap();
    assert_eq!(back.grid, g);
    assert_eq!(back.name.as_deref(), Some("x"));
    // Plaintext drops trailing empty rows; short rows are padded.
    let p = parse("!Name: Glider\n.O.\n..O\nOOO\n\n\n", &L).unwrap();
    assert_eq!(p.grid, parse(builtin("glider").unwrap(), &L).unwrap().grid);
    assert_eq!(parse_cells("O\n\n..O\n", &L).unwrap().grid.height(), 3);
    assert_eq!(parse_cells("!only a comment\n", &L).unwrap().grid.width(), 0);
}

#[test]
fn errors_name_line_and_column() {
    let (l, c, _) = syntax_at(parse_rle("x = 3, y = 3\nbo$2bo$3q!", &L));
    assert_eq!((l, c), (2, 9));
    let (l, c, m) = syntax_at(parse_rle("#C hi\nx = 3, y = 3, rule = B36/S23:K3,3\n3o!", &L));
    assert!((l, c) == (2, 15) && m.contains("Klein bottle"), "{m}");
    // The count is refused where it starts, as soon as it is longer than the box.
    let (l, c, m) = syntax_at(parse_rle("x = 2, y = 1\nb3o!", &L));
    assert!((l, c) == (2, 2) && m.contains("2x1"), "{m}");
    let (_, _, m) = syntax_at(parse_rle("x = 2, y = 2\n2o$2o", &L));
    assert!(m.contains("'!'"), "{m}");
    let (l, c, _) = syntax_at(parse_rle("x = a, y = 1\no!", &L));
    assert_eq!((l, c), (1, 1));
    assert_eq!(syntax_at(parse_rle("bo$!", &L)).0, 1);
    let e = parse_cells("!c\n.O.\n.X.\n", &L).unwrap_err();
    assert_eq!((e.line, e.column), (3, 2), "{e}");
    let as_error: crate::Error = e.into();
    assert!(as_error.to_string().contains("line 3, column 2"));
}

#[test]
fn decision_empty_and_blank_files_are_refused() {
    for text in ["", " ", "\n\n", "\u{FEFF}", " \t\r\n \n"] {
        assert_eq!(kind(parse(text, &L)), PatternErrorKind::Syntax, "{text:?}");
        assert_eq!(kind(parse_cells(text, &L)), PatternErrorKind::Syntax, "{text:?}");
        assert_eq!(kind(parse_rle(text, &L)), PatternErrorKind::Syntax, "{text:?}");
    }
    // An intended empty pattern says so.
    assert_eq!(parse("x = 0, y = 0\n!", &L).unwrap().grid.width(), 0);
    assert_eq!(parse("!Name: nothing\n", &L).unwrap().name.as_deref(), Some("nothing"));
}

#[test]
fn decision_a_count_split_by_a_line_break_is_one_count_a_space_is_refused() {
    let p = parse("x = 12, y = 1\n1\n0o!", &L).unwrap();
    assert_eq!(p.grid.population(), 10);
    let p = parse("x = 12, y = 1\n1\r\n#C between\r\n2o!", &L).unwrap();
    assert_eq!(p.grid.population(), 12);
    let (l, c, m) = syntax_at(parse("x = 12, y = 1\n1 0o!", &L));
    assert!((l, c) == (2, 1) && m.contains("whitespace"), "{m}");
    assert!(parse("x = 12, y = 1\n3o 2b 1o!", &L).is_ok(), "blanks between runs are fine");
}

#[test]
fn decision_duplicate_header_keys_are_refused() {
    let (l, c, m) = syntax_at(parse("x = 3, x = 5, y = 1\n3o!", &L));
    assert!((l, c) == (1, 8) && m.contains("twice"), "{m}");
    assert!(parse("x = 3, y = 1, y = 1\n3o!", &L).is_err());
    assert!(parse("x = 3, y = 1, rule = B3/S23, rule = B3/S23\n3o!", &L).is_err());
    let p = parse("y = 1 , x = 3, rule = b3/s23,\n3o!", &L).unwrap();
    assert_eq!((p.grid.width(), p.grid.population()), (3, 3), "any order, a trailing comma");
    assert!(parse("x = +3, y = 1\n3o!", &L).is_err() && parse("x = , y = 1\n!", &L).is_err());
}

#[test]
fn decision_a_byte_order_mark_is_skipped_by_detection_and_readers() {
    let p = parse("\u{FEFF}#N bom\nx = 3, y = 1\n3o!", &L).unwrap();
    assert_eq!((p.name.as_deref(), p.grid.population()), (Some("bom"), 3));
    assert_eq!(parse("\u{FEFF}x = 1, y = 1\no!", &L).unwrap().grid.population(), 1);
    assert_eq!(parse("\u{FEFF}.O\nO.\n", &L).unwrap().grid.population(), 2);
    // Only at the start: elsewhere it is a character like any other.
    assert!(parse("x = 1, y = 1\n\u{FEFF}o!", &L).is_err());
}

#[test]
fn decision_line_ends_counts_rules_and_trailing_text() {
    let crlf = parse("#N a\r\nx = 3, y = 2\r\nobo$\r\n3o!\r\n", &L).unwrap();
    let cr = parse("#N a\rx = 3, y = 2\robo$\r3o!\r", &L).unwrap();
    assert_eq!(crlf, cr);
    assert_eq!(crlf.grid.population(), 5);
    assert!(syntax_at(parse("x = 3, y = 1\n0o!", &L)).2.contains("0"));
    assert!(syntax_at(parse("#r B3/S23V\nx = 3, y = 1\n3o!", &L)).2.contains("'V'"));
    let rule = |t: &str| parse(t, &L).unwrap().rule.map(|r| r.to_string());
    assert_eq!(rule("#r 23/36\nx = 3, y = 1\n3o!").as_deref(), Some("B36/S23"));
    assert_eq!(rule("#r B2/S\nx = 3, y = 1, rule = b3678s34678:T5,7\n3o!").as_deref(), Some("B3678/S34678:T5,7"));
    assert_eq!(rule("x = 3, y = 1\n3o!"), None);
    assert_eq!(parse("x = 3, y = 1\n3o! anything\nat all $$$", &L).unwrap().grid.population(), 3);
    // `$` may end the last row, not move past it.
    assert!(parse("x = 1, y = 2\no$o$!", &L).is_ok());
    assert!(syntax_at(parse("x = 1, y = 2\no$o2$!", &L)).2.contains("rows"));
    assert!(syntax_at(parse("x = 1, y = 1\no$o!", &L)).2.contains("box"));
    assert_eq!(parse("#N first\n#N second\nx = 1, y = 1\no!", &L).unwrap().name.as_deref(), Some("first"));
    let p = parse("#N \u{1b}[2Jgun\u{7}\nx = 1, y = 1\no!", &L).unwrap();
    assert_eq!(p.name.as_deref(), Some("[2Jgun"));
}

#[test]
fn a_26_byte_header_asking_for_2_pow_40_cells_is_refused_before_allocating() {
    let text = "x = 1048576, y = 1048576\n!";
    assert_eq!(text.len(), 26);
    let e = parse(text, &L).unwrap_err();
    assert!(matches!(e.kind, PatternErrorKind::Limit { needed, .. } if needed == 1 << 40), "{e}");
    assert_eq!(e.line, 1);
    assert!(matches!(crate::Error::from(e), crate::Error::LimitExceeded { .. }));
    // Raised limits take it to the byte limit; both raised, it would be read.
    let cells_only = Limits { max_cells: 1 << 40, ..L };
    assert!(matches!(kind(parse(text, &cells_only)), PatternErrorKind::Limit { what, .. } if what.contains("bytes")));
    // A header larger than usize, or whose area overflows, is refused, not wrapped.
    assert!(parse("x = 99999999999999999999999, y = 1\n!", &L).is_err());
    assert!(matches!(kind(parse("x = 4294967296, y = 4294967296\n!", &L)), PatternErrorKind::Limit { .. }));
}

#[test]
fn a_2_mb_cells_file_of_blank_lines_and_one_long_row_is_refused() {
    let mut text = "\n".repeat(1 << 20);
    text.push_str(&"O".repeat(1 << 20));
    let e = parse(&text, &L).unwrap_err();
    assert!(matches!(e.kind, PatternErrorKind::Limit { what, .. } if what.contains("cells")), "{e}");
    assert_eq!(e.line, (1 << 20) + 1);
}

/// The 18 KB file: `x = 1048576, y = 2048`, 2048 rows of `1048576o$`, no `!`. The old reader set
/// 2^31 cells one at a time before finding the missing `!` (5.75 s).
fn wide_rows(end: &str) -> String {
    let mut text = String::from("x = 1048576, y = 2048\n");
    for _ in 0..2048 {
        text.push_str("1048576o$");
    }
    text + end
}

#[test]
fn an_18_kb_rle_file_without_its_end_is_refused_within_a_second() {
    let text = wide_rows("");
    assert!((18_000..19_000).contains(&text.len()));
    let t = Instant::now();
    let (_, _, m) = syntax_at(parse(&text, &L));
    assert!(m.contains("'!'"), "{m}");
    assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
}

#[test]
fn the_18_kb_rle_file_completed_sets_2_pow_31_cells_a_word_at_a_time() {
    let t = Instant::now();
    let p = parse(&wide_rows("!"), &L).unwrap();
    assert_eq!(p.grid.population(), 1 << 31);
    // 2^25 words, not 2^31 cells: well under the old 5.75 s even in a debug build.
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
}

#[test]
fn limits_bound_the_text_and_the_board() {
    let tiny = Limits { max_cells: 16, max_bytes: 64 };
    assert!(parse("x = 4, y = 4\n!", &tiny).is_ok());
    assert!(matches!(kind(parse("x = 4, y = 5\n!", &tiny)), PatternErrorKind::Limit { .. }));
    assert!(matches!(
        kind(parse(&format!("x = 1, y = 1\no!{}", " ".repeat(60)), &tiny)),
        PatternErrorKind::Limit { .. }
    ));
    assert!(matches!(kind(parse_cells("OOOO\nOOOO\nOOOO\nOOOO\nO\n", &tiny)), PatternErrorKind::Limit { .. }));
    // A narrow board's rows are padded to 8 bytes: 9 rows of 1 cell are 72 bytes.
    assert!(
        matches!(kind(parse_cells("O\n".repeat(9).as_str(), &tiny)), PatternErrorKind::Limit { what, .. } if what.contains("bytes"))
    );
}

proptest::proptest! {
    #[test]
    fn rle_round_trips_any_board(w in 0usize..150, h in 0usize..40, d in 0.0f64..1.0, seed: u64) {
        let g = BitGrid::random(w, h, d, seed).unwrap();
        let back = parse_rle(&to_rle(&g, None).unwrap(), &L).unwrap();
        proptest::prop_assert_eq!(back.grid, g);
    }

    #[test]
    fn parsers_never_panic(text in "[xy=, 0-9bo$!#\\n\\r.OA-Z\u{feff}]{0,80}") {
        let _ = parse(&text, &L);
        let _ = parse_cells(&text, &L);
        let _ = parse_rle(&text, &L);
    }
}

#[test]
fn placement_checks_fit() {
    let glider = parse(builtin("glider").unwrap(), &L).unwrap().grid;
    let g = centred(&glider, 9, 9).unwrap();
    assert_eq!(g.population(), 5);
    assert!(g.get(4, 3) && g.get(5, 4));
    assert!(centred(&glider, 2, 9).is_err());
    for (x, y) in [(usize::MAX, 0), (0, usize::MAX), (usize::MAX - 1, usize::MAX - 1), (62, 0)] {
        assert!(matches!(place(&glider, 64, 64, x, y), Err(crate::Error::InvalidInput(_))), "({x}, {y})");
    }
}
