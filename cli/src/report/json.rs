//! A [`Report`] as one JSON document (RFC 8259): `device`, `bench`, the run's facts, then `rows`,
//! one row per line. Each row repeats the device and the bench, names its table, and holds its
//! `keys`, its `values` (a timing as `{"min", "median", "max"}`), the `units` of both, and on the
//! CPU reference a `cpu` object saying what ran.

use super::{CpuNote, Kind, Report, Table, Value};
use std::fmt::Write;

pub fn render(r: &Report) -> String {
    let rows: Vec<String> = r.tables.iter().flat_map(|t| t.rows.iter().map(move |row| row_of(r, t, row))).collect();
    let mut top = vec![("device", string(&r.device)), ("bench", string(r.bench))];
    top.extend(r.facts.iter().map(|(f, v)| (*f, value(v))));
    let rows = if rows.is_empty() { "[]".to_string() } else { format!("[\n{}\n]", rows.join(",\n")) };
    top.push(("rows", rows));
    object(top) + "\n"
}

/// One row: `{"device", "bench", "table", "keys", "values", "units"[, "cpu"]}`.
fn row_of(r: &Report, t: &Table, row: &[Value]) -> String {
    let of = |key: bool| {
        object(t.cols.iter().zip(row).filter(|(c, _)| (c.kind == Kind::Key) == key).map(|(c, v)| (c.field, value(v))))
    };
    let units = object(t.cols.iter().filter(|c| !c.unit.is_empty()).map(|c| (c.field, string(c.unit))));
    let mut fields = vec![
        ("device", string(&r.device)),
        ("bench", string(r.bench)),
        ("table", string(t.name)),
        ("keys", of(true)),
        ("values", of(false)),
        ("units", units),
    ];
    if let Some(note) = &t.cpu {
        fields.push(("cpu", cpu(note)));
    }
    object(fields)
}

fn cpu(n: &CpuNote) -> String {
    let list = |v: &[u64]| format!("[{}]", v.iter().map(u64::to_string).collect::<Vec<_>>().join(","));
    let mut fields = vec![
        ("reference", string(&n.reference)),
        ("threads", n.threads.to_string()),
        ("reps", n.reps.to_string()),
        ("size_unit", string(n.unit)),
        ("sizes_timed", list(&n.timed)),
        ("sizes_dropped", list(&n.dropped)),
    ];
    if let Some(g) = n.generations {
        fields.push(("generations", g.to_string()));
    }
    object(fields)
}

/// A cell: text as a string, numbers as numbers, a timing as an object, nothing as `null`.
fn value(v: &Value) -> String {
    match v {
        Value::Text(s) => string(s),
        Value::Int(i) | Value::Size(i) => i.to_string(),
        Value::Num { v, .. } => number(*v),
        Value::Time { stats, .. } => {
            object([("min", number(stats.min)), ("median", number(stats.median)), ("max", number(stats.max))])
        }
        Value::Absent(_) => "null".into(),
    }
}

/// `{"k": v, …}` from fields whose values are JSON already.
fn object<'a>(fields: impl IntoIterator<Item = (&'a str, String)>) -> String {
    let fields: Vec<String> = fields.into_iter().map(|(k, v)| format!("{}:{v}", string(k))).collect();
    format!("{{{}}}", fields.join(","))
}

/// [`super::number`], or `null` for NaN and infinities, which JSON lacks.
fn number(v: f64) -> String {
    super::number(v).unwrap_or_else(|| "null".into())
}

/// `s` quoted, with `"`, `\` and the control characters escaped (all else is UTF-8 as it is).
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::super::{cols, CpuNote, Format, Stats, Table, Value};
    use super::*;

    #[test]
    fn strings_are_escaped() {
        assert_eq!(string(r#"a "b" \c"#), r#""a \"b\" \\c""#);
        assert_eq!(string("l1\nl2\r\t\u{1}\u{1f}"), r#""l1\nl2\r\t\u0001\u001f""#);
        assert_eq!(string("Auto(→ S2.5f) 4096² ×"), "\"Auto(→ S2.5f) 4096² ×\"");
        let back: String = serde_json::from_str(&string("\u{0}\"\\\u{7f}\u{2028}é")).unwrap();
        assert_eq!(back, "\u{0}\"\\\u{7f}\u{2028}é");
    }

    #[test]
    fn numbers_read_back_and_non_finite_ones_are_null() {
        for v in [0.0, 0.1, 1e-7, 2.5e13, 65536.0, f64::MAX, f64::MIN_POSITIVE, -0.0, 1.0 / 3.0] {
            assert_eq!(serde_json::from_str::<f64>(&number(v)).unwrap(), v);
        }
        assert_eq!((number(f64::NAN), number(f64::INFINITY)), ("null".into(), "null".into()));
    }

    #[test]
    fn a_row_renders_with_keys_values_units_and_the_cpu_note() {
        let mut note = CpuNote::new("select_if", 3, "items", &[1 << 16], &[1 << 20]);
        note.threads = 2;
        let mut t =
            Table::cpu("compact", &[cols::VARIANT, cols::N, cols::TIME, cols::CUB_TIME, cols::ITEMS_RATE], note);
        t.row(vec![
            Value::text("cpu \"rayon\""),
            Value::Size(1 << 16),
            Value::time(Stats { min: 0.5, median: 0.75, max: 2.0 }, 3),
            Value::DASH,
            Value::giga(2.5e9),
        ]);
        let mut r = Report::new(Format::Json, "compact", "cpu: a\\b");
        r.fact("copy_roof_gbps", Value::fixed(3000.5, 0));
        r.table(t);
        let text = render(&r);
        assert_eq!(
            text,
            concat!(
                r#"{"device":"cpu: a\\b","bench":"compact","copy_roof_gbps":3000.5,"rows":["#,
                "\n",
                r#"{"device":"cpu: a\\b","bench":"compact","table":"compact","#,
                r#""keys":{"variant":"cpu \"rayon\"","n":65536},"#,
                r#""values":{"time":{"min":0.5,"median":0.75,"max":2},"cub_time":null,"items_rate":2.5},"#,
                r#""units":{"n":"items","time":"ms","cub_time":"ms","items_rate":"G items/s"},"#,
                r#""cpu":{"reference":"select_if","threads":2,"reps":3,"size_unit":"items","sizes_timed":[65536],"sizes_dropped":[1048576]}}"#,
                "\n]}\n"
            )
        );
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["rows"][0]["values"]["time"]["max"], 2.0);
    }

    #[test]
    fn a_run_without_rows_is_a_document_too() {
        let r = Report::new(Format::Json, "startup", "cpu");
        assert_eq!(render(&r), "{\"device\":\"cpu\",\"bench\":\"startup\",\"rows\":[]}\n");
    }
}
