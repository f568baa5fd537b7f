//! Databases as evidence: the SQL agent against a real SQLite database the test builds (four
//! tables, thousands of rows) and a model played by a real HTTP server on loopback; SQL safety.

use std::path::{Path, PathBuf};

use predicates::str::contains;
use serde_json::{json, Value};

use crate::plan::{completion, fake_model};
use crate::util::{python, quantir, write};

/// A deterministic generator (no dependence on the code under test).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

const STATES: [&str; 5] = ["OH", "IA", "TX", "NY", "CA"];

/// Builds `crime.sqlite`: 200 cities, 2,000 population rows, 2,000 homicide rows and 5,000
/// incidents. Returns the path and the number of homicides in Ohio's cities in 2023, computed
/// here from the generated rows.
fn crime_database(dir: &Path) -> (PathBuf, i64) {
    let path = dir.join("crime.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE cities (id INTEGER PRIMARY KEY, name TEXT NOT NULL, state TEXT NOT NULL);
         CREATE TABLE population (city_id INTEGER REFERENCES cities(id), year INTEGER, people INTEGER);
         CREATE TABLE homicides (city_id INTEGER REFERENCES cities(id), year INTEGER, count INTEGER);
         CREATE TABLE incidents (id INTEGER PRIMARY KEY, city_id INTEGER, year INTEGER, kind TEXT);
         CREATE INDEX homicides_by_year ON homicides(year);",
    )
    .unwrap();
    let mut rng = Lcg(7);
    let mut ohio_2023 = 0;
    let tx = conn.unchecked_transaction().unwrap();
    for city in 0..200i64 {
        let state = STATES[city as usize % STATES.len()];
        tx.execute("INSERT INTO cities VALUES (?1, ?2, ?3)", rusqlite::params![city, format!("City {city}"), state]).unwrap();
        for year in 2014..2024i64 {
            let people = 20_000 + rng.next(500_000) as i64;
            let count = rng.next(60) as i64;
            if state == "OH" && year == 2023 {
                ohio_2023 += count;
            }
            tx.execute("INSERT INTO population VALUES (?1, ?2, ?3)", rusqlite::params![city, year, people]).unwrap();
            tx.execute("INSERT INTO homicides VALUES (?1, ?2, ?3)", rusqlite::params![city, year, count]).unwrap();
        }
    }
    for id in 0..5000i64 {
        tx.execute("INSERT INTO incidents VALUES (?1, ?2, ?3, ?4)", rusqlite::params![id, rng.next(200) as i64, 2014 + rng.next(10) as i64, ["theft", "assault", "fraud"][rng.next(3) as usize]]).unwrap();
    }
    tx.commit().unwrap();
    (path, ohio_2023)
}

fn sha256(path: &Path) -> String {
    use sha2::Digest;
    format!("{:x}", sha2::Sha256::digest(std::fs::read(path).unwrap()))
}

const SUM_OHIO: &str = "SELECT SUM(h.count) FROM homicides h JOIN cities c ON c.id = h.city_id WHERE c.state = 'OH' AND h.year = 2023";
const RUNAWAY: &str = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c";
const WRITES: [&str; 5] = ["DELETE FROM homicides", "DROP TABLE cities", "ATTACH DATABASE 'elsewhere.sqlite' AS other", "PRAGMA query_only = OFF", "SELECT 1; SELECT 2"];

/// A reply calling `execute_sql` once per argument string.
fn tool_calls(arguments: &[String]) -> String {
    let calls: Vec<Value> = arguments.iter().enumerate().map(|(i, a)| json!({"id": format!("call_{i}"), "type": "function", "function": {"name": "execute_sql", "arguments": a}})).collect();
    json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": calls}}]}).to_string()
}

fn query(sql: &str) -> String {
    json!({"query": sql}).to_string()
}

fn answer(label: &str) -> String {
    completion(&json!({"label": label, "confidence": 0.9}).to_string())
}

