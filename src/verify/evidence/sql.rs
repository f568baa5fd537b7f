//! Databases as evidence: read-only SQLite connections for the database agent ([`crate::verify::agent`]).
//!
//! In: `verify --database PATH`, one of
//!
//! | PATH | what it is | which database a claim gets |
//! |---|---|---|
//! | a file | a SQLite database | that one, for every claim |
//! | a folder holding `*.csv` files | one table per file (named by its stem, columns by its header, each column INTEGER, REAL or TEXT as all its values allow without losing a digit — an integer beyond i64, or beyond 2^53 among reals, keeps its column TEXT; empty cells are NULL), loaded once into an in-memory SQLite | that one, for every claim |
//! | any other folder | databases by id, BIRD's and ClaimDB's layout | the claim's `db_id`: `PATH/<db_id>/<db_id>.sqlite`, else `PATH/<db_id>.sqlite` |
//!
//! A folder that holds both `.csv` files and databases by id (`*.sqlite` files or folders holding
//! them) could be read either way: it is refused with both readings named, never guessed.
//!
//! Out: [`SqlOutcome`]s for the model's statements.
//!
//! **Nothing can modify the database**, by four independent locks: the file is opened read-only
//! (`SQLITE_OPEN_READONLY`); `PRAGMA query_only` is on; no database can be attached
//! (`SQLITE_LIMIT_ATTACHED` 0); and an authorizer allows only reading (SELECT, reading columns,
//! functions, recursive CTEs and the read-only schema pragmas `table_info`, `table_xinfo`,
//! `index_list`, `index_info`, `foreign_key_list`), so a write is refused when it is prepared.
//! A statement that is not read-only by SQLite's own account (`sqlite3_stmt_readonly`) is refused
//! too. **Work is bounded**: one statement per call, a wall-clock timeout per statement (a
//! progress handler interrupts it), at most `max_rows` rows and `max_cell_chars` characters per
//! cell returned.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use crate::error::{Error, Result};

/// Limits on each statement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SqlLimits {
    /// Wall-clock time a statement may run.
    pub timeout: Duration,
    /// Rows returned (the rest are counted as cut).
    pub max_rows: usize,
    /// Characters kept of a text cell.
    pub max_cell_chars: usize,
}

impl Default for SqlLimits {
    /// 10 s, 50 rows, 200 characters: enough for aggregates and short listings, small enough
    /// that 20 results fit a model's context.
    fn default() -> Self {
        SqlLimits { timeout: Duration::from_secs(10), max_rows: 50, max_cell_chars: 200 }
    }
}

/// What a statement gave.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum SqlOutcome {
    /// The statement ran.
    Rows {
        /// Column names.
        columns: Vec<String>,
        /// At most `max_rows` rows.
        rows: Vec<Vec<Value>>,
        /// Whether more rows were cut.
        truncated: bool,
    },
    /// The statement was refused before it ran (a write, several statements).
    Refused {
        /// Why.
        reason: String,
    },
    /// SQLite rejected or failed the statement (a syntax error, an unknown column).
    Error {
        /// SQLite's message.
        message: String,
    },
    /// The statement ran past the timeout and was interrupted.
    TimedOut {
        /// The timeout, in seconds.
        seconds: f64,
    },
}

impl SqlOutcome {
    /// The tool result sent back to the model: this outcome as JSON.
    pub fn to_tool_result(&self) -> String {
        serde_json::to_string(self).expect("outcome serialises")
    }
}

/// Where the databases come from (module doc), opened once per run.
pub struct DatabaseSource {
    kind: SourceKind,
    limits: SqlLimits,
}

enum SourceKind {
    File(PathBuf),
    /// A shared-cache in-memory database by URI, kept alive by the loading connection.
    Memory { uri: String, _keeper: Mutex<Connection> },
    Folder(PathBuf),
}

fn sql_error(path: &Path, e: rusqlite::Error) -> Error {
    Error::Sqlite { database: path.display().to_string(), message: e.to_string() }
}

/// Quotes an SQL identifier.
fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

