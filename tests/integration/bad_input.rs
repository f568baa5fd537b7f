//! Bad input: each error names the file, line (and column), field and what was expected.

use quantir::corpus::{load_claims, load_corpus, Format};

use crate::util::write;

fn corpus_error(name: &str, content: &[u8], format: Format) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), name, content);
    load_corpus(&path, format).unwrap_err().to_string()
}

#[test]
fn malformed_json_line_and_column() {
    let err = corpus_error("c.jsonl", b"{\"id\": \"a\", \"text\": \"x\"}\n{\"id\": \"b\", \"text\": \"y\",}\n", Format::Auto);
    assert!(err.contains("c.jsonl:2:25: trailing comma"), "{err}");
}

#[test]
fn missing_id_and_text() {
    let err = corpus_error("c.jsonl", b"{\"id\": \"a\", \"text\": \"x\"}\n\n{\"title\": \"t\", \"text\": \"y\"}\n", Format::Jsonl);
    assert!(err.ends_with("c.jsonl:3:1: field \"id\": expected a non-empty string id, found nothing"), "{err}");
    let err = corpus_error("c.jsonl", b"{\"id\": \"a\", \"title\": \"t\"}\n", Format::Jsonl);
    assert!(err.ends_with("c.jsonl:1:1: field \"text\": expected a string, found nothing"), "{err}");
    let err = corpus_error("c.jsonl", b"{\"id\": \"a\", \"text\": 42}\n", Format::Jsonl);
    assert!(err.ends_with("field \"text\": expected a string, found a number \"42\""), "{err}");
}

#[test]
fn duplicate_ids_name_both_lines() {
    let err = corpus_error("c.jsonl", b"{\"id\": \"a\", \"text\": \"x\"}\n{\"id\": \"b\", \"text\": \"y\"}\n{\"id\": \"a\", \"text\": \"z\"}\n", Format::Jsonl);
    assert!(err.ends_with("c.jsonl:3: duplicate id \"a\" (first at line 1)"), "{err}");
    let quantemp = b"{\n \"7\": {\"title\": \"t\", \"snippet\": \"s\"},\n \"7\": {\"title\": \"u\", \"snippet\": \"v\"}\n}\n";
    let err = corpus_error("corpus.json", quantemp, Format::Auto);
    assert!(err.ends_with("corpus.json:3: duplicate id \"7\" (first at line 2)"), "{err}");
}

#[test]
fn quantemp_record_errors_point_into_the_file() {
    let err = corpus_error("corpus.json", b"{\n \"1\": {\"title\": \"t\", \"snippet\": \"s\"},\n \"2\": {\"title\": \"t\"}\n}\n", Format::Quantemp);
    assert!(err.ends_with("corpus.json:3:7: field \"snippet\": expected a string, found nothing"), "{err}");
    let err = corpus_error("corpus.json", b"{\n \"1\": {\"title\": \"t\", \"snippet\": \"s\"}\n \"2\": {}\n}\n", Format::Quantemp);
    assert!(err.contains("corpus.json:3:2: expected `,` or `}`"), "{err}");
}

#[test]
fn non_utf8_is_located() {
    let err = corpus_error("c.jsonl", b"{\"id\": \"a\", \"text\": \"x\"}\n{\"id\": \"b\", \"text\": \"\xc3\x28\"}\n", Format::Jsonl);
    assert!(err.ends_with("c.jsonl:2:22: invalid UTF-8 (byte offset 46 in the file)"), "{err}");
}

#[test]
fn claims_with_bad_dates_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "claims.jsonl", "{\"id\": \"c1\", \"text\": \"x\", \"date\": \"2020-01-01\"}\n{\"id\": \"c2\", \"text\": \"y\", \"date\": \"yesterday\"}\n");
    let err = load_claims(&path, Format::Auto, None).unwrap_err().to_string();
    assert!(err.ends_with("claims.jsonl:2:1: field \"date\": expected a date like 2021-03-21 (see the date forms in the README), found \"yesterday\""), "{err}");
    let path = write(dir.path(), "test.json", "[\n {\"claim\": \"x\", \"published\": \"soon\"}\n]");
    let err = load_claims(&path, Format::Auto, None).unwrap_err().to_string();
    assert!(err.ends_with("test.json:2:2: field \"published\": expected a date like 2021-03-21 (see the date forms in the README), found \"soon\""), "{err}");
}

#[test]
fn unknown_layouts_list_the_formats() {
    let err = corpus_error("c.txt", b"hello\n", Format::Auto);
    assert!(err.contains("cannot tell the format") && err.contains("hint: name it with --format auto|jsonl|beir|quantemp"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let err = load_corpus(dir.path(), Format::Auto).unwrap_err().to_string();
    assert!(err.contains("a folder without corpus.jsonl (a BEIR folder has one) or corpus.json (a QuanTemp++ folder has one)"), "{err}");
    let err = load_corpus(dir.path(), Format::Quantemp).unwrap_err().to_string();
    assert!(err.contains("a folder without corpus.json (a QuanTemp++ folder has one)"), "{err}");
    let err = load_corpus(dir.path(), Format::Jsonl).unwrap_err().to_string();
    assert!(err.contains("a folder, but --format jsonl reads a file"), "{err}");
}
