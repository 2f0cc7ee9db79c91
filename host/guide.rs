//! Design notes and measurements: the repository's `docs/*.md` and `BENCHMARKS.md`, shipped with
//! the crate so that the references in these docs resolve here as they do in the repository.
//! Nothing in this module is code.
//!
//! * [`api`]: what is sound without `unsafe`, and why — the audit of every safe call.
//! * [`errors`]: what each call refuses, and its limits.
//! * [`select`]: the select kernels, their tile shapes, measurements and profiles.
//! * [`partition`]: stable partition, unique (and by key), run-length encoding and non-trivial
//!   runs, on the ordered select's kernel.
//! * [`scan`]: the device-wide scans: what they compute (float sums included), the kernel,
//!   measurements.
//! * [`reduce`]: reductions (sum, min, max, argmin, argmax, segmented): what they compute, the
//!   one-launch kernel and its fixed order of evaluation, measurements.
//! * [`expand`]: work expansion: the strategies (S0 … S3), `Auto`'s rule and the data behind it,
//!   measurements; [`expand_history`]: how its kernels got there, and what was dropped.
//! * [`benchmarks`]: every benchmark table, with the device and the date of each run.
//!
//! ## Outside this package
//!
//! The notes name files of warpwork's source repository by their paths: the device code
//! (`kernels/`, published as the `warpwork-kernels` crate), the tests (`tests/`), benches,
//! scripts, the tuning lab (`lab/`), the examples (`examples/`) and the demonstration crates
//! (`demos/`: `warpwork-life`, `warpwork-access`) with their own notes, `docs/life.md` and
//! `docs/access.md`. Those are not part of this package; links to the demos' notes lead here.

// Every page gets the same link definitions before its text: Markdown keeps the first definition
// of a label, so these intra-doc links win over the repository paths each note defines at its end
// for GitHub (`scripts/check-links.sh` checks those, and the anchors used here).
macro_rules! note {
    ($name:ident, $file:literal) => {
        #[doc = "[api]: crate::guide::api"]
        #[doc = "[errors]: crate::guide::errors"]
        #[doc = "[select]: crate::guide::select"]
        #[doc = "[partition]: crate::guide::partition"]
        #[doc = "[scan]: crate::guide::scan"]
        #[doc = "[reduce]: crate::guide::reduce"]
        #[doc = "[expand]: crate::guide::expand"]
        #[doc = "[expand-history]: crate::guide::expand_history"]
        #[doc = "[benchmarks]: crate::guide::benchmarks"]
        #[doc = "[benchmarks-select]: crate::guide::benchmarks#select-bench-compact"]
        #[doc = "[benchmarks-expand]: crate::guide::benchmarks#work-expansion-bench-expand"]
        #[doc = "[benchmarks-scan]: crate::guide::benchmarks#scan-bench-scan"]
        #[doc = "[benchmarks-reduce]: crate::guide::benchmarks#reduce-bench-reduce"]
        #[doc = "[benchmarks-partition]: crate::guide::benchmarks#partition-unique-and-run-length-encoding-bench-compact-after-the-select-table"]
        #[doc = "[life]: crate::guide#outside-this-package"]
        #[doc = "[access]: crate::guide#outside-this-package"]
        #[doc = ""]
        #[doc = include_str!($file)]
        pub mod $name {}
    };
}

note!(api, "../docs/api.md");
note!(errors, "../docs/errors.md");
note!(select, "../docs/select.md");
note!(partition, "../docs/partition.md");
note!(scan, "../docs/scan.md");
note!(reduce, "../docs/reduce.md");
note!(expand, "../docs/expand.md");
note!(expand_history, "../docs/expand-history.md");
note!(benchmarks, "../BENCHMARKS.md");