impl DatabaseSource {
    /// Opens `path` (module doc) with `limits` for every statement.
    pub fn open(path: &Path, limits: SqlLimits) -> Result<DatabaseSource> {
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        let kind = if meta.is_file() {
            SourceKind::File(path.to_path_buf())
        } else {
            let mut csvs: Vec<PathBuf> = std::fs::read_dir(path).map_err(|e| Error::io(path, e))?.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("csv"))).collect();
            csvs.sort();
            let databases = databases_by_id(path)?;
            if !csvs.is_empty() && !databases.is_empty() {
                let list = |names: Vec<String>| {
                    let mut shown: Vec<String> = names.iter().take(3).cloned().collect();
                    if names.len() > 3 {
                        shown.push(format!("… {} in all", names.len()));
                    }
                    shown.join(", ")
                };
                let csv_names = csvs.iter().filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())).collect();
                return Err(Error::Ambiguous {
                    path: path.to_path_buf(),
                    readings: vec![format!("one database of the tables in its .csv files ({}), the same for every claim", list(csv_names)), format!("databases picked by each claim's db_id ({})", list(databases))],
                    hint: "keep the .csv files and the databases by id in separate folders, and pass the one meant".into(),
                });
            }
            if csvs.is_empty() {
                SourceKind::Folder(path.to_path_buf())
            } else {
                static NEXT: AtomicU64 = AtomicU64::new(0);
                let uri = format!("file:quantir-csv-{}-{}?mode=memory&cache=shared", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
                let keeper = Connection::open_with_flags(&uri, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_URI).map_err(|e| sql_error(path, e))?;
                for csv in &csvs {
                    load_csv(&keeper, csv)?;
                }
                SourceKind::Memory { uri, _keeper: Mutex::new(keeper) }
            }
        };
        Ok(DatabaseSource { kind, limits })
    }

    /// A read-only connection to the database for a claim naming `db_id` (or none).
    pub fn connect(&self, db_id: Option<&str>) -> Result<Database> {
        let read_only = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let (conn, name) = match &self.kind {
            SourceKind::File(path) => (open_file(path, read_only)?, path.display().to_string()),
            SourceKind::Memory { uri, .. } => (Connection::open_with_flags(uri, read_only).map_err(|e| sql_error(Path::new(uri), e))?, uri.clone()),
            SourceKind::Folder(dir) => {
                let id = db_id.ok_or_else(|| Error::InvalidArgument { name: "database", message: format!("{} is a folder of databases, and the claim names none\n\nhint: give each claim a \"db_id\", or pass one .sqlite file or a folder of .csv files", dir.display()) })?;
                if id.is_empty() || id.contains(['/', '\\']) || id.starts_with('.') {
                    return Err(Error::InvalidArgument { name: "database", message: format!("db_id {id:?} is not a database name") });
                }
                let candidates = [dir.join(id).join(format!("{id}.sqlite")), dir.join(format!("{id}.sqlite"))];
                let path = candidates.iter().find(|p| p.is_file()).ok_or_else(|| Error::InvalidArgument {
                    name: "database",
                    message: format!("no database {id:?}: neither {} nor {} exists", candidates[0].display(), candidates[1].display()),
                })?;
                (open_file(path, read_only)?, path.display().to_string())
            }
        };
        Database::guard(conn, name, self.limits)
    }
}

/// The databases by id a folder holds (module doc): `*.sqlite` files and folders holding
/// `<name>/<name>.sqlite`, by name.
fn databases_by_id(dir: &Path) -> Result<Vec<String>> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_file() && path.extension().is_some_and(|x| x.eq_ignore_ascii_case("sqlite")) {
            found.push(name);
        } else if path.join(format!("{name}.sqlite")).is_file() {
            found.push(format!("{name}/{name}.sqlite"));
        }
    }
    found.sort();
    Ok(found)
}

fn open_file(path: &Path, flags: OpenFlags) -> Result<Connection> {
    let mut header = [0u8; 16];
    let ok = std::fs::File::open(path).and_then(|mut f| std::io::Read::read_exact(&mut f, &mut header)).is_ok() && &header == b"SQLite format 3\0";
    if !ok {
        return Err(Error::InvalidArgument { name: "database", message: format!("{}: not a SQLite database\n\nhint: pass a .sqlite file, a folder of .csv files or a folder of databases by db_id", path.display()) });
    }
    Connection::open_with_flags(path, flags).map_err(|e| sql_error(path, e))
}

