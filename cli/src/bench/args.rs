//! `warpwork bench`'s options, and the one place they are checked against the bench asked for
//! ([`BenchArgs::check`]), before anything runs.

use super::{access, compact, expand, life, multi, reduce, scan, sizes};
use crate::report::Format;
use clap::{Args, ValueEnum};
use warpwork::{Error, Result};

#[derive(Clone, Copy, PartialEq, Eq, Debug, ValueEnum)]
pub enum What {
    /// Stream compaction: lane vs warp vs block atomics, and the ordered variant beside CUB's.
    Compact,
    /// Work expansion: every strategy (S0 … S3) and Auto, two-pass breakdown, fixed overhead.
    Expand,
    /// Device-wide exclusive scan, u32 and u64, 2^16 to 2^30.
    Scan,
    /// Device-wide reductions (sum, min, argmax of u32, f32, u64), 2^16 to 2^30; segmented sum.
    Reduce,
    /// Memory access patterns: warp broadcast loads (tiled lighting), list partitioning (particles).
    Access,
    /// Game of Life: every kernel, cell updates per second; then the fastest kernel on other
    /// Life-like rules (`--rule`).
    Life,
    /// A new process's wait for its first result, per kernel family: cubins vs PTX, driver
    /// cache disabled and warm.
    Startup,
    /// The sharded exclusive sum over NCCL on 1, 2, 4 and 8 GPUs (those present), 2^28 and 2^31
    /// u32 per GPU, beside the one-GPU scan; the all-gather alone (needs libnccl.so; set
    /// NCCL_NVLS_ENABLE=0).
    Multi,
}

impl What {
    /// The bench's name, as typed and as `bench` in JSON and CSV.
    pub fn name(self) -> &'static str {
        match self {
            What::Compact => "compact",
            What::Expand => "expand",
            What::Scan => "scan",
            What::Reduce => "reduce",
            What::Access => "access",
            What::Life => "life",
            What::Startup => "startup",
            What::Multi => "multi",
        }
    }

    /// The names of the rows `--only` picks from (none: the bench takes no `--only`).
    pub fn rows(self) -> Vec<&'static str> {
        match self {
            What::Compact => compact::rows(),
            What::Scan => scan::ROWS.to_vec(),
            What::Reduce => reduce::ROWS.to_vec(),
            What::Expand => expand::rows(),
            _ => Vec::new(),
        }
    }

    /// Whether `--size` replaces the bench's range of sizes (for `expand`, its P1s).
    fn takes_size(self) -> bool {
        matches!(self, What::Compact | What::Scan | What::Reduce | What::Expand | What::Multi)
    }

    /// Whether the bench times repetitions (and so takes `--reps` and `--paced`) and has sizes up
    /// to `--max-log2`: all but `startup`, which times new processes, once each.
    fn is_timed(self) -> bool {
        self != What::Startup
    }

    /// How many sizes (boards for `life`, P1s for `expand`) the bench runs with `args`.
    fn sizes_run(self, args: &BenchArgs) -> usize {
        match self {
            What::Compact => args.sizes(4).len(),
            What::Scan | What::Reduce => args.sizes(2).len(),
            What::Expand => expand::p1s(args).len(),
            What::Access => access::particle_sizes(args).len(),
            What::Life => life::sides(args).len(),
            What::Startup => 1,
            What::Multi => multi::sizes(args).len(),
        }
    }
}

