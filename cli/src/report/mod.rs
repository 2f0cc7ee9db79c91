//! What a bench measured, held once and printed three ways: Markdown tables (the default, for
//! terminals and BENCHMARKS.md), JSON and CSV (for tracking runs). A bench fills [`Table`]s of
//! typed cells ([`Value`]) under declared columns ([`Col`]: header, field name, unit, and whether
//! it is a key, a value or a timing); [`Report`] prints them in the chosen [`Format`].

mod csv;
mod json;
mod text;

pub use text::{giga, size};

use clap::ValueEnum;

/// How `warpwork bench` prints its results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Markdown tables with the bench's notes (what runs, the device, the copy roof).
    #[default]
    Table,
    /// One JSON document: `{"device", "bench", …, "rows": [...]}`, every row of every table.
    Json,
    /// A header line, then one line per row of every table.
    Csv,
}

/// The fastest, the median and the slowest of a timing's repetitions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub min: f64,
    pub median: f64,
    pub max: f64,
}

impl Stats {
    /// Of one or more samples; the median of an even count is the upper middle one (as
    /// `warpwork::Gpu::median_ms` takes it).
    pub fn of(mut samples: Vec<f64>) -> Stats {
        assert!(!samples.is_empty(), "Stats::of: no samples");
        samples.sort_by(f64::total_cmp);
        Stats { min: samples[0], median: samples[samples.len() / 2], max: samples[samples.len() - 1] }
    }

    /// Every statistic times `k` (> 0): per generation, per item, ….
    pub fn scaled(self, k: f64) -> Stats {
        Stats { min: self.min * k, median: self.median * k, max: self.max * k }
    }
}

/// What a column holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Says which row this is (variant, n, distribution, …).
    Key,
    /// One number or text per row (a rate, a count, a share of the roof, …).
    Value,
    /// A timing: min, median and max of its repetitions (the table shows the median).
    Timed,
}

/// A column: its table header, its field name in JSON and CSV, its unit ("" for none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Col {
    pub header: &'static str,
    pub field: &'static str,
    pub unit: &'static str,
    pub kind: Kind,
}

impl Col {
    pub const fn key(header: &'static str, field: &'static str, unit: &'static str) -> Col {
        Col { header, field, unit, kind: Kind::Key }
    }
    pub const fn value(header: &'static str, field: &'static str, unit: &'static str) -> Col {
        Col { header, field, unit, kind: Kind::Value }
    }
    pub const fn timed(header: &'static str, field: &'static str, unit: &'static str) -> Col {
        Col { header, field, unit, kind: Kind::Timed }
    }
}

/// The columns most benches share.
pub mod cols {
    use super::Col;
    pub const VARIANT: Col = Col::key("variant", "variant", "");
    pub const N: Col = Col::key("n", "n", "items");
    pub const TIME: Col = Col::timed("time ms", "time", "ms");
    pub const ITEMS_RATE: Col = Col::value("G items/s", "items_rate", "G items/s");
    pub const BANDWIDTH: Col = Col::value("GB/s", "bandwidth", "GB/s");
    pub const ROOF: Col = Col::value("% roof", "roof_share", "% of the copy roof");
    pub const CUB_TIME: Col = Col::timed("CUB ms", "cub_time", "ms");
    pub const VS_CUB: Col = Col::value("vs CUB", "vs_cub", "CUB time / warpwork time");
}

/// One cell: what machines read (JSON, CSV) and what the table shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Text(String),
    /// An integer, shown as it is.
    Int(u64),
    /// An input size, shown as `2^k` when a power of two.
    Size(u64),
    /// A number, and how the table shows it.
    Num {
        v: f64,
        shown: String,
    },
    /// A timing, and how the table shows its median.
    Time {
        stats: Stats,
        shown: String,
    },
    /// Nothing to report (no CUB twin, no peer): shown as given, `null` in JSON, empty in CSV.
    Absent(&'static str),
}

impl Value {
    pub fn text(s: impl Into<String>) -> Value {
        Value::Text(s.into())
    }

    /// `v` with `decimals` decimals in the table.
    pub fn fixed(v: f64, decimals: usize) -> Value {
        Value::Num { v, shown: format!("{v:.decimals$}") }
    }

    /// A timing whose median the table shows with `decimals` decimals.
    pub fn time(stats: Stats, decimals: usize) -> Value {
        Value::Time { stats, shown: format!("{:.decimals$}", stats.median) }
    }