/// The SQL type all of a column's non-empty values allow without losing a digit: INTEGER when
/// every value is an i64; REAL when every value is a finite number and every integer among them
/// is exact as a double (at most 2^53); TEXT otherwise, so an integer beyond i64 (or beyond 2^53
/// beside reals) keeps the digits it was written with.
fn column_type(values: impl Iterator<Item = String>) -> &'static str {
    const EXACT_IN_F64: u64 = 1 << 53;
    let written_as_integer = |v: &str| {
        let digits = v.strip_prefix(['-', '+']).unwrap_or(v);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    let (mut integer, mut real) = (true, true);
    for v in values.filter(|v| !v.is_empty()) {
        integer &= v.parse::<i64>().is_ok();
        let exact = !written_as_integer(&v) || v.parse::<i64>().is_ok_and(|i| i.unsigned_abs() <= EXACT_IN_F64);
        real &= exact && v.parse::<f64>().is_ok_and(f64::is_finite);
    }
    if integer {
        "INTEGER"
    } else if real {
        "REAL"
    } else {
        "TEXT"
    }
}

fn load_csv(conn: &Connection, path: &Path) -> Result<()> {
    let bad = |e: csv::Error| {
        let line = e.position().map_or(1, |p| p.line() as usize);
        Error::Malformed { path: path.to_path_buf(), at: crate::error::Position { line, column: None }, message: e.to_string() }
    };
    let mut reader = csv::ReaderBuilder::new().flexible(false).from_path(path).map_err(bad)?;
    let header: Vec<String> = reader.headers().map_err(bad)?.iter().map(str::to_string).collect();
    let records: Vec<csv::StringRecord> = reader.records().collect::<std::result::Result<_, _>>().map_err(bad)?;
    let types: Vec<&str> = (0..header.len()).map(|c| column_type(records.iter().map(|r| r[c].trim().to_string()))).collect();
    let table = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let columns: Vec<String> = header.iter().zip(&types).map(|(h, t)| format!("{} {t}", ident(h))).collect();
    let failed = |e: rusqlite::Error| sql_error(path, e);
    conn.execute_batch(&format!("CREATE TABLE {} ({});", ident(&table), columns.join(", "))).map_err(failed)?;
    let tx = conn.unchecked_transaction().map_err(failed)?;
    {
        let placeholders = vec!["?"; header.len()].join(", ");
        let mut insert = tx.prepare(&format!("INSERT INTO {} VALUES ({placeholders})", ident(&table))).map_err(failed)?;
        for record in &records {
            let values: Vec<rusqlite::types::Value> = record
                .iter()
                .zip(&types)
                .map(|(v, t)| {
                    let v = v.trim();
                    match (*t, v.is_empty()) {
                        (_, true) => rusqlite::types::Value::Null,
                        ("INTEGER", _) => rusqlite::types::Value::Integer(v.parse().expect("checked integer")),
                        ("REAL", _) => rusqlite::types::Value::Real(v.parse().expect("checked real")),
                        _ => rusqlite::types::Value::Text(v.to_string()),
                    }
                })
                .collect();
            insert.execute(rusqlite::params_from_iter(values)).map_err(failed)?;
        }
    }
    tx.commit().map_err(failed)
}

/// The only actions a statement may take (module doc).
fn authorize(context: AuthContext<'_>) -> Authorization {
    match context.action {
        AuthAction::Select | AuthAction::Read { .. } | AuthAction::Function { .. } | AuthAction::Recursive => Authorization::Allow,
        AuthAction::Pragma { pragma_name: "table_info" | "table_xinfo" | "index_list" | "index_info" | "foreign_key_list", pragma_value: _ } => Authorization::Allow,
        _ => Authorization::Deny,
    }
}

/// A read-only connection with its limits.
pub struct Database {
    conn: Connection,
    name: String,
    limits: SqlLimits,
    /// When the running statement must stop: microseconds after `epoch`.
    deadline: Arc<AtomicU64>,
    epoch: Instant,
}

