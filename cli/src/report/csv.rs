//! A [`Report`] as CSV (RFC 4180, lines ending in `\n`): a header line, then one line per row of
//! every table. The columns are `device`, `bench`, `table`, then every column of the bench's
//! tables in order of appearance (a row leaves the others' empty), the unit in brackets
//! (`bandwidth [GB/s]`); a timing takes three, `time_min [ms]`, `time_median [ms]` and
//! `time_max [ms]`. On the CPU reference, `cpu_*` columns say what ran.

use super::{Col, Kind, Report, Value};

/// The CPU note's columns.
const CPU: [&str; 7] = [
    "cpu_reference",
    "cpu_threads",
    "cpu_reps",
    "cpu_size_unit",
    "cpu_sizes_timed",
    "cpu_sizes_dropped",
    "cpu_generations",
];

pub fn render(r: &Report) -> String {
    let mut cols: Vec<Col> = Vec::new();
    for c in r.tables.iter().flat_map(|t| &t.cols) {
        if !cols.contains(c) {
            cols.push(*c);
        }
    }
    let with_cpu = r.tables.iter().any(|t| t.cpu.is_some());
    let mut header: Vec<String> = ["device", "bench", "table"].map(String::from).into();
    for c in &cols {
        let unit = if c.unit.is_empty() { String::new() } else { format!(" [{}]", c.unit) };
        match c.kind {
            Kind::Timed => header.extend(["min", "median", "max"].map(|s| format!("{}_{s}{unit}", c.field))),
            Kind::Key | Kind::Value => header.push(format!("{}{unit}", c.field)),
        }
    }
    if with_cpu {
        header.extend(CPU.map(String::from));
    }
    let mut out = line(&header);
    for t in &r.tables {
        for row in &t.rows {
            let mut cells = vec![r.device.clone(), r.bench.to_string(), t.name.to_string()];
            for c in &cols {
                let cell = t.cols.iter().position(|tc| tc == c).map(|i| &row[i]);
                cells.extend(fields(c, cell));
            }
            if with_cpu {
                cells.extend(cpu_fields(t.cpu.as_ref()));
            }
            out.push_str(&line(&cells));
        }
    }
    out
}

/// A column's fields for `cell` (`None`: the row's table has no such column).
fn fields(c: &Col, cell: Option<&Value>) -> Vec<String> {
    let number = |v: f64| super::number(v).unwrap_or_default();
    match (c.kind, cell) {
        (Kind::Timed, Some(Value::Time { stats, .. })) => {
            vec![number(stats.min), number(stats.median), number(stats.max)]
        }
        (Kind::Timed, _) => vec![String::new(); 3],
        (_, None | Some(Value::Absent(_))) => vec![String::new()],
        (_, Some(Value::Text(s))) => vec![s.clone()],
        (_, Some(Value::Int(i) | Value::Size(i))) => vec![i.to_string()],
        (_, Some(Value::Num { v, .. })) => vec![number(*v)],
        (_, Some(Value::Time { stats, .. })) => vec![number(stats.median)],
    }
}

fn cpu_fields(note: Option<&super::CpuNote>) -> Vec<String> {
    let Some(n) = note else { return vec![String::new(); CPU.len()] };
    let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(" ");
    vec![
        n.reference.clone(),
        n.threads.to_string(),
        n.reps.to_string(),
        n.unit.to_string(),
        list(&n.timed),
        list(&n.dropped),
        n.generations.map_or(String::new(), |g| g.to_string()),
    ]
}

/// The fields joined by commas, each quoted where it holds a comma, a quote or a line break.
fn line(cells: &[String]) -> String {
    let quoted: Vec<String> = cells.iter().map(|c| quote(c)).collect();
    quoted.join(",") + "\n"
}

pub fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{cols, CpuNote, Format, Stats, Table};
    use super::*;

    #[test]
    fn fields_are_quoted_where_they_must_be() {
        assert_eq!(quote("cpu-rayon"), "cpu-rayon");
        assert_eq!(quote("ordered, flagged"), "\"ordered, flagged\"");
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(quote("two\nlines"), "\"two\nlines\"");
        assert_eq!(quote("Auto(→ S2.5f)"), "Auto(→ S2.5f)");
    }

    #[test]
    fn rows_of_two_tables_share_one_header() {
        let mut a = Table::new("compact", &[cols::VARIANT, cols::N, cols::TIME]);
        a.row(vec![
            Value::text("ordered, flagged"),
            Value::Size(1 << 16),
            Value::time(Stats::of(vec![1.0, 2.0, 4.0]), 4),
        ]);
        let mut b = Table::new("overhead", &[cols::VARIANT, cols::VS_CUB]);
        b.row(vec![Value::text("lane"), Value::DASH]);
        let mut r = Report::new(Format::Csv, "compact", "NVIDIA H100, \"SXM\"");
        r.table(a);
        r.table(b);
        assert_eq!(
            render(&r),
            "device,bench,table,variant,n [items],time_min [ms],time_median [ms],time_max [ms],\
             vs_cub [CUB time / warpwork time]\n\
             \"NVIDIA H100, \"\"SXM\"\"\",compact,compact,\"ordered, flagged\",65536,1,2,4,\n\
             \"NVIDIA H100, \"\"SXM\"\"\",compact,overhead,lane,,,,,\n"
        );
    }

    #[test]
    fn cpu_rows_say_what_ran() {
        let mut note = CpuNote::new("life step", 3, "cells", &[1 << 24], &[1 << 30]);
        note.threads = 2;
        note.generations = Some(4);
        let mut t = Table::cpu("life", &[cols::VARIANT], note);
        t.row(vec![Value::text("cpu-bit64")]);
        let mut r = Report::new(Format::Csv, "life", "cpu");
        r.table(t);
        let text = render(&r);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], format!("device,bench,table,variant,{}", CPU.join(",")));
        assert_eq!(lines[1], "cpu,life,life,cpu-bit64,life step,2,3,cells,16777216,1073741824,4");
    }
}
