//! Life pattern files as people share them: run-length encoded (`.rle`, the format of Golly and
//! the LifeWiki) and plaintext (`.cells`). Reading and writing; errors name the line and column.
//!
//! RLE: `#` comment lines (`#N name`), a header `x = W, y = H, rule = B3/S23` (the rule is
//! optional; any other rule is rejected), then runs `<count><tag>` with `b` dead, `o` alive, `$`
//! end of row, `!` end of pattern; whitespace and line breaks between runs are ignored.
//!
//! Plaintext: `!` comment lines (`!Name: ...`), then one line per row, `.` dead and `O` alive
//! (`*` is accepted too); short rows are padded with dead cells.

use super::BitGrid;
use std::fmt;

/// A pattern file that could not be read: what was wrong, and where (1-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError {
    /// Line, from 1.
    pub line: usize,
    /// Column (in characters), from 1.
    pub column: usize,
    /// What was wrong.
    pub message: String,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.line, self.column, self.message)
    }
}

impl std::error::Error for PatternError {}

impl From<PatternError> for crate::Error {
    fn from(e: PatternError) -> Self {
        crate::Error::InvalidInput(format!("pattern file: {e}"))
    }
}

/// A pattern read from a file: its cells and, where the file names it, its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// The pattern's bounding box.
    pub grid: BitGrid,
    /// `#N` (RLE) or `!Name:` (plaintext), if present.
    pub name: Option<String>,
}

fn err(line: usize, column: usize, message: impl Into<String>) -> PatternError {
    PatternError { line, column, message: message.into() }
}

/// Largest side accepted from a file header (keeps a hostile header from allocating terabytes).
pub const MAX_SIDE: usize = 1 << 20;

/// Reads RLE or plaintext, recognised by content: a header line `x = ...` means RLE.
pub fn parse(text: &str) -> Result<Pattern, PatternError> {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('!'));
    let rle = text.trim_start().starts_with('#') || first.is_some_and(|l| l.starts_with('x') && l.contains('='));
    if rle {
        parse_rle(text)
    } else {
        parse_cells(text)
    }
}

