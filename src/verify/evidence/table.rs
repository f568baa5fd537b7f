//! Tables in evidence: HTML, JSON (pandas' "records" and "columns" orients) and Markdown, read
//! into one model.
//!
//! In: a context (CoverBench's long `context`, a snippet) that may hold tables among its text.
//! Out: [`FoundTable`]s, each the byte span of a table in the context, the representation it was
//! written in and the parsed [`Table`]: a header and rows of [`Cell`]s, every cell with its text
//! (whitespace collapsed) and the number in it read by the analyzer's number rules.
//!
//! The representations, as CoverBench writes the same table three ways:
//!
//! | format | shape | header |
//! |---|---|---|
//! | HTML | `<table>` with `<tr>` rows of `<th>`/`<td>` cells (pandas' `to_html`); `colspan` is ignored | the rows of `<thead>`, or else a first row made only of `<th>` |
//! | JSON records | `[{"col": value, ...}, ...]` (`to_json(orient="records")`) | the keys, in first-seen order |
//! | JSON columns | `{"col": {"row": value, ...}, ...}` (`to_json(orient="columns")`) | the outer keys; rows in the first column's key order |
//! | Markdown | `\| a \| b \|` lines, the second a delimiter row `\|---\|:--:\|` (GitHub's pipe tables); `\|` escapes a pipe | the first line |
//!
//! A cell's number: when the cell holds exactly one number under the analyzer's rules 1–3
//! (`1,200.50` → 1200.5, `3%` → 3, `$4.2` → 4.2), that number, negative when a minus sign stands
//! right before it; otherwise none (`"3 to 4"`, `"n/a"`). Magnitude words are not applied
//! (`1.5 billion` → 1.5). JSON numbers are cells like any other: their text is the number as JSON
//! writes it.
//!
//! Invariant (property-tested): a table rendered by [`Table::to_html`], [`Table::to_json_records`],
//! [`Table::to_json_columns`] or [`Table::to_markdown`] parses back to the same header and cells.

use std::ops::Range;

use indexmap::IndexMap;
use serde_json::Value;

use crate::analysis::number_spans;

/// How a table was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TableFormat {
    /// An HTML `<table>`.
    Html,
    /// JSON, records or columns orient.
    Json,
    /// A Markdown pipe table.
    Markdown,
}

/// One cell.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Cell {
    /// The text, whitespace collapsed.
    pub text: String,
    /// The number it holds (module doc).
    pub number: Option<f64>,
}

impl Cell {
    /// A cell of `text`, its number read by the analyzer's rules.
    pub fn new(text: &str) -> Cell {
        let text = collapse(text);
        let number = cell_number(&text);
        Cell { text, number }
    }
}

/// A parsed table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Table {
    /// Column names (empty when the table has no header).
    pub header: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<Cell>>,
}

/// A table found in a context.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FoundTable {
    /// Its bytes in the context.
    #[serde(skip)]
    pub span: Range<usize>,
    /// How it was written.
    pub format: TableFormat,
    /// The table.
    pub table: Table,
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cell_number(text: &str) -> Option<f64> {
    let spans = number_spans(text);
    let [span] = spans.as_slice() else { return None };
    let value: f64 = span.value.parse().ok()?;
    let negative = span.start > 0 && matches!(text.chars().nth(span.start - 1), Some('-' | '−'));
    Some(if negative { -value } else { value })
}

/// The tables of `context`, in the order they start.
pub fn find_tables(context: &str) -> Vec<FoundTable> {
    let mut found = html_tables(context);
    found.extend(json_tables(context, &found));
    found.extend(markdown_tables(context, &found));
    found.sort_by_key(|t| t.span.start);
    found
}

/// Whether `at` lies inside a table already found.
fn inside(found: &[FoundTable], at: usize) -> bool {
    found.iter().any(|t| t.span.contains(&at))
}

fn html_tables(context: &str) -> Vec<FoundTable> {
    let lower = context.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(start) = lower[from..].find("<table").map(|i| i + from) {
        // The matching close tag, counting nested tables.
        let (mut depth, mut at, mut end) = (0usize, start, None);
        while let Some(next) = lower[at..].find("<table").map(|i| i + at).into_iter().chain(lower[at..].find("</table").map(|i| i + at)).min() {
            if lower[next..].starts_with("</table") {
                depth -= 1;
                at = lower[next..].find('>').map_or(lower.len(), |i| next + i + 1);
                if depth == 0 {
                    end = Some(at);
                    break;
                }
            } else {
                depth += 1;
                at = next + "<table".len();
            }
        }
        let end = end.unwrap_or(context.len());
        if let Some(table) = Table::from_html(&context[start..end]) {
            found.push(FoundTable { span: start..end, format: TableFormat::Html, table });
        }
        from = end;
    }
    found
}