/// The model, played by the test: it reads the claim from the first user message and the tool
/// results sent back, and decides as a careful agent would.
fn play(body: &str) -> (u16, String) {
    let request: Value = serde_json::from_str(body).unwrap();
    let messages = request["messages"].as_array().unwrap();
    assert_eq!(request["tools"][0]["function"]["name"], "execute_sql");
    let user = messages[1]["content"].as_str().unwrap();
    assert!(user.starts_with("Database schema:\nCREATE TABLE") && user.contains("homicides"), "the schema comes up front");
    let claim = user.rsplit("Claim: ").next().unwrap();
    let results: Vec<Value> = messages.iter().filter(|m| m["role"] == "tool").map(|m| serde_json::from_str(m["content"].as_str().unwrap()).unwrap()).collect();
    let reply = if claim.contains("homicides in all") {
        // "In 2023 the cities of Ohio recorded N homicides in all."
        match results.last() {
            None => tool_calls(&[query(SUM_OHIO)]),
            Some(result) => {
                let claimed: i64 = claim.split("recorded ").nth(1).and_then(|rest| rest.split(' ').next()).unwrap().parse().unwrap();
                let found = result["rows"][0][0].as_i64().unwrap();
                answer(if claimed == found { "entailed" } else { "contradicted" })
            }
        }
    } else if claim.contains("policing") {
        match results.len() {
            0 => tool_calls(&[query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]),
            _ => {
                let tables = results[0]["rows"].to_string();
                assert!(tables.contains("homicides") && !tables.contains("budget"));
                answer("not enough info")
            }
        }
    } else if claim.contains("forever") {
        tool_calls(&[query("SELECT 1")])
    } else if claim.contains("tamper") {
        match results.len() {
            0 => tool_calls(&WRITES.map(query)),
            5 => tool_calls(&[query("VACUUM INTO 'copy.sqlite'")]),
            _ => answer("contradicted"),
        }
    } else if claim.contains("garbled twice") {
        tool_calls(&["{not json".to_string()])
    } else if claim.contains("garbled once") {
        match results.len() {
            0 => tool_calls(&["{\"sql\": \"SELECT 1\"}".to_string()]),
            1 => tool_calls(&[query("SELECT COUNT(*) FROM incidents")]),
            _ => answer("entailed"),
        }
    } else if claim.contains("slowly") {
        match results.len() {
            0 => tool_calls(&[query(RUNAWAY)]),
            _ => answer(if results[0]["status"] == "timed_out" { "not enough info" } else { "entailed" }),
        }
    } else {
        panic!("unexpected claim {claim}")
    };
    (200, reply)
}

fn claims(ohio: i64) -> String {
    [
        json!({"id": "sum-true", "claim": format!("In 2023 the cities of Ohio recorded {ohio} homicides in all."), "db_id": "crime", "label": "entailed"}),
        json!({"id": "sum-false", "claim": format!("In 2023 the cities of Ohio recorded {} homicides in all.", ohio + 17), "db_id": "crime", "label": "contradicted"}),
        json!({"id": "schema", "claim": "Ohio's cities spent $3 billion on policing in 2023.", "db_id": "crime", "label": "not enough info", "category": "out-of-schema"}),
        json!({"id": "loop", "claim": "Crime rose forever.", "db_id": "crime", "label": "contradicted"}),
        json!({"id": "write", "claim": "Someone will tamper with the data.", "db_id": "crime", "label": "contradicted"}),
        json!({"id": "garbled-2", "claim": "Tool arguments garbled twice.", "db_id": "crime", "label": "entailed"}),
        json!({"id": "garbled-1", "claim": "Tool arguments garbled once.", "db_id": "crime", "label": "entailed"}),
        json!({"id": "slow", "claim": "Counting slowly to infinity.", "db_id": "crime", "label": "not enough info", "category": "counterfactual"}),
    ]
    .iter()
    .map(|c| format!("{c}\n"))
    .collect()
}

fn verify_db(url: &str, claims: &Path, database: &Path, dir: &Path) -> assert_cmd::assert::Assert {
    quantir()
        .args(["verify", "--verifier", "llm:test-model", "--llm-concurrency", "1", "--llm-retries", "0", "--sql-timeout", "1", "--llm-url", url, "--claims"])
        .arg(claims)
        .arg("--database")
        .arg(database)
        .arg("--llm-cache")
        .arg(dir.join("cache"))
        .arg("--output")
        .arg(dir.join("pred.jsonl"))
        .assert()
}

fn predictions(dir: &Path) -> std::collections::HashMap<String, Value> {
    let text = std::fs::read_to_string(dir.join("pred.jsonl")).unwrap();
    text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).map(|p| (p["id"].as_str().unwrap().to_string(), p)).collect()
}

/// A URL where nothing listens.
fn closed_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}/v1", listener.local_addr().unwrap())
}

