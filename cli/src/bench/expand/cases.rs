//! The last table of `warpwork bench expand`: per case, the best concrete strategy and Auto
//! against it.

use crate::report::{Col, Report, Stats, Table, Value};
use warpwork::expand::Strategy;

/// One timed row, for the per-case summary.
pub(super) struct Measured {
    pub(super) case: String,
    pub(super) strategy: Strategy,
    /// What the expander resolved `strategy` to (itself unless Auto).
    pub(super) resolved: Strategy,
    /// What Auto told nothing (`Strategy::AUTO`) resolves to for the case.
    pub(super) untold: Strategy,
    pub(super) name: String,
    pub(super) ms: Stats,
    pub(super) items_per_s: f64,
    pub(super) roof_percent: f64,
    pub(super) cub_ms: Option<Stats>,
}

/// Per case: the best concrete strategy (its time, rate, % of the roof, and speed against the
/// CUB peer's), Auto's pick with its time over the best's (within 5% is the target), and the
/// time of what Auto told nothing would pick (its concrete row) over the best's.
pub(super) fn print_cases(measured: &[Measured], report: &mut Report) {
    report.say("\n### best strategy per case, and Auto against it\n");
    let mut t = Table::new(
        "best per case",
        &[
            Col::key("case", "case", ""),
            Col::value("best strategy", "best_strategy", ""),
            Col::timed("best ms", "best_time", "ms"),
            Col::value("best G items/s", "best_items_rate", "G items/s"),
            Col::value("best % roof", "best_roof_share", "% of the copy roof"),
            Col::value("CUB G items/s", "cub_items_rate", "G items/s"),
            Col::value("best vs CUB", "best_vs_cub", "CUB time / best time"),
            Col::value("Auto", "auto_strategy", ""),
            Col::timed("Auto ms", "auto_time", "ms"),
            Col::value("Auto / best", "auto_over_best", "Auto time / best time"),
            Col::value("pick's row / best", "pick_over_best", "time of Auto's pick / best time"),
            Col::value("told nothing", "untold_strategy", ""),
            Col::value("its row / best", "untold_over_best", "time of the pick of Auto told nothing / best time"),
        ],
    );
    let mut cases: Vec<&str> = Vec::new();
    for m in measured {
        if !cases.contains(&m.case.as_str()) {
            cases.push(&m.case);
        }
    }
    for case in cases {
        let of_case = || measured.iter().filter(|m| m.case == case);
        let is_auto = |m: &&Measured| matches!(m.strategy, Strategy::Auto { .. });
        let Some(best) = of_case().filter(|m| !is_auto(m)).min_by(|a, b| a.ms.median.total_cmp(&b.ms.median)) else {
            continue;
        };
        let best_ms = best.ms.median;
        // Rates: the ratio is best / CUB, above 1 where warpwork's best is faster.
        let (cub_rate, vs) = match best.cub_ms {
            Some(c) => (Value::giga(best.items_per_s * best_ms / c.median), Value::ratio(c.median / best_ms)),
            None => (Value::DASH, Value::DASH),
        };
        // Auto's own timing, and the timing of the concrete row it resolved to (the same
        // kernels, timed apart: their difference is the timing noise).
        let (auto_name, auto_ms, ratio, pick_ratio) = match of_case().find(is_auto) {
            Some(a) => {
                let ratio = a.ms.median / best_ms;
                let verdict = if ratio <= 1.05 { "within 5%" } else { "OVER 5%" };
                let pick_ratio = match of_case().find(|m| m.strategy == a.resolved) {
                    Some(m) => Value::fixed(m.ms.median / best_ms, 3),
                    None => Value::DASH,
                };
                let ratio = Value::Num { v: ratio, shown: format!("{ratio:.3} ({verdict})") };
                (Value::text(&a.name), Value::time(a.ms, 4), ratio, pick_ratio)
            }
            None => (Value::DASH, Value::DASH, Value::DASH, Value::DASH),
        };
        // Auto told nothing picks from P1 and the capacity alone: its concrete row's time.
        let untold = best.untold;
        let untold_ratio = match of_case().find(|m| m.strategy == untold) {
            Some(m) => Value::fixed(m.ms.median / best_ms, 3),
            None => Value::DASH,
        };
        t.row(vec![
            Value::text(case),
            Value::text(&best.name),
            Value::time(best.ms, 4),
            Value::giga(best.items_per_s),
            Value::fixed(best.roof_percent, 1),
            cub_rate,
            vs,
            auto_name,
            auto_ms,
            ratio,
            pick_ratio,
            Value::text(untold.name()),
            untold_ratio,
        ]);
    }
    report.table(t);
}