#[derive(Args, Clone)]
pub struct BenchArgs {
    /// Which primitive to measure.
    pub(super) what: What,
    /// Largest input as a power of two (inputs run from 2^16 up to this; default 30 for scan and reduce, 28
    /// for the others; life: boards of at most 4·2^MAX_LOG2 cells).
    #[arg(long = "max-log2", value_name = "MAX_LOG2", value_parser = clap::value_parser!(u32).range(16..=30))]
    max_log2_arg: Option<u32>,
    /// Timed repetitions per measurement (min, median and max are kept; tables show the
    /// median) [default: 15].
    #[arg(long = "reps", value_name = "REPS", value_parser = clap::value_parser!(u32).range(1..))]
    reps_arg: Option<u32>,
    /// Time every run on its own, the host waiting for each (no held stream): what a profiler
    /// such as Nsight Compute needs, which serializes and replays launches. Includes launch
    /// gaps, so the numbers are not the default mode's.
    #[arg(long)]
    paced: bool,
    /// Only the rows whose name contains ROW (compact: `lane`, `warp`, `block`, `ordered`,
    /// `ordered, flagged`; scan: `u32`, `u64`; reduce: `u32`, `f32`, `u64`, `segmented`), and CUB
    /// only beside those.
    #[arg(long, value_name = "ROW")]
    only: Option<String>,
    /// One input size instead of the bench's range: `2^28` or `268435456` (compact, scan, reduce; for
    /// expand, the P1).
    #[arg(long, value_name = "N", value_parser = parse_size)]
    size: Option<usize>,
    /// Output: Markdown tables, one JSON document, or CSV (every row of every table, with min,
    /// median and max of each timing).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub(super) format: Format,
    /// life: only the rules table, for these Life-like rules (comma-separated, e.g.
    /// `B36/S23,B2/S`; B3/S23 is always timed beside them as the baseline). Without it the
    /// rules table runs B3/S23 and HighLife, Day & Night, Seeds, Morley, 2x2 and Life without
    /// death after the kernel tables.
    #[arg(long = "rule", value_name = "RULES", value_delimiter = ',')]
    pub(super) rules: Vec<String>,
    /// life: one board over 1 … N GPUs instead of the kernel tables (weak and strong scaling,
    /// NCCL's share of the time, the largest board that fits); needs libnccl.so.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub(super) gpus: Option<u32>,
    /// life --gpus: each band kept once and stepped through windows of ROWS rows (for boards
    /// whose bands do not fit twice): the windows' cost on the weak-scaling board, then a
    /// `--size` × `--size` board (default 2^20), with the device memory per GPU, instead of
    /// the scaling tables.
    #[arg(long, value_name = "ROWS", value_parser = parse_size)]
    pub(super) window: Option<usize>,
}

/// `2^k` (k ≤ 40) or a plain count, at least 1.
fn parse_size(s: &str) -> std::result::Result<usize, String> {
    let n = match s.split_once('^') {
        Some(("2", k)) => match k.parse::<u32>() {
            Ok(k) if k <= 40 => 1usize << k,
            _ => return Err(format!("{s}: expected 2^k with k at most 40")),
        },
        Some(_) => return Err(format!("{s}: powers are written 2^k")),
        None => s.parse::<usize>().map_err(|e| format!("{s}: {e}"))?,
    };
    if n == 0 {
        return Err("the size must be at least 1".into());
    }
    Ok(n)
}

impl BenchArgs {
    /// `--max-log2`, or the bench's default.
    pub fn max_log2(&self) -> u32 {
        let default = if matches!(self.what, What::Scan | What::Reduce) { 30 } else { 28 };
        self.max_log2_arg.unwrap_or(default)
    }

    /// Timed repetitions per measurement.
    pub fn reps(&self) -> usize {
        self.reps_arg.unwrap_or(15) as usize
    }

    /// The sizes a bench of `step` runs: `--size`, or 2^16 … 2^max-log2.
    pub fn sizes(&self, step: usize) -> Vec<usize> {
        self.size.map_or_else(|| sizes(self.max_log2(), step), |n| vec![n])
    }

    /// `--size`, where given.
    pub fn size(&self) -> Option<usize> {
        self.size
    }

    /// Whether row `name` is wanted (`--only`).
    pub fn wants(&self, name: &str) -> bool {
        self.only.as_deref().is_none_or(|o| name.contains(o))
    }