    /// A rate per second, in 10^9 per second (1 decimal in the table).
    pub fn giga(per_second: f64) -> Value {
        Value::Num { v: per_second / 1e9, shown: giga(per_second) }
    }

    /// A ratio, `1.23×` in the table.
    pub fn ratio(v: f64) -> Value {
        Value::Num { v, shown: format!("{v:.2}×") }
    }

    /// `x.xxxe13` in the table.
    pub fn sci(v: f64) -> Value {
        Value::Num { v, shown: format!("{v:.3e}") }
    }

    /// "—": a cell with nothing to report.
    pub const DASH: Value = Value::Absent("—");
    /// "": a cell that does not apply to the row.
    pub const BLANK: Value = Value::Absent("");

    /// The table's text for this cell.
    pub fn shown(&self) -> String {
        match self {
            Value::Text(s) => s.clone(),
            Value::Int(i) => i.to_string(),
            Value::Size(n) => size(*n as usize),
            Value::Num { shown, .. } | Value::Time { shown, .. } => shown.clone(),
            Value::Absent(s) => (*s).into(),
        }
    }
}

/// The shortest text that reads back as `v`, in JSON's number syntax (which CSV readers take
/// too): plain, or with an exponent when very large or small; `None` for NaN and infinities.
pub fn number(v: f64) -> Option<String> {
    let a = v.abs();
    match () {
        _ if !v.is_finite() => None,
        _ if a != 0.0 && !(1e-5..1e16).contains(&a) => Some(format!("{v:e}")),
        _ => Some(format!("{v}")),
    }
}

/// What the CPU reference timed, when there is no GPU: printed above its table, and fields of
/// each of its rows in JSON and CSV.
#[derive(Clone, Debug, PartialEq)]
pub struct CpuNote {
    /// The function timed (and anything it leaves out of the GPU bench).
    pub reference: String,
    /// rayon's threads.
    pub threads: usize,
    /// Timed repetitions per row (after one untimed run).
    pub reps: usize,
    /// What the sizes count (items, sources, lights per tile, cells).
    pub unit: &'static str,
    /// The sizes timed, and those of the GPU bench's that the CPU leaves out.
    pub timed: Vec<u64>,
    pub dropped: Vec<u64>,
    /// Generations per timing (Life).
    pub generations: Option<u64>,
}

impl CpuNote {
    /// The note of `reference` run on rayon's threads `reps` times at sizes `timed`, leaving out
    /// `dropped`.
    pub fn new(
        reference: impl Into<String>,
        reps: usize,
        unit: &'static str,
        timed: &[usize],
        dropped: &[usize],
    ) -> Self {
        let list = |v: &[usize]| v.iter().map(|&n| n as u64).collect();
        CpuNote {
            reference: reference.into(),
            threads: rayon::current_num_threads(),
            reps,
            unit,
            timed: list(timed),
            dropped: list(dropped),
            generations: None,
        }
    }

    /// The line the table format prints above the table.
    pub fn line(&self) -> String {
        let sizes = |v: &[u64]| match v {
            [] => "none".to_string(),
            // Small counts (lights per tile) as they are, sizes as powers of two.
            _ => v
                .iter()
                .map(|&n| if n < 1024 { n.to_string() } else { size(n as usize) })
                .collect::<Vec<_>>()
                .join(", "),
        };
        let gens = self.generations.map_or(String::new(), |g| format!(", {g} generations per timing"));
        format!(
            "CPU reference: {} on {} rayon thread{}, {} timed repetition{} after 1 untimed{gens}; {} timed: {}; dropped: {}",
            self.reference,
            self.threads,
            if self.threads == 1 { "" } else { "s" },
            self.reps,
            if self.reps == 1 { "" } else { "s" },
            self.unit,
            sizes(&self.timed),
            sizes(&self.dropped),
        )
    }
}

/// A table: its name (`table` in JSON and CSV), columns and rows, and, on the CPU reference,
/// what that timed.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub name: &'static str,
    pub cols: Vec<Col>,
    pub rows: Vec<Vec<Value>>,
    pub cpu: Option<CpuNote>,
}

impl Table {
    pub fn new(name: &'static str, cols: &[Col]) -> Self {
        Table { name, cols: cols.to_vec(), rows: Vec::new(), cpu: None }
    }

    /// The same, timed on the CPU reference as `note` says.
    pub fn cpu(name: &'static str, cols: &[Col], note: CpuNote) -> Self {
        Table { cpu: Some(note), ..Table::new(name, cols) }
    }