#[test]
fn sql_agent_against_a_real_database() {
    let dir = tempfile::tempdir().unwrap();
    let (database, ohio) = crime_database(dir.path());
    let before = sha256(&database);
    let claims = write(dir.path(), "claims.jsonl", claims(ohio));
    let model = fake_model(200, play);
    verify_db(&model.url, &claims, &database, dir.path()).success().stderr(contains("verified 8 claims against")).stderr(contains("6 statements refused, 2 failed runs"));
    let p = predictions(dir.path());
    assert_eq!(p["sum-true"]["label"], "True");
    assert_eq!(p["sum-true"]["sql"], json!([SUM_OHIO]), "the SQL it ran is the explanation");
    assert_eq!(p["sum-true"]["tool_calls"], 1);
    assert_eq!(p["sum-false"]["label"], "False");
    assert_eq!(p["schema"]["label"], "Not Enough Info");
    assert_eq!(p["loop"]["failure"], "more than 20 tool calls");
    assert_eq!(p["loop"]["tool_calls"], 20);
    assert_eq!(p["loop"]["label"], "Not Enough Info", "a failed run carries the task's fallback");
    assert_eq!(p["write"]["label"], "False");
    let refused = p["write"]["refused"].as_array().unwrap();
    assert_eq!(refused.len(), 6, "{refused:?}");
    assert!(refused[0].as_str().unwrap().starts_with("DELETE FROM homicides (only reading is allowed"));
    assert!(refused[4].as_str().unwrap().ends_with("(one statement per call)"), "{refused:?}");
    assert!(p["write"].get("sql").is_none(), "nothing ran");
    assert!(p["garbled-2"]["failure"].as_str().unwrap().starts_with("malformed tool call twice"));
    assert_eq!(p["garbled-1"]["label"], "True");
    assert_eq!(p["garbled-1"]["tool_calls"], 2);
    assert_eq!(p["slow"]["label"], "Not Enough Info", "the runaway query was cut by the timeout");
    assert!(p.values().all(|x| x.get("failure").is_none() || x["confidence"] == 0.0));
    // What the model was told: the aggregate over the real rows, a timeout, a re-ask.
    let requests = model.requests.lock().unwrap().clone();
    let sent: Vec<Value> = requests.iter().map(|r| serde_json::from_str(r).unwrap()).collect();
    let tool_result = |claim_id: &str| -> Vec<Value> {
        let claim = claims_text(&claims, claim_id);
        let last = sent.iter().rfind(|r| r["messages"][1]["content"].as_str().unwrap().ends_with(&claim)).unwrap();
        last["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "tool").map(|m| serde_json::from_str(m["content"].as_str().unwrap()).unwrap()).collect()
    };
    assert_eq!(tool_result("sum-true")[0], json!({"status": "rows", "columns": ["SUM(h.count)"], "rows": [[ohio]], "truncated": false}));
    assert_eq!(tool_result("slow")[0], json!({"status": "timed_out", "seconds": 1.0}));
    assert!(tool_result("garbled-1")[0]["message"].as_str().unwrap().contains("call execute_sql with {\"query\""));
    // Nothing modified the database.
    assert_eq!(sha256(&database), before);
    assert!(!dir.path().join("copy.sqlite").exists() && !dir.path().join("elsewhere.sqlite").exists());
    // A rerun is answered from the cache: nothing listens at the URL.
    let first = std::fs::read_to_string(dir.path().join("pred.jsonl")).unwrap();
    verify_db(&closed_url(), &claims, &database, dir.path()).success();
    assert_eq!(std::fs::read_to_string(dir.path().join("pred.jsonl")).unwrap(), first);

    // Scored as ClaimDB does: failed runs wrong, per-label NEI, categories, tool calls —
    // against scikit-learn with the failures as a label left out of `labels=`.
    let out = quantir().args(["verify-eval", "--json", "--gold"]).arg(&claims).arg("--pred").arg(dir.path().join("pred.jsonl")).assert().success().get_output().stdout.clone();
    let ours: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(ours["failed"], 2);
    assert_eq!(ours["labels"], json!(["True", "False", "Not Enough Info"]));
    assert_eq!(ours["nei_categories"]["out-of-schema"]["recall"], 1.0);
    assert_eq!(ours["nei_categories"]["counterfactual"]["claims"], 1);
    assert_eq!(ours["tool_calls"]["max"], 20);
    let script = r#"
import json, sys
from sklearn.metrics import accuracy_score, f1_score, precision_recall_fscore_support
norm = {"entailed": "True", "contradicted": "False", "not enough info": "Not Enough Info"}
gold = {d["id"]: norm[d["label"]] for d in map(json.loads, open(sys.argv[1]))}
pred = {d["id"]: ("failed" if d.get("failure") else d["label"]) for d in map(json.loads, open(sys.argv[2]))}
ids = sorted(gold)
y, p = [gold[i] for i in ids], [pred[i] for i in ids]
labels = ["True", "False", "Not Enough Info"]
pr, rc, f, s = precision_recall_fscore_support(y, p, labels=labels, zero_division=0)
print(json.dumps({"accuracy": accuracy_score(y, p), "macro_f1": f1_score(y, p, labels=labels, average="macro", zero_division=0),
  "weighted_f1": f1_score(y, p, labels=labels, average="weighted", zero_division=0),
  "per_class": {l: {"precision": pr[i], "recall": rc[i], "f1": f[i]} for i, l in enumerate(labels)}}))
"#;
    let oracle = std::process::Command::new(python()).arg("-c").arg(script).arg(&claims).arg(dir.path().join("pred.jsonl")).output().unwrap();
    assert!(oracle.status.success(), "{}", String::from_utf8_lossy(&oracle.stderr));
    let theirs: Value = serde_json::from_slice(&oracle.stdout).unwrap();
    let close = |x: &Value, y: &Value, what: &str| assert!((x.as_f64().unwrap() - y.as_f64().unwrap()).abs() <= 1e-9, "{what}: quantir {x} vs scikit-learn {y}");
    for key in ["accuracy", "macro_f1", "weighted_f1"] {
        close(&ours[key], &theirs[key], key);
    }
    for label in ["True", "False", "Not Enough Info"] {
        for key in ["precision", "recall", "f1"] {
            close(&ours["per_class"][label][key], &theirs["per_class"][label][key], &format!("{label} {key}"));
        }
    }
    let text = quantir().args(["verify-eval", "--gold"]).arg(&claims).arg("--pred").arg(dir.path().join("pred.jsonl")).assert().success().get_output().stdout.clone();
    let text = String::from_utf8(text).unwrap();
    assert!(text.contains("failed runs  2 (counted wrong)"), "{text}");
    assert!(text.contains("not enough info, out-of-schema   claims 1 recall 1.0000"), "{text}");
}

fn claims_text(claims: &Path, id: &str) -> String {
    let text = std::fs::read_to_string(claims).unwrap();
    let line = text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).find(|c| c["id"] == id).unwrap();
    line["claim"].as_str().unwrap().to_string()
}