fn json_tables(context: &str, found: &[FoundTable]) -> Vec<FoundTable> {
    let bytes = context.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        // A candidate opens with `[{` or `{"` (whitespace allowed between).
        let next = bytes[i + 1..].iter().position(|b| !b.is_ascii_whitespace()).map(|p| bytes[i + 1 + p]);
        let opens = matches!((bytes[i], next), (b'[', Some(b'{')) | (b'{', Some(b'"')));
        if opens && !inside(found, i) {
            let mut stream = serde_json::Deserializer::from_str(&context[i..]).into_iter::<Value>();
            if let Some(Ok(value)) = stream.next() {
                let end = i + stream.byte_offset();
                if let Some(table) = Table::from_json_str(&context[i..end]).filter(|_| value.is_array() || value.is_object()) {
                    out.push(FoundTable { span: i..end, format: TableFormat::Json, table });
                    i = end;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

fn markdown_tables(context: &str, found: &[FoundTable]) -> Vec<FoundTable> {
    let mut lines = Vec::new();
    let mut offset = 0;
    for line in context.split_inclusive('\n') {
        lines.push((offset, line));
        offset += line.len();
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        let (start, first) = lines[i];
        if first.contains('|') && is_delimiter_row(lines[i + 1].1) && !inside(found, start) {
            let mut j = i + 2;
            while j < lines.len() && lines[j].1.contains('|') && !lines[j].1.trim().is_empty() {
                j += 1;
            }
            let end = lines.get(j).map_or(context.len(), |l| l.0);
            if let Some(table) = Table::from_markdown(&context[start..end]) {
                out.push(FoundTable { span: start..end, format: TableFormat::Markdown, table });
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

fn is_delimiter_row(line: &str) -> bool {
    let cells = split_pipes(line);
    !cells.is_empty() && cells.iter().all(|c| {
        let c = c.trim();
        let dashes = c.trim_start_matches(':').trim_end_matches(':');
        !dashes.is_empty() && dashes.chars().all(|ch| ch == '-')
    })
}

/// The cells of a Markdown table line: split at unescaped pipes, the outer ones dropped, `\|`
/// read as a pipe.
fn split_pipes(line: &str) -> Vec<String> {
    let line = line.trim();
    let mut cells = vec![String::new()];
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cells.last_mut().expect("one cell").push('|');
                chars.next();
            }
            '|' => cells.push(String::new()),
            _ => cells.last_mut().expect("one cell").push(c),
        }
    }
    if line.starts_with('|') {
        cells.remove(0);
    }
    if line.ends_with('|') && !line.ends_with("\\|") && !cells.is_empty() {
        cells.pop();
    }
    cells
}

fn json_cell(value: &Value) -> Option<Cell> {
    Some(Cell::new(&match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => String::new(),
        Value::Array(_) | Value::Object(_) => return None,
    }))
}

impl Table {
    /// The first `<table>` of `html` (module doc), or none when it has no rows.
    pub fn from_html(html: &str) -> Option<Table> {
        use scraper::{ElementRef, Html, Selector};
        let fragment = Html::parse_fragment(html);
        let table = fragment.select(&Selector::parse("table").expect("valid selector")).next()?;
        // Rows of this table, not of a table nested in one of its cells.
        let rows: Vec<ElementRef> = table
            .descendants()
            .filter_map(ElementRef::wrap)
            .filter(|e| e.value().name() == "tr" && e.ancestors().filter_map(ElementRef::wrap).find(|a| a.value().name() == "table") == Some(table))
            .collect();
        let cells = |row: &ElementRef| -> Vec<(bool, String)> {
            row.children().filter_map(ElementRef::wrap).filter(|c| matches!(c.value().name(), "td" | "th")).map(|c| (c.value().name() == "th", c.text().collect::<String>())).collect()
        };
        let in_head = |row: &ElementRef| row.ancestors().filter_map(ElementRef::wrap).take_while(|a| *a != table).any(|a| a.value().name() == "thead");
        let head_rows = rows.iter().take_while(|r| in_head(r)).count();
        let (header_rows, body) = if head_rows > 0 {
            rows.split_at(head_rows)
        } else if rows.first().is_some_and(|r| { let c = cells(r); !c.is_empty() && c.iter().all(|(th, _)| *th) }) {
            rows.split_at(1)
        } else {
            rows.split_at(0)
        };
        // With several header rows (pandas' column index name row), the last names the columns.
        let header = header_rows.last().map(|r| cells(r).into_iter().map(|(_, t)| collapse(&t)).collect()).unwrap_or_default();
        let rows: Vec<Vec<Cell>> = body.iter().map(|r| cells(r).iter().map(|(_, t)| Cell::new(t)).collect()).filter(|r: &Vec<Cell>| !r.is_empty()).collect();
        (!rows.is_empty() || !header_rows.is_empty()).then_some(Table { header, rows })
    }

    /// A table from JSON text in the records or the columns orient (module doc), or none when
    /// the JSON has neither shape.
    pub fn from_json_str(json: &str) -> Option<Table> {
        if let Ok(records) = serde_json::from_str::<Vec<IndexMap<String, Value>>>(json) {
            if records.is_empty() {
                return None;
            }
            let mut header: Vec<String> = Vec::new();
            for record in &records {
                for key in record.keys() {
                    if !header.contains(key) {
                        header.push(key.clone());
                    }
                }
            }
            let rows = records.iter().map(|r| header.iter().map(|h| r.get(h).map_or(Some(Cell::new("")), json_cell)).collect::<Option<Vec<_>>>()).collect::<Option<Vec<_>>>()?;
            return Some(Table { header, rows });
        }
        let columns = serde_json::from_str::<IndexMap<String, IndexMap<String, Value>>>(json).ok()?;
        let first = columns.values().next()?;
        let keys: Vec<&String> = first.keys().collect();
        let rows = keys.iter().map(|k| columns.values().map(|col| col.get(*k).map_or(Some(Cell::new("")), json_cell)).collect::<Option<Vec<_>>>()).collect::<Option<Vec<_>>>()?;
        Some(Table { header: columns.keys().cloned().collect(), rows })
    }

    /// A Markdown pipe table (module doc), or none when the second line is not a delimiter row.
    pub fn from_markdown(text: &str) -> Option<Table> {
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header = split_pipes(lines.next()?).iter().map(|c| collapse(c)).collect();
        if !is_delimiter_row(lines.next()?) {
            return None;
        }
        let rows = lines.map(|l| split_pipes(l).iter().map(|c| Cell::new(c)).collect()).collect();
        Some(Table { header, rows })
    }

    /// HTML as pandas' `to_html(index=False)` writes it (text escaped).
    pub fn to_html(&self) -> String {
        let escape = |t: &str| t.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
        let mut out = String::from("<table border=\"1\" class=\"dataframe\">\n  <thead>\n    <tr>");
        for h in &self.header {
            out.push_str(&format!("<th>{}</th>", escape(h)));
        }
        out.push_str("</tr>\n  </thead>\n  <tbody>\n");
        for row in &self.rows {
            out.push_str("    <tr>");
            for c in row {
                out.push_str(&format!("<td>{}</td>", escape(&c.text)));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("  </tbody>\n</table>");
        out
    }

    fn cell_value(cell: &Cell) -> Value {
        Value::String(cell.text.clone())
    }

    /// JSON in pandas' records orient, cells as strings.
    pub fn to_json_records(&self) -> String {
        let records: Vec<IndexMap<&str, Value>> = self.rows.iter().map(|r| self.header.iter().map(String::as_str).zip(r.iter().map(Table::cell_value)).collect()).collect();
        serde_json::to_string(&records).expect("records serialise")
    }

    /// JSON in pandas' columns orient, rows keyed "0", "1", …, cells as strings.
    pub fn to_json_columns(&self) -> String {
        let columns: IndexMap<&str, IndexMap<String, Value>> = self
            .header
            .iter()
            .enumerate()
            .map(|(c, h)| (h.as_str(), self.rows.iter().enumerate().map(|(i, r)| (i.to_string(), r.get(c).map_or(Value::Null, Table::cell_value))).collect()))
            .collect();
        serde_json::to_string(&columns).expect("columns serialise")
    }

    /// A Markdown pipe table, pipes in cells escaped.
    pub fn to_markdown(&self) -> String {
        let line = |cells: &mut dyn Iterator<Item = &str>| format!("| {} |\n", cells.map(|c| c.replace('|', "\\|")).collect::<Vec<_>>().join(" | "));
        let mut out = line(&mut self.header.iter().map(String::as_str));
        out.push_str(&format!("|{}\n", "---|".repeat(self.header.len().max(1))));
        for row in &self.rows {
            out.push_str(&line(&mut row.iter().map(|c| c.text.as_str())));
        }
        out
    }
}

/// `context` with every table rewritten as Markdown (the compact, uniform form the LLM verifier
/// can be sent with `--tables markdown`); text outside tables is kept as it is.
pub fn tables_as_markdown(context: &str, tables: &[FoundTable]) -> String {
    let mut out = String::with_capacity(context.len());
    let mut at = 0;
    for t in tables {
        out.push_str(&context[at..t.span.start]);
        out.push_str(&t.table.to_markdown());
        at = t.span.end;
    }
    out.push_str(&context[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn texts(t: &Table) -> Vec<Vec<String>> {
        t.rows.iter().map(|r| r.iter().map(|c| c.text.clone()).collect()).collect()
    }

    #[test]
    fn numbers_in_cells() {
        assert_eq!(Cell::new("1,200.50").number, Some(1200.5));
        assert_eq!(Cell::new(" 3% ").number, Some(3.0));
        assert_eq!(Cell::new("$4.2").number, Some(4.2));
        assert_eq!(Cell::new("-7.5").number, Some(-7.5));
        assert_eq!(Cell::new("3 to 4").number, None);
        assert_eq!(Cell::new("n/a").number, None);
    }

    #[test]
    fn pandas_html_with_an_index_and_a_nested_table() {
        let html = "<p>Revenue</p><table class=\"dataframe\"><thead><tr><th></th><th>year</th><th>revenue</th></tr></thead>\
                    <tbody><tr><th>0</th><td>2021</td><td>$1,200</td></tr><tr><th>1</th><td>2022</td><td>-3.5</td></tr></tbody></table>";
        let found = find_tables(html);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].format, TableFormat::Html);
        assert_eq!(found[0].span.start, "<p>Revenue</p>".len());
        let t = &found[0].table;
        assert_eq!(t.header, ["", "year", "revenue"]);
        assert_eq!(texts(t), [["0", "2021", "$1,200"], ["1", "2022", "-3.5"]]);
        assert_eq!(t.rows[1][2].number, Some(-3.5));
        let nested = Table::from_html("<table><tr><td>a<table><tr><td>x</td></tr></table></td><td>b</td></tr></table>").unwrap();
        assert_eq!(nested.rows.len(), 1, "a nested table's rows are not the outer table's");
    }

    #[test]
    fn tables_among_text() {
        let context = "The table below.\n| state | rate |\n|:--|--:|\n| Ohio | 3.5% |\n| Iowa \\| IA | 4 |\n\nThen JSON: [{\"a\": 1, \"b\": \"x\"}, {\"a\": 2.5}] and {\"c\": {\"0\": 7}} end.";
        let found = find_tables(context);
        assert_eq!(found.iter().map(|t| t.format).collect::<Vec<_>>(), [TableFormat::Markdown, TableFormat::Json, TableFormat::Json]);
        assert_eq!(texts(&found[0].table), [["Ohio", "3.5%"], ["Iowa | IA", "4"]]);
        assert_eq!(found[1].table.header, ["a", "b"]);
        assert_eq!(texts(&found[1].table), [["1", "x"], ["2.5", ""]]);
        assert_eq!(found[2].table.rows[0][0].number, Some(7.0));
        let rewritten = tables_as_markdown(context, &found);
        assert!(rewritten.starts_with("The table below.\n| state | rate |"));
        assert!(rewritten.ends_with("| c |\n|---|\n| 7 |\n end."));
    }

    fn cell_text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[A-Za-z][a-z]{0,8}( [a-z]{1,6}){0,2}",
            (0u32..100_000).prop_map(|n| n.to_string()),
            (0u32..10_000, 1u32..100).prop_map(|(a, b)| format!("{a}.{b}")),
            (1u32..1000).prop_map(|n| format!("{n}%")),
            (1u32..1000, 0u32..1000).prop_map(|(a, b)| format!("${a},{b:03}")),
            Just("R&D <core> | x".to_string()),
            Just(String::new()),
        ]
    }

    fn table() -> impl Strategy<Value = Table> {
        (1usize..5, 1usize..6).prop_flat_map(|(columns, rows)| {
            (
                proptest::collection::hash_set("[a-z]{1,6}( [a-z]{1,4})?", columns).prop_map(|h| h.into_iter().collect::<Vec<_>>()),
                proptest::collection::vec(proptest::collection::vec(cell_text(), columns), rows),
            )
                .prop_map(|(header, rows)| Table { header, rows: rows.iter().map(|r| r.iter().map(|t| Cell::new(t)).collect()).collect() })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn every_representation_parses_back_to_the_same_cells(t in table()) {
            for (rendered, format) in [(t.to_html(), TableFormat::Html), (t.to_json_records(), TableFormat::Json), (t.to_json_columns(), TableFormat::Json), (t.to_markdown(), TableFormat::Markdown)] {
                let context = format!("Some text before.\n{rendered}\nSome text after.");
                let found = find_tables(&context);
                prop_assert_eq!(found.len(), 1, "{}", rendered);
                prop_assert_eq!(found[0].format, format);
                prop_assert_eq!(&found[0].table, &t, "{}", rendered);
            }
        }
    }
}
