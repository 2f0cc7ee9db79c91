//! Printing benchmark results as a Markdown table (aligned, so it reads in a terminal and pastes
//! into BENCHMARKS.md unchanged).

/// A table with a header row.
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&str]) -> Self {
        Table { header: header.iter().map(|s| s.to_string()).collect(), rows: Vec::new() }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.header.len());
        self.rows.push(cells);
    }

    pub fn print(&self) {
        let widths: Vec<usize> = (0..self.header.len())
            .map(|c| self.rows.iter().map(|r| width(&r[c])).chain([width(&self.header[c])]).max().unwrap_or(0))
            .collect();
        let line = |cells: &[String]| {
            let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:>w$}")).collect();
            println!("| {} |", padded.join(" | "));
        };
        line(&self.header);
        println!("|{}|", widths.iter().map(|w| format!("{}:", "-".repeat(w + 1))).collect::<Vec<_>>().join("|"));
        for r in &self.rows {
            line(r);
        }
    }
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