#[test]
fn csv_folders_and_databases_by_id() {
    let dir = tempfile::tempdir().unwrap();
    let (database, ohio) = crime_database(dir.path());
    // The same tables as CSV files, written from the database by the test.
    let csv = dir.path().join("csv");
    std::fs::create_dir(&csv).unwrap();
    let conn = rusqlite::Connection::open(&database).unwrap();
    for table in ["cities", "population", "homicides", "incidents"] {
        let mut stmt = conn.prepare(&format!("SELECT * FROM {table}")).unwrap();
        let names: Vec<String> = stmt.column_names().map(str::to_string).collect();
        let mut out = csv::Writer::from_path(csv.join(format!("{table}.csv"))).unwrap();
        out.write_record(&names).unwrap();
        let mut rows = stmt.query([]).unwrap();
        while let Some(row) = rows.next().unwrap() {
            let values: Vec<String> = (0..names.len()).map(|i| match row.get_ref(i).unwrap() {
                rusqlite::types::ValueRef::Integer(n) => n.to_string(),
                rusqlite::types::ValueRef::Text(t) => String::from_utf8(t.to_vec()).unwrap(),
                other => panic!("{other:?}"),
            }).collect();
            out.write_record(&values).unwrap();
        }
    }
    let one = write(dir.path(), "one.jsonl", format!("{}\n", json!({"id": "a", "claim": format!("In 2023 the cities of Ohio recorded {ohio} homicides in all."), "db_id": "crime"})));
    let model = fake_model(2, play);
    verify_db(&model.url, &one, &csv, dir.path()).success();
    assert_eq!(predictions(dir.path())["a"]["label"], "True", "the CSV folder gives the same sum");
    // A folder of databases, each claim picking its own by db_id (BIRD's layout).
    let by_id = dir.path().join("dbs");
    std::fs::create_dir_all(by_id.join("crime")).unwrap();
    std::fs::copy(&database, by_id.join("crime/crime.sqlite")).unwrap();
    let model = fake_model(2, play);
    verify_db(&model.url, &one, &by_id, dir.path()).success();
    assert_eq!(predictions(dir.path())["a"]["label"], "True");
    let elsewhere = write(dir.path(), "elsewhere.jsonl", "{\"id\": \"b\", \"claim\": \"x\", \"db_id\": \"budget\"}\n");
    verify_db(&closed_url(), &elsewhere, &by_id, dir.path()).code(1).stderr(contains("no database \"budget\": neither")).stderr(contains("dbs/budget/budget.sqlite"));
    let unnamed = write(dir.path(), "unnamed.jsonl", "{\"id\": \"b\", \"claim\": \"x\"}\n");
    verify_db(&closed_url(), &unnamed, &by_id, dir.path()).code(1).stderr(contains("is a folder of databases, and the claim names none"));
    verify_db(&closed_url(), &one, &one, dir.path()).code(1).stderr(contains("one.jsonl: not a SQLite database"));
    quantir().args(["verify", "--verifier", "trained:x", "--claims"]).arg(&one).arg("--database").arg(&database).arg("--output").arg(dir.path().join("p.jsonl")).assert().code(1).stderr(contains("--database needs an llm:MODEL verifier"));
    let bad_csv = dir.path().join("bad-csv");
    std::fs::create_dir(&bad_csv).unwrap();
    write(&bad_csv, "t.csv", "a,b\n1,2\n3\n");
    verify_db(&closed_url(), &one, &bad_csv, dir.path()).code(1).stderr(contains("t.csv:3:"));
    // Issue 37 (class 5): databases by db_id with one stray .csv beside them were read as one
    // database of that CSV, every db_id ignored. Both readings are named, and nothing is guessed.
    write(&by_id, "stray.csv", "a,b\n1,2\n");
    verify_db(&closed_url(), &one, &by_id, dir.path())
        .code(1)
        .stderr(contains("one database of the tables in its .csv files (stray.csv)"))
        .stderr(contains("databases picked by each claim's db_id (crime/crime.sqlite)"))
        .stderr(contains("hint: keep the .csv files and the databases by id in separate folders"));
}

