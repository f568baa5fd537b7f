//! The library's one error type.
//!
//! Variants carry the facts (file, line, column, field, what was expected and what was found) rather
//! than preformatted strings, so the CLI and the HTTP server can render them for their own users.
//! Messages are lowercase, name the place in `file:line:col` form and, where a command fixes the
//! problem, end with a blank line and a `hint:`.

use std::path::PathBuf;

/// `Result` with quantir's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Where in an input file something was found: 1-based line, and 1-based column when known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// 1-based line number.
    pub line: usize,
    /// 1-based column (in characters) when the format has one worth naming (JSON spanning lines).
    pub column: Option<usize>,
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.column {
            Some(column) => write!(f, "{}:{}", self.line, column),
            None => write!(f, "{}", self.line),
        }
    }
}

/// Everything that can go wrong in quantir's library.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An operating-system error on a named file or folder.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder being read or written.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },

    /// A record is valid JSON/TSV but a field does not hold what it must.
    #[error("{}:{at}: field \"{field}\": expected {expected}, found {found}", path.display())]
    Parse {
        /// The input file.
        path: PathBuf,
        /// Where the record (or the field) starts.
        at: Position,
        /// The field's name as written in the input format.
        field: String,
        /// What the field must hold.
        expected: String,
        /// What it held (shortened when long).
        found: String,
    },

    /// The text is not well-formed JSON (or a line of TSV has the wrong shape).
    #[error("{}:{at}: {message}", path.display())]
    Malformed {
        /// The input file.
        path: PathBuf,
        /// Where the parser stopped.
        at: Position,
        /// The parser's explanation.
        message: String,
    },

    /// The input is not UTF-8.
    #[error("{}:{at}: invalid UTF-8 (byte offset {byte_offset} in the file)", path.display())]
    NotUtf8 {
        /// The input file.
        path: PathBuf,
        /// The first invalid byte.
        at: Position,
        /// Its offset from the start of the file.
        byte_offset: usize,
    },

    /// Two records share an id.
    #[error("{}:{line}: duplicate id \"{id}\" (first at line {first_line})", path.display())]
    DuplicateId {
        /// The input file.
        path: PathBuf,
        /// The repeated id.
        id: String,
        /// The line of its first occurrence.
        first_line: usize,
        /// The line of the repeat.
        line: usize,
    },

    /// The layout of an input could not be recognised.
    #[error("{}: cannot tell the format: {why}\n\nhint: name it with --format {choices}", path.display())]
    UnknownFormat {
        /// The input path.
        path: PathBuf,
        /// What was seen.
        why: String,
        /// The accepted `--format` values.
        choices: String,
    },

    /// A QuanTemp++ folder given where one claims file is read: its claims are split over
    /// several files (test, val, train), and which to run is the caller's choice.
    #[error("{}: a QuanTemp++ folder, whose claims are split over {}: name the one to read\n\nhint: --claims {}", path.display(), splits.join(", "), suggestion.display())]
    SplitClaims {
        /// The folder.
        path: PathBuf,
        /// The split files it holds (`test.json`, …).
        splits: Vec<String>,
        /// The first of them, as a path to pass.
        suggestion: PathBuf,
    },

    /// An index was built by an incompatible quantir (format or analyzer version).
    #[error(
        "{}: incompatible index: {what} is {found}, this quantir reads {supported}\n\nhint: rebuild it with `quantir index --corpus <CORPUS> --index {}`",
        path.display(), path.display()
    )]
    IncompatibleIndex {
        /// The index folder.
        path: PathBuf,
        /// Which version is off (`format_version`, `analyzer_version`).
        what: &'static str,
        /// The version found in the manifest.
        found: String,
        /// The version this build supports.
        supported: String,
    },

    /// The folder is not a quantir index (no manifest).
    #[error("{}: not a quantir index (no manifest.json)\n\nhint: build one with `quantir index --corpus <CORPUS> --index {}`", path.display(), path.display())]
    NotAnIndex {
        /// The folder given as index.
        path: PathBuf,
    },

    /// An error from tantivy, with the index it concerns.
    #[error("{}: tantivy: {source}", path.display())]
    Tantivy {
        /// The index folder.
        path: PathBuf,
        /// The underlying error.
        source: tantivy::TantivyError,
    },

    /// `quantir index` was pointed at something that is not an index and not empty.
    #[error("{}: {what}; quantir index replaces only a folder that holds a quantir index, or an empty one\n\nhint: choose another --index folder (nothing was changed)", path.display())]
    NotAnIndexTarget {
        /// The `--index` path.
        path: PathBuf,
        /// What it is.
        what: String,
    },

    /// The model found for an index's dense vectors is not the one they were made with.
    #[error(
        "{}: this is not the model {} was built with (model sha256 {found}, the index records {expected})\n\nhint: name the right model folder with --dense DIR, or rebuild the index with this model (`quantir index --corpus <CORPUS> --index {} --dense <MODEL_DIR>`)",
        model.display(), index.display(), index.display()
    )]
    ModelMismatch {
        /// The index folder.
        index: PathBuf,
        /// The model file found.
        model: PathBuf,
        /// Its sha256.
        found: String,
        /// The sha256 the index records.
        expected: String,
    },

    /// A value given in memory (through the Python API) is not what it must be. `at` names it
    /// as the caller wrote it: `claims[3]["date"]`, `run["q1"]["d7"]`.
    #[error("{at}: expected {expected}, found {found}")]
    Value {
        /// Where the value is, in the caller's terms.
        at: String,
        /// What it must be.
        expected: String,
        /// What it was (shortened when long).
        found: String,
    },

    /// No node of an OpenSearch cluster answered, after the retries.
    #[error("cannot reach OpenSearch at {urls}: {message}\n\nhint: check --opensearch-url (or QUANTIR_OPENSEARCH_URL); to try the backend locally, start a cluster with `scripts/opensearch_cluster.sh start`")]
    OpenSearchUnreachable {
        /// The nodes tried.
        urls: String,
        /// What went wrong.
        message: String,
    },

    /// The cluster refused the credentials.
    #[error("OpenSearch at {url} refused the credentials (HTTP {status})\n\nhint: check --opensearch-user and --opensearch-password (or QUANTIR_OPENSEARCH_USER / QUANTIR_OPENSEARCH_PASSWORD)")]
    OpenSearchAuth {
        /// The nodes asked.
        url: String,
        /// The HTTP status.
        status: u16,
    },

    /// The index (alias) named does not exist on the cluster.
    #[error("OpenSearch at {url} has no quantir index \"{index}\"\n\nhint: build it with `quantir index --corpus <CORPUS> --backend opensearch --opensearch-index {index}`")]
    OpenSearchIndexMissing {
        /// The nodes asked.
        url: String,
        /// The index or alias name.
        index: String,
    },

    /// An OpenSearch index quantir cannot search as it is: another analyzer version, not built
    /// by quantir, a load that did not finish.
    #[error("OpenSearch index \"{index}\": {what} is {found}, this quantir needs {supported}\n\nhint: rebuild it with `quantir index --corpus <CORPUS> --backend opensearch --opensearch-index {index}`")]
    OpenSearchIncompatible {
        /// The index or alias name.
        index: String,
        /// What does not match.
        what: &'static str,
        /// What the cluster has.
        found: String,
        /// What quantir needs.
        supported: String,
    },

    /// A request the cluster answered with an error that retrying does not mend.
    #[error("OpenSearch {action} failed (HTTP {status}): {message}")]
    OpenSearch {
        /// The request, in words.
        action: String,
        /// The HTTP status.
        status: u16,
        /// What went wrong.
        message: String,
    },

    /// Documents the cluster refused during a load: reported, never dropped; the alias was not
    /// moved, so searches still see the previous index.
    #[error("OpenSearch refused {failed} documents while loading \"{index}\" (the alias still names the previous index); first: {examples}\n\nhint: fix those records and run the same `quantir index` again: it resumes")]
    OpenSearchDocuments {
        /// The index or alias name.
        index: String,
        /// How many documents.
        failed: usize,
        /// The first few, with their reasons.
        examples: String,
    },

    /// An argument is out of its range or inconsistent with another.
    #[error("invalid {name}: {message}")]
    InvalidArgument {
        /// The option, as the user writes it (`--k1`).
        name: &'static str,
        /// What is wrong.
        message: String,
    },
}

impl Error {
    /// An [`Error::Io`] for `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io { path: path.into(), source }
    }

    /// An [`Error::Tantivy`] for the index at `path`.
    pub fn tantivy(path: impl Into<PathBuf>, source: tantivy::TantivyError) -> Self {
        Error::Tantivy { path: path.into(), source }
    }
}

/// Shortens a found value for an error message, keeping it on one line.
pub fn shorten(found: &str) -> String {
    const MAX_CHARS: usize = 60;
    let one_line: String = found.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    if one_line.chars().count() <= MAX_CHARS {
        format!("{one_line:?}")
    } else {
        let head: String = one_line.chars().take(MAX_CHARS).collect();
        format!("{head:?}…")
    }
}