impl Database {
    fn guard(mut conn: Connection, name: String, limits: SqlLimits) -> Result<Database> {
        let failed = |e: rusqlite::Error| Error::Sqlite { database: name.clone(), message: e.to_string() };
        conn.pragma_update(None, "query_only", true).map_err(failed)?;
        conn.set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_ATTACHED, 0).map_err(failed)?;
        conn.authorizer(Some(authorize)).map_err(failed)?;
        let (deadline, epoch) = (Arc::new(AtomicU64::new(u64::MAX)), Instant::now());
        let watched = deadline.clone();
        conn.progress_handler(1000, Some(move || epoch.elapsed().as_micros() as u64 > watched.load(Ordering::Relaxed))).map_err(failed)?;
        Ok(Database { conn, name, limits, deadline, epoch })
    }

    /// Where the database is (a path or an in-memory URI).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The schema given to the model up front: every table's and view's `CREATE` statement.
    pub fn schema(&self) -> Result<String> {
        let failed = |e: rusqlite::Error| Error::Sqlite { database: self.name.clone(), message: e.to_string() };
        let mut stmt = self.conn.prepare("SELECT sql FROM sqlite_master WHERE type IN ('table', 'view') AND sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY name").map_err(failed)?;
        let statements = stmt.query_map([], |row| row.get::<_, String>(0)).map_err(failed)?.collect::<std::result::Result<Vec<_>, _>>().map_err(failed)?;
        Ok(statements.into_iter().map(|s| format!("{s};")).collect::<Vec<_>>().join("\n"))
    }

    /// Runs one statement under the limits.
    pub fn execute(&self, sql: &str) -> SqlOutcome {
        let refused = |reason: &str| SqlOutcome::Refused { reason: reason.to_string() };
        let mut stmt = match self.conn.prepare(sql) {
            Ok(stmt) => stmt,
            Err(rusqlite::Error::MultipleStatement) => return refused("one statement per call"),
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::AuthorizationForStatementDenied) => return refused("only reading is allowed: the database is read-only"),
            Err(e) => return SqlOutcome::Error { message: e.to_string() },
        };
        if !stmt.readonly() {
            return refused("only reading is allowed: the database is read-only");
        }
        let columns: Vec<String> = stmt.column_names().map(str::to_string).collect();
        self.deadline.store((self.epoch.elapsed() + self.limits.timeout).as_micros() as u64, Ordering::Relaxed);
        let outcome = (|| {
            let mut rows = stmt.query([])?;
            let (mut out, mut truncated) = (Vec::new(), false);
            while let Some(row) = rows.next()? {
                if out.len() == self.limits.max_rows {
                    truncated = true;
                    break;
                }
                out.push((0..columns.len()).map(|i| row.get_ref(i).map(|v| self.json(v))).collect::<rusqlite::Result<Vec<_>>>()?);
            }
            Ok::<_, rusqlite::Error>((out, truncated))
        })();
        self.deadline.store(u64::MAX, Ordering::Relaxed);
        match outcome {
            Ok((rows, truncated)) => SqlOutcome::Rows { columns, rows, truncated },
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::OperationInterrupted) => SqlOutcome::TimedOut { seconds: self.limits.timeout.as_secs_f64() },
            Err(e) => SqlOutcome::Error { message: e.to_string() },
        }
    }

    fn json(&self, value: rusqlite::types::ValueRef<'_>) -> Value {
        use rusqlite::types::ValueRef;
        match value {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(i) => Value::from(i),
            ValueRef::Real(r) => serde_json::Number::from_f64(r).map_or_else(|| Value::String(r.to_string()), Value::Number),
            ValueRef::Text(t) => {
                let text = String::from_utf8_lossy(t);
                let mut kept: String = text.chars().take(self.limits.max_cell_chars).collect();
                if kept.len() < text.len() {
                    kept.push('…');
                }
                Value::String(kept)
            }
            ValueRef::Blob(b) => Value::String(format!("<blob of {} bytes>", b.len())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_types() {
        assert_eq!(column_type(["1", "", "-3"].map(String::from).into_iter()), "INTEGER");
        assert_eq!(column_type(["1", "2.5"].map(String::from).into_iter()), "REAL");
        assert_eq!(column_type(["1", "n/a"].map(String::from).into_iter()), "TEXT");
        assert_eq!(column_type(["inf"].map(String::from).into_iter()), "TEXT");
        // Issue 37: an integer beyond i64 became a REAL, losing its last digits.
        assert_eq!(column_type(["1", "92233720368547758070"].map(String::from).into_iter()), "TEXT");
        assert_eq!(column_type(["9223372036854775807", "-9223372036854775808"].map(String::from).into_iter()), "INTEGER");
        assert_eq!(column_type(["0.5", "9007199254740993"].map(String::from).into_iter()), "TEXT", "2^53 + 1 is not a double");
        assert_eq!(column_type(["0.5", "9007199254740992"].map(String::from).into_iter()), "REAL");
    }

    #[test]
    fn identifiers_are_quoted() {
        assert_eq!(ident("a\"b"), "\"a\"\"b\"");
    }
}