/// The four locks and the timeout, without a model: no statement changes the file, a runaway
/// query is interrupted.
#[test]
fn no_statement_modifies_the_database() {
    use quantir::verify::evidence::sql::{DatabaseSource, SqlLimits, SqlOutcome};
    let dir = tempfile::tempdir().unwrap();
    let (database, ohio) = crime_database(dir.path());
    let before = sha256(&database);
    let limits = SqlLimits { timeout: std::time::Duration::from_millis(300), max_rows: 3, max_cell_chars: 5 };
    let db = DatabaseSource::open(&database, limits).unwrap().connect(None).unwrap();
    let writes = [
        "DELETE FROM homicides",
        "INSERT INTO cities VALUES (999, 'x', 'y')",
        "UPDATE population SET people = 0",
        "DROP TABLE incidents",
        "CREATE TABLE t (x)",
        "CREATE TEMP TABLE t (x)",
        "ALTER TABLE cities ADD COLUMN z",
        "CREATE INDEX i ON cities(name)",
        "ATTACH DATABASE 'other.sqlite' AS other",
        "PRAGMA query_only = OFF",
        "PRAGMA writable_schema = ON",
        "VACUUM",
        "VACUUM INTO 'copy.sqlite'",
        "REINDEX",
        "ANALYZE",
        "BEGIN IMMEDIATE",
        "SELECT 1; DELETE FROM cities",
    ];
    for sql in writes {
        assert!(matches!(db.execute(sql), SqlOutcome::Refused { .. }), "{sql} was not refused: {:?}", db.execute(sql));
    }
    assert_eq!(sha256(&database), before);
    assert!(!dir.path().join("copy.sqlite").exists());
    assert!(matches!(db.execute(RUNAWAY), SqlOutcome::TimedOut { .. }));
    // Reading still works after a timeout, under the row and cell caps.
    assert_eq!(db.execute(SUM_OHIO), SqlOutcome::Rows { columns: vec!["SUM(h.count)".into()], rows: vec![vec![json!(ohio)]], truncated: false });
    let SqlOutcome::Rows { rows, truncated, .. } = db.execute("SELECT name FROM cities ORDER BY id") else { panic!() };
    assert_eq!((rows.len(), truncated), (3, true));
    assert_eq!(rows[0][0], "City …");
    assert!(matches!(db.execute("SELECT nope FROM cities"), SqlOutcome::Error { .. }));
    assert!(matches!(db.execute("PRAGMA table_info(cities)"), SqlOutcome::Rows { .. }), "schema pragmas are reading");
    assert!(db.schema().unwrap().contains("CREATE TABLE homicides"));
}