    /// Whether `--paced` was given.
    pub fn paced(&self) -> bool {
        self.paced
    }

    /// Checks what the options ask of the bench: an error before anything runs.
    pub fn check(&self) -> Result<()> {
        let refuse = |m: String| Err(Error::InvalidInput(m));
        let bench = self.what.name();
        let life_window = self.what == What::Life && self.window.is_some();
        if self.size.is_some() && !self.what.takes_size() && !life_window {
            return refuse(format!(
                "--size is for compact, scan, reduce, expand and multi, not {bench} (life: with --gpus and --window, the large board's side)"
            ));
        }
        if self.window.is_some() && self.what != What::Life {
            return refuse(format!("--window is for life --gpus, not {bench}"));
        }
        if self.window.is_some() && self.gpus.is_none() {
            return refuse("--window is for life --gpus: the windows are the bands' (add --gpus N)".into());
        }
        if let (Some(rows), Some(n)) = (self.window, self.gpus) {
            // The large board's plan, checked before any GPU is touched.
            let side = self.size.unwrap_or(1 << 20);
            let plan = warpwork_life::Bands::new(warpwork_life::Kernel::FASTEST).with_window(rows);
            for halo in [8, 32] {
                plan.clone().with_halo(halo).split(side, side, n as usize)?;
            }
        }
        if !self.rules.is_empty() && self.what != What::Life {
            return refuse(format!("--rule is for life, not {bench}"));
        }
        for r in &self.rules {
            r.parse::<warpwork_life::Rule>()?;
        }
        if self.gpus.is_some() && self.what != What::Life {
            return refuse(format!("--gpus is for life, not {bench}"));
        }
        if self.gpus.is_some() && !self.rules.is_empty() {
            return refuse("--gpus and --rule together: the GPUs' tables run B3/S23 only".into());
        }
        if self.what == What::Multi && self.max_log2_arg.is_some() {
            return refuse(
                "--max-log2 is not for multi: multi runs 2^28 and 2^31 per GPU (--size for one size)".into(),
            );
        }
        if self.size.is_some() && self.max_log2_arg.is_some() {
            return refuse("--size and --max-log2 together: --size replaces the range --max-log2 ends".into());
        }
        let rows = self.what.rows();
        match &self.only {
            Some(_) if rows.is_empty() => {
                return refuse(format!("--only is for compact, scan, reduce and expand, not {bench}"))
            }
            Some(o) if !rows.iter().any(|r| r.contains(o.as_str())) => {
                return refuse(format!("--only {o}: no row of {bench} is named so (rows: {})", rows.join("; ")))
            }
            _ => {}
        }
        if !self.what.is_timed() {
            let given = [
                ("--max-log2", self.max_log2_arg.is_some()),
                ("--reps", self.reps_arg.is_some()),
                ("--paced", self.paced),
            ];
            if let Some((option, _)) = given.iter().find(|(_, given)| *given) {
                return refuse(format!("{option} is not for {bench}: it has no sizes and times each process once"));
            }
        }
        if self.what.sizes_run(self) == 0 {
            let k = self.max_log2();
            let fits =
                (k..=30).find(|&m| self.what.sizes_run(&BenchArgs { max_log2_arg: Some(m), ..self.clone() }) > 0);
            return refuse(match fits {
                Some(m) => format!("--max-log2 {k} leaves {bench} no size to run (its smallest needs --max-log2 {m})"),
                None => format!("--max-log2 {k} leaves {bench} no size to run"),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: BenchArgs,
    }

    fn parse(line: &str) -> std::result::Result<BenchArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("bench").chain(line.split_whitespace())).map(|c| c.args)
    }

    /// The refusal of `line` by [`BenchArgs::check`], which must mention `needle`.
    fn refused(line: &str, needle: &str) {
        match parse(line).expect(line).check() {
            Err(Error::InvalidInput(m)) => assert!(m.contains(needle), "{line}: {m}"),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn sizes_are_powers_or_counts() {
        assert_eq!(parse_size("2^28"), Ok(1 << 28));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("0").is_err() && parse_size("2^41").is_err() && parse_size("3^4").is_err());
        assert!(parse_size("2^").is_err() && parse_size("lots").is_err());
    }

    #[test]
    fn good_options_pass() {
        let args = parse("compact --only ordered --size 2^20 --paced --format csv").unwrap();
        assert!(args.check().is_ok() && args.paced() && args.format == Format::Csv);
        assert_eq!(args.sizes(4), [1 << 20]);
        assert!(args.wants("ordered, flagged") && !args.wants("block"));
        assert_eq!(parse("scan").unwrap().sizes(2).len(), 8);
        for line in
            ["compact --only flagged", "scan --only u64 --max-log2 20", "life --max-log2 22", "startup", "access"]
        {
            assert!(parse(line).unwrap().check().is_ok(), "{line}");
        }
        assert_eq!(parse("expand --format json").unwrap().format, Format::Json);
        assert_eq!((parse("life").unwrap().format, parse("life").unwrap().reps()), (Format::Table, 15));
    }

    #[test]
    fn clap_refuses_what_is_never_valid() {
        for line in ["compact --reps 0", "compact --max-log2 15", "compact --max-log2 31", "compact --size 0"] {
            assert!(parse(line).is_err(), "{line}");
        }
        assert!(parse("compact --format xml").is_err());
    }

    #[test]
    fn options_that_do_not_apply_are_refused() {
        refused("compact --only nothing", "no row of compact");
        refused("scan --only ordered", "rows: u32; u64");
        refused("life --size 2^20", "--size is for compact, scan, reduce, expand and multi");
        refused("multi --max-log2 20", "--max-log2 is not for multi");
        assert_eq!(parse("expand --size 2^18").unwrap().size, Some(1 << 18));
        refused("access --only lane", "--only is for compact, scan, reduce and expand");
        refused("compact --size 2^20 --max-log2 20", "together");
        refused("startup --max-log2 20", "--max-log2 is not for startup");
        refused("startup --reps 3", "--reps is not for startup");
        refused("startup --paced", "--paced is not for startup");
        refused("scan --gpus 2", "--gpus is for life, not scan");
        refused("life --gpus 2 --rule B2/S", "--gpus and --rule together");
        assert!(parse("life --gpus 0").is_err());
        assert_eq!(parse("life --gpus 2").unwrap().gpus, Some(2));
        refused("life --window 4096", "--window is for life --gpus");
        refused("scan --gpus 2 --window 4096", "--window is for life --gpus, not scan");
        refused("life --gpus 2 --window 16", "shorter than the 32-row halo");
        refused("life --gpus 2 --window 4096 --size 1000", "multiple of 64");
        refused("life --gpus 2 --size 2^20", "with --gpus and --window");
        let windowed = parse("life --gpus 2 --window 4096 --size 2^20").unwrap();
        assert!(windowed.check().is_ok());
        assert_eq!((windowed.window, windowed.size()), (Some(4096), Some(1 << 20)));
        assert!(parse("life --gpus 2 --window 4096").unwrap().check().is_ok());
    }

    #[test]
    fn an_empty_size_range_is_refused() {
        refused("life --max-log2 16", "--max-log2 16 leaves life no size to run (its smallest needs --max-log2 22)");
        refused("life --max-log2 21", "needs --max-log2 22");
    }

    #[test]
    fn only_names_the_rows_the_benches_print() {
        assert_eq!(
            What::Compact.rows(),
            [
                "lane",
                "warp",
                "block",
                "ordered",
                "ordered, flagged",
                "partition",
                "partition, flagged",
                "unique",
                "run-length encode",
                "unique by key",
                "non-trivial runs"
            ]
        );
        assert_eq!(What::Scan.rows(), ["u32", "u64"]);
        assert!(What::Life.rows().is_empty());
    }
}