/// Reads an RLE pattern.
pub fn parse_rle(text: &str) -> Result<Pattern, PatternError> {
    let mut name = None;
    let mut size: Option<(usize, usize)> = None;
    let mut grid = BitGrid::new(0, 0);
    let (mut x, mut y) = (0usize, 0usize);
    let mut count: Option<(usize, usize)> = None; // (value, column where it started)
    let mut done = false;
    let mut last_line = 0;
    for (i, line) in text.lines().enumerate() {
        let ln = i + 1;
        last_line = ln;
        if done {
            break;
        }
        let trimmed = line.trim();
        if size.is_none() {
            if trimmed.is_empty() {
                continue;
            }
            if let Some(rest) = trimmed.strip_prefix('#') {
                if let Some(n) = rest.strip_prefix('N') {
                    name = Some(n.trim().to_string());
                }
                continue;
            }
            let (w, h) = parse_header(line, ln)?;
            grid = BitGrid::new(w, h);
            size = Some((w, h));
            continue;
        }
        if trimmed.starts_with('#') {
            continue;
        }
        let (w, h) = size.unwrap_or((0, 0));
        for (ci, c) in line.chars().enumerate() {
            let col = ci + 1;
            match c {
                '0'..='9' => {
                    let d = c as usize - '0' as usize;
                    let (v, start) = count.unwrap_or((0, col));
                    let v = v.checked_mul(10).and_then(|v| v.checked_add(d)).filter(|&v| v <= 4 * MAX_SIDE);
                    count = Some((v.ok_or_else(|| err(ln, start, "run count too large"))?, start));
                }
                'b' | 'o' => {
                    let n = count.take().map_or(1, |c| c.0);
                    if x + n > w || y >= h {
                        return Err(err(
                            ln,
                            col,
                            format!("run of {n} cells at ({x}, {y}) passes the {w}x{h} bounding box of the header"),
                        ));
                    }
                    if c == 'o' {
                        for k in x..x + n {
                            grid.set(k, y, true);
                        }
                    }
                    x += n;
                }
                '$' => {
                    y += count.take().map_or(1, |c| c.0);
                    x = 0;
                }
                '!' => {
                    if count.is_some() {
                        return Err(err(ln, col, "run count before '!' has no tag"));
                    }
                    done = true;
                    break;
                }
                c if c.is_whitespace() => {
                    if count.is_some() {
                        return Err(err(ln, col, "whitespace between a run count and its tag"));
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
    if size.is_none() {
        return Err(err(last_line.max(1), 1, "no 'x = .., y = ..' header line"));
    }
    if !done {
        return Err(err(
            last_line.max(1),
            text.lines().last().map_or(0, |l| l.chars().count()) + 1,
            "missing '!' at the end of the pattern",
        ));
    }
    Ok(Pattern { grid, name })
}

/// Parses `x = W, y = H[, rule = B3/S23]`.
fn parse_header(line: &str, ln: usize) -> Result<(usize, usize), PatternError> {
    let (mut w, mut h) = (None, None);
    let mut offset = 0;
    for part in line.split(',') {
        let col = offset + part.len() - part.trim_start().len() + 1;
        offset += part.chars().count() + 1;
        let Some((key, value)) = part.split_once('=') else {
            return Err(err(ln, col, format!("expected 'key = value' in the header, found {:?}", part.trim())));
        };
        let (key, value) = (key.trim(), value.trim());
        match key {
            "x" | "y" => {
                let v: usize = value
                    .parse()
                    .ok()
                    .filter(|&v| v <= MAX_SIDE)
                    .ok_or_else(|| err(ln, col, format!("{key} = {value:?} is not a size from 0 to {MAX_SIDE}")))?;
                if key == "x" {
                    w = Some(v)
                } else {
                    h = Some(v)
                }
            }
            "rule" => {
                let r = value.to_ascii_uppercase();
                if r != "B3/S23" && r != "23/3" && r != "S23/B3" {
                    return Err(err(ln, col, format!("rule {value:?} is not Conway's Life (B3/S23)")));
                }
            }
            other => return Err(err(ln, col, format!("unknown header key {other:?}"))),
        }
    }
    match (w, h) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(err(ln, 1, "the header needs both 'x = ' and 'y = '")),
    }
}

/// Reads a plaintext (`.cells`) pattern.
pub fn parse_cells(text: &str) -> Result<Pattern, PatternError> {
    let mut name = None;
    let mut rows: Vec<Vec<bool>> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let ln = i + 1;
        if let Some(c) = line.strip_prefix('!') {
            if let Some(n) = c.strip_prefix("Name:") {
                name = Some(n.trim().to_string());
            }
            continue;
        }
        let mut row = Vec::new();
        for (ci, c) in line.trim_end().chars().enumerate() {
            match c {
                '.' => row.push(false),
                'O' | '*' => row.push(true),
                other => return Err(err(ln, ci + 1, format!("unexpected {other:?} (expected '.' or 'O')"))),
            }
        }
        if row.len() > MAX_SIDE {
            return Err(err(ln, MAX_SIDE + 1, "row too long"));
        }
        rows.push(row);
    }
    while rows.last().is_some_and(|r| r.is_empty()) {
        rows.pop();
    }
    let w = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut grid = BitGrid::new(w, rows.len());
    for (y, r) in rows.iter().enumerate() {
        for (x, &a) in r.iter().enumerate() {
            if a {
                grid.set(x, y, true);
            }
        }
    }
    Ok(Pattern { grid, name })
}

/// Writes `grid` as RLE (rows of at most 70 characters, trailing dead cells and rows omitted).
pub fn to_rle(grid: &BitGrid, name: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(n) = name {
        out.push_str(&format!("#N {n}\n"));
    }
    out.push_str(&format!("x = {}, y = {}, rule = B3/S23\n", grid.width(), grid.height()));
    let mut tokens: Vec<String> = Vec::new();
    let mut pending_rows = 0usize;
    let run = |n: usize, tag: char| if n == 1 { tag.to_string() } else { format!("{n}{tag}") };
    for y in 0..grid.height() {
        // Runs of this row, without the trailing dead run.
        let mut row_tokens = Vec::new();
        let mut x = 0;
        while x < grid.width() {
            let alive = grid.get(x, y);
            let start = x;
            while x < grid.width() && grid.get(x, y) == alive {
                x += 1;
            }
            if alive || x < grid.width() {
                row_tokens.push(run(x - start, if alive { 'o' } else { 'b' }));
            }
        }
        if row_tokens.is_empty() {
            pending_rows += 1;
            continue;
        }
        if !tokens.is_empty() || pending_rows > 0 {
            // End the previous row(s): `n$` moves down n rows.
            let n = pending_rows + usize::from(!tokens.is_empty());
            if n > 0 {
                tokens.push(run(n, '$'));
            }
        }
        pending_rows = 0;
        tokens.extend(row_tokens);
    }
    tokens.push("!".into());
    let mut line = String::new();
    for t in tokens {
        if line.len() + t.len() > 70 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        line.push_str(&t);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// Writes `grid` as plaintext.
pub fn to_cells(grid: &BitGrid, name: Option<&str>) -> String {
    let mut out = String::new();
    if let Some(n) = name {
        out.push_str(&format!("!Name: {n}\n"));
    }
    for y in 0..grid.height() {
        out.extend((0..grid.width()).map(|x| if grid.get(x, y) { 'O' } else { '.' }));
        out.push('\n');
    }
    out
}

/// A `width × height` board with `pattern` in its centre; an error when it does not fit.
pub fn centred(pattern: &BitGrid, width: usize, height: usize) -> crate::Result<BitGrid> {
    place(pattern, width, height, (width - pattern.width().min(width)) / 2, (height - pattern.height().min(height)) / 2)
}

/// A `width × height` board with `pattern`'s top-left corner at `(x0, y0)`.
pub fn place(pattern: &BitGrid, width: usize, height: usize, x0: usize, y0: usize) -> crate::Result<BitGrid> {
    if x0 + pattern.width() > width || y0 + pattern.height() > height {
        return Err(crate::Error::InvalidInput(format!(
            "a {}x{} pattern at ({x0}, {y0}) does not fit a {width}x{height} board",
            pattern.width(),
            pattern.height()
        )));
    }
    let mut g = BitGrid::new(width, height);
    for y in 0..pattern.height() {
        for x in 0..pattern.width() {
            if pattern.get(x, y) {
                g.set(x0 + x, y0 + y, true);
            }
        }
    }
    Ok(g)
}

/// A few well-known patterns by name (`glider`, `blinker`, `block`, `beehive`, `toad`,
/// `pulsar`, `glider-gun`, `r-pentomino`, `acorn`), as RLE.
pub fn builtin(name: &str) -> Option<&'static str> {
    Some(match name {
        "glider" => "x = 3, y = 3\nbob$2bo$3o!",
        "blinker" => "x = 3, y = 1\n3o!",
        "block" => "x = 2, y = 2\n2o$2o!",
        "beehive" => "x = 4, y = 3\nb2o$o2bo$b2o!",
        "toad" => "x = 4, y = 2\nb3o$3o!",
        "pulsar" => {
            "x = 13, y = 13\n2b3o3b3o2b2$o4bobo4bo$o4bobo4bo$o4bobo4bo$2b3o3b3o2b2$2b3o3b3o2b$o4bobo4bo$\
             o4bobo4bo$o4bobo4bo2$2b3o3b3o!"
        }
        "glider-gun" => {
            "x = 36, y = 9, rule = B3/S23\n24bo$22bobo$12b2o6b2o12b2o$11bo3bo4b2o12b2o$2o8bo5bo3b2o$2o8bo3bob2o4b\
             obo$10bo5bo7bo$11bo3bo$12b2o!"
        }
        "r-pentomino" => "x = 3, y = 3\nb2o$2o$bo!",
        "acorn" => "x = 7, y = 3\nbo$3bo$2o2b3o!",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_glider_gun_with_header_rule_and_name() {
        let p = parse(&format!("#N Gosper glider gun\n#C a comment\n{}", builtin("glider-gun").unwrap())).unwrap();
        assert_eq!(p.name.as_deref(), Some("Gosper glider gun"));
        assert_eq!((p.grid.width(), p.grid.height()), (36, 9));
        assert_eq!(p.grid.population(), 36);
        assert!(p.grid.get(24, 0) && p.grid.get(0, 4) && !p.grid.get(23, 0));
    }

    #[test]
    fn every_builtin_parses() {
        for n in ["glider", "blinker", "block", "beehive", "toad", "pulsar", "glider-gun", "r-pentomino", "acorn"] {
            let p = parse(builtin(n).unwrap()).unwrap_or_else(|e| panic!("{n}: {e}"));
            assert!(p.grid.population() > 0, "{n}");
        }
        assert_eq!(parse(builtin("pulsar").unwrap()).unwrap().grid.population(), 48);
    }

    #[test]
    fn rle_round_trips() {
        for (w, h, d, seed) in [(1, 1, 0.5, 1), (13, 7, 0.3, 2), (80, 5, 0.5, 3), (200, 40, 0.1, 4), (5, 9, 0.0, 5)] {
            let g = BitGrid::random(w, h, d, seed);
            let text = to_rle(&g, Some("random"));
            assert!(text.lines().all(|l| l.len() <= 70), "{text}");
            let back = parse(&text).unwrap();
            assert_eq!(back.grid, g, "{text}");
            assert_eq!(back.name.as_deref(), Some("random"));
        }
    }

    #[test]
    fn cells_round_trip() {
        let g = BitGrid::random(17, 6, 0.4, 7);
        let text = to_cells(&g, Some("x"));
        let back = parse(&text).unwrap();
        assert_eq!(back.grid.population(), g.population());
        assert_eq!(back.name.as_deref(), Some("x"));
        // Plaintext drops trailing empty rows and columns, so compare cell by cell.
        for y in 0..back.grid.height() {
            for x in 0..back.grid.width() {
                assert_eq!(back.grid.get(x, y), g.get(x, y));
            }
        }
        let p = parse("!Name: Glider\n.O.\n..O\nOOO\n").unwrap();
        assert_eq!(p.grid, parse(builtin("glider").unwrap()).unwrap().grid);
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse_rle("x = 3, y = 3\nbo$2bo$3q!").unwrap_err();
        assert_eq!((e.line, e.column), (2, 9), "{e}");
        let e = parse_rle("#C hi\nx = 3, y = 3, rule = B36/S23\n3o!").unwrap_err();
        assert_eq!((e.line, e.column), (2, 15), "{e}");
        assert!(e.message.contains("B36/S23"));
        let e = parse_rle("x = 2, y = 1\n3o!").unwrap_err();
        assert_eq!((e.line, e.column), (2, 2), "{e}");
        let e = parse_rle("x = 2, y = 2\n2o$2o").unwrap_err();
        assert!(e.message.contains("'!'"), "{e}");
        let e = parse_rle("x = a, y = 1\no!").unwrap_err();
        assert_eq!((e.line, e.column), (1, 1), "{e}");
        let e = parse_rle("bo$!").unwrap_err();
        assert_eq!(e.line, 1, "{e}");
        let e = parse_cells("!c\n.O.\n.X.\n").unwrap_err();
        assert_eq!((e.line, e.column), (3, 2), "{e}");
        let as_error: crate::Error = e.into();
        assert!(as_error.to_string().contains("line 3, column 2"));
    }

    proptest::proptest! {
        #[test]
        fn rle_round_trips_any_board(w in 0usize..150, h in 0usize..40, d in 0.0f64..1.0, seed: u64) {
            let g = BitGrid::random(w, h, d, seed);
            let back = parse_rle(&to_rle(&g, None)).unwrap();
            proptest::prop_assert_eq!(back.grid, g);
        }

        #[test]
        fn parsers_never_panic(text in "[xy=, 0-9bo$!#\\n.OA-Z]{0,80}") {
            let _ = parse(&text);
            let _ = parse_cells(&text);
        }
    }

    #[test]
    fn placement_checks_fit() {
        let glider = parse(builtin("glider").unwrap()).unwrap().grid;
        let g = centred(&glider, 9, 9).unwrap();
        assert_eq!(g.population(), 5);
        assert!(g.get(4, 3) && g.get(5, 4));
        assert!(centred(&glider, 2, 9).is_err());
    }
}