    pub fn row(&mut self, cells: Vec<Value>) {
        assert_eq!(cells.len(), self.cols.len(), "table {}: a row of {} cells", self.name, cells.len());
        debug_assert!(self.cols.iter().zip(&cells).all(|(c, v)| match v {
            Value::Time { .. } => c.kind == Kind::Timed,
            _ => true,
        }));
        self.rows.push(cells);
    }
}

/// A bench's output: prose and tables as it goes in the table format; in JSON and CSV, every
/// row of every table, printed by [`Report::finish`] once the bench has run.
pub struct Report {
    format: Format,
    device: String,
    bench: &'static str,
    /// Facts of the run (the copy roof, the CUB peer, why there is no GPU): JSON's top level.
    facts: Vec<(&'static str, Value)>,
    tables: Vec<Table>,
}

impl Report {
    pub fn new(format: Format, bench: &'static str, device: impl Into<String>) -> Self {
        Report { format, device: device.into(), bench, facts: Vec::new(), tables: Vec::new() }
    }

    /// Prints a line of prose in the table format (nothing in JSON and CSV).
    pub fn say(&self, text: impl std::fmt::Display) {
        if self.format == Format::Table {
            println!("{text}");
        }
    }

    /// A fact of the whole run, for JSON's top level.
    pub fn fact(&mut self, field: &'static str, value: Value) {
        self.facts.push((field, value));
    }

    /// Prints `t` (the table format: its CPU note, then the table) or keeps it for
    /// [`Report::finish`].
    pub fn table(&mut self, t: Table) {
        match self.format {
            Format::Table => {
                if let Some(note) = &t.cpu {
                    println!("{}\n", note.line());
                }
                print!("{}", text::render(&t));
            }
            Format::Json | Format::Csv => self.tables.push(t),
        }
    }

    /// Prints the JSON document or the CSV (the table format has printed all as it went).
    pub fn finish(self) {
        match self.format {
            Format::Table => {}
            Format::Json => print!("{}", json::render(&self)),
            Format::Csv => print!("{}", csv::render(&self)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_take_min_median_max() {
        let s = Stats::of(vec![3.0, 1.0, 2.0, 9.0]);
        assert_eq!(s, Stats { min: 1.0, median: 3.0, max: 9.0 });
        assert_eq!(Stats::of(vec![4.0]).scaled(0.5), Stats { min: 2.0, median: 2.0, max: 2.0 });
    }

    #[test]
    fn numbers_are_plain_unless_very_large_or_small() {
        assert_eq!(number(65536.0).as_deref(), Some("65536"));
        assert_eq!(number(0.0312).as_deref(), Some("0.0312"));
        assert_eq!(number(2.5e13).as_deref(), Some("25000000000000"));
        assert_eq!(number(1.5e20).as_deref(), Some("1.5e20"));
        assert_eq!(number(-1e-7).as_deref(), Some("-1e-7"));
        assert_eq!(number(0.0).as_deref(), Some("0"));
        assert_eq!(number(f64::NAN), None);
    }

    #[test]
    fn cells_show_as_the_tables_always_did() {
        assert_eq!(Value::Size(1 << 20).shown(), "2^20");
        assert_eq!(Value::Size(1000).shown(), "1000");
        assert_eq!(Value::fixed(49.96, 1).shown(), "50.0");
        assert_eq!(Value::time(Stats::of(vec![0.5, 0.25, 1.0]), 4).shown(), "0.5000");
        assert_eq!(Value::giga(2.25e9).shown(), "2.2");
        assert_eq!(Value::ratio(1.234).shown(), "1.23×");
        assert_eq!(Value::sci(1.5e13).shown(), "1.500e13");
        assert_eq!((Value::DASH.shown(), Value::BLANK.shown()), ("—".into(), String::new()));
    }

    #[test]
    fn a_cpu_note_says_what_ran() {
        let mut note = CpuNote::new("select_if", 1, "items", &[1 << 16], &[1 << 28, 1000, 1024]);
        note.threads = 2;
        note.generations = Some(4);
        assert_eq!(
            note.line(),
            "CPU reference: select_if on 2 rayon threads, 1 timed repetition after 1 untimed, 4 generations per \
             timing; items timed: 2^16; dropped: 2^28, 1000, 2^10"
        );
        note.dropped.clear();
        assert!(note.line().ends_with("dropped: none"));
    }
}
