//! A [`Table`] as Markdown (aligned, so it reads in a terminal and pastes into BENCHMARKS.md
//! unchanged).

use super::Table;
use std::fmt::Write;

/// The table: header, alignment line, one line per row, each cell right-aligned to its column.
pub fn render(t: &Table) -> String {
    let header: Vec<String> = t.cols.iter().map(|c| c.header.to_string()).collect();
    let rows: Vec<Vec<String>> = t.rows.iter().map(|r| r.iter().map(|v| v.shown()).collect()).collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|c| rows.iter().map(|r| width(&r[c])).chain([width(&header[c])]).max().unwrap_or(0))
        .collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:>w$}")).collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let mut out = line(&header);
    let rule: Vec<String> = widths.iter().map(|w| format!("{}:", "-".repeat(w + 1))).collect();
    let _ = writeln!(out, "|{}|", rule.join("|"));
    for r in &rows {
        out.push_str(&line(r));
    }
    out
}

/// Characters a cell takes in a terminal ("—" and "×" are one each, three and two bytes).
fn width(cell: &str) -> usize {
    cell.chars().count()
}

/// `2^k` when `n` is a power of two, else the number.
pub fn size(n: usize) -> String {
    if n.is_power_of_two() {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// A rate in G/s with 1 decimal (10^9 per second).
pub fn giga(per_second: f64) -> String {
    format!("{:.1}", per_second / 1e9)
}

#[cfg(test)]
mod tests {
    use super::super::{cols, Stats, Value};
    use super::*;

    #[test]
    fn a_row_renders_as_an_aligned_markdown_table() {
        let mut t = Table::new("compact", &[cols::VARIANT, cols::N, cols::TIME, cols::CUB_TIME, cols::VS_CUB]);
        t.row(vec![
            Value::text("ordered, flagged"),
            Value::Size(1 << 16),
            Value::time(Stats { min: 0.01, median: 0.0312, max: 0.05 }, 4),
            Value::DASH,
            Value::ratio(1.2),
        ]);
        assert_eq!(
            render(&t),
            "|          variant |    n | time ms | CUB ms | vs CUB |\n\
             |-----------------:|-----:|--------:|-------:|-------:|\n\
             | ordered, flagged | 2^16 |  0.0312 |      — |  1.20× |\n"
        );
    }

    #[test]
    fn an_empty_table_is_its_header() {
        let t = Table::new("life", &[cols::VARIANT]);
        assert_eq!(render(&t), "| variant |\n|--------:|\n");
    }
}
