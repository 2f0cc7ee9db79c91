//! `warpwork bench` as a tracker runs it: `--format json` and `--format csv` print every row with
//! min, median and max, and options that do not apply are refused before anything runs. Runs the
//! real binary; on a machine without a GPU the rows are the CPU reference's, which say what ran.

use std::process::{Command, Output};

fn bench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpwork")).arg("bench").args(args).output().expect("run warpwork")
}

fn stdout_of(args: &[&str]) -> String {
    let out = bench(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn compact_as_json_is_one_document_with_every_row() {
    let text = stdout_of(&["compact", "--max-log2", "16", "--reps", "1", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(doc["bench"], "compact");
    let device = doc["device"].as_str().expect("a device name");
    let rows = doc["rows"].as_array().expect("rows");
    let on_cpu = doc.get("no_gpu").is_some();
    // The CPU reference: one row per selection rate; a GPU: every variant and the flagged rows too.
    assert_eq!(rows.len(), if on_cpu { 3 } else { 15 }, "{text}");
    for row in rows {
        assert_eq!(
            (row["device"].as_str(), &row["bench"], &row["table"]),
            (Some(device), &doc["bench"], &doc["bench"])
        );
        assert_eq!(row["keys"]["n"], 65536);
        assert!(row["keys"]["kept"].is_number() && row["keys"]["variant"].is_string(), "{row}");
        let t = &row["values"]["time"];
        let (min, median, max) =
            (t["min"].as_f64().unwrap(), t["median"].as_f64().unwrap(), t["max"].as_f64().unwrap());
        assert!(0.0 <= min && min <= median && median <= max, "{row}");
        assert_eq!(row["units"]["time"], "ms");
        assert_eq!(row["units"]["items_rate"], "G items/s");
        if on_cpu {
            assert_eq!(row["keys"]["variant"], "cpu-rayon");
            let cpu = &row["cpu"];
            assert!(cpu["reference"].as_str().unwrap().contains("select_if"), "{row}");
            assert!(cpu["threads"].as_u64().unwrap() >= 1);
            assert_eq!(
                (&cpu["reps"], &cpu["sizes_timed"], &cpu["sizes_dropped"]),
                (&1.into(), &[65536].into(), &serde_json::json!([]))
            );
        }
    }
    assert!(text.ends_with("]}\n") && text.lines().count() == rows.len() + 2, "one row per line");
}

#[test]
fn compact_as_csv_is_a_header_and_a_line_per_row() {
    let text = stdout_of(&["compact", "--max-log2", "16", "--reps", "2", "--format", "csv"]);
    let lines: Vec<&str> = text.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    for column in
        ["device", "bench", "table", "variant", "n [items]", "time_min [ms]", "time_median [ms]", "time_max [ms]"]
    {
        assert!(header.contains(&column), "{column} missing: {}", lines[0]);
    }
    assert!(lines.len() >= 4, "{text}");
    if header.contains(&"cpu_reference") {
        assert_eq!(lines.len(), 4, "{text}");
        for line in &lines[1..] {
            // No field of the CPU rows needs quoting: a plain split is the parse.
            let cells: Vec<&str> = line.split(',').collect();
            assert_eq!(cells.len(), header.len(), "{line}");
            let at = |name: &str| cells[header.iter().position(|h| *h == name).unwrap()];
            assert_eq!(
                (at("bench"), at("variant"), at("n [items]"), at("cpu_reps")),
                ("compact", "cpu-rayon", "65536", "2")
            );
            let t: Vec<f64> =
                ["time_min [ms]", "time_median [ms]", "time_max [ms]"].map(|c| at(c).parse().unwrap()).into();
            assert!(t[0] <= t[1] && t[1] <= t[2], "{line}");
        }
    }
}

#[test]
fn the_table_is_the_default_and_says_what_the_cpu_ran() {
    let text = stdout_of(&["compact", "--max-log2", "16", "--reps", "1"]);
    assert!(text.contains("## compact: select_if(u32 < threshold), uniform u32 input"), "{text}");
    let header = text.lines().find(|l| l.starts_with('|')).expect("a table");
    let cells: Vec<&str> = header.split('|').map(str::trim).collect();
    assert_eq!(cells[1..6], ["variant", "n", "kept", "time ms", "G items/s"], "{text}");
    if text.starts_with("No usable GPU") {
        assert!(text.contains("CPU reference: warpwork_cpu_reference::select::select_if on "), "{text}");
        assert!(text.contains("1 timed repetition after 1 untimed; items timed: 2^16; dropped: none"), "{text}");
    }
}

#[test]
fn options_that_do_not_apply_are_refused_before_anything_runs() {
    for (args, needle) in [
        (&["life", "--max-log2", "16"][..], "no size to run"),
        (&["startup", "--max-log2", "20"], "--max-log2 is not for startup"),
        (&["life", "--size", "2^20"], "--size is for compact, scan, reduce, expand and multi"),
        (&["scan", "--gpus", "2"], "--gpus is for life"),
        (&["life", "--gpus", "2", "--rule", "B2/S"], "--gpus and --rule together"),
        (&["life", "--window", "4096"], "--window is for life --gpus"),
        (&["life", "--gpus", "2", "--window", "4"], "shorter than the 8-row halo"),
        (&["multi", "--max-log2", "20"], "multi runs 2^28 and 2^31 per GPU"),
        (&["expand", "--only", "ordered"], "no row of expand"),
        (&["access", "--only", "lane"], "--only is for compact, scan, reduce and expand"),
        (&["scan", "--only", "ordered", "--format", "json"], "no row of scan"),
    ] {
        let out = bench(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(needle) && !stderr.contains("panicked"),
            "{args:?}: {stderr}"
        );
        assert!(out.stdout.is_empty(), "{args:?} printed before refusing");
    }
    let out = bench(&["compact", "--reps", "0"]);
    assert_eq!(out.status.code(), Some(2), "clap's own refusal");
}

#[test]
fn multi_runs_or_says_why_not() {
    // Without a GPU, or without libnccl.so, the bench says what it could not run and succeeds.
    let text = stdout_of(&["multi", "--size", "2^16", "--reps", "1"]);
    assert!(
        text.contains("No usable GPU") || text.contains("Not run: no NCCL") || text.contains("sharded scan"),
        "{text}"
    );
}
