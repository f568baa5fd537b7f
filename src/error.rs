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

    /// A record longer than a reader takes (`--max-record-mib`): an input that never ends a
    /// record (`/dev/zero`) costs that much memory and no more.
    #[error("{}:{at}: a record of more than {max_bytes} bytes starts here, the most quantir reads (--max-record-mib {})\n\nhint: check that this is a file of records; if a record really is that long, raise --max-record-mib", path.display(), max_bytes.div_ceil(1 << 20))]
    RecordTooLong {
        /// The input file.
        path: PathBuf,
        /// Where the record starts.
        at: Position,
        /// The most a record may hold.
        max_bytes: u64,
    },

    /// A stream (a pipe, a device) longer than quantir reads whole.
    #[error("{}: more than {max_bytes} bytes read from a stream (not a regular file), the most quantir reads whole\n\nhint: save the input to a file and pass the file", path.display())]
    StreamTooLong {
        /// The input.
        path: PathBuf,
        /// The most read.
        max_bytes: u64,
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

    /// A document loaded into OpenSearch with vectors from an embedded index that does not hold
    /// it as the corpus has it: the vectors were made from another corpus.
    #[error("{}: cannot take document \"{id}\"'s vector from it: {why}\n\nhint: build the embedded index from the same corpus (`quantir index --corpus … --index {} --dense MODEL`) and load again", index.display(), index.display())]
    VectorsMismatch {
        /// The embedded index named by `--vectors-from`.
        index: PathBuf,
        /// The document.
        id: String,
        /// What differs.
        why: String,
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

    /// A file of an index generation is not what the build wrote: refused before any search,
    /// never answered from.
    #[error("{}: damaged index file: {damage}\n\nhint: rebuild the index with `quantir index --corpus <CORPUS> --index {}`; `quantir check --index {}` lists every damaged file", file.display(), index.display(), index.display())]
    IndexDamaged {
        /// The index folder.
        index: PathBuf,
        /// The damaged file.
        file: PathBuf,
        /// What is wrong with it.
        damage: Damage,
    },

    /// Another build is writing a new generation of the index.
    #[error("{}: another `quantir index` is writing a new generation of this index\n\nhint: wait for it to finish and run the command again (nothing was changed)", path.display())]
    IndexBusy {
        /// The index folder.
        path: PathBuf,
    },

    /// A hit published on or after its search's cutoff: the defence behind the cutoff found
    /// evidence the claim could not have seen, which only a damaged index or a bug can produce.
    #[error("{}: document \"{id}\" (dated {date}) was retrieved for a search of evidence published before {before}; quantir refuses to return evidence from on or after a claim's date\n\nhint: check the index with `quantir check --index {}` and rebuild it with `quantir index --corpus <CORPUS> --index {}`", index.display(), index.display(), index.display())]
    CutoffViolation {
        /// The index searched.
        index: PathBuf,
        /// The document's id.
        id: String,
        /// Its date, as stored (or "undated").
        date: String,
        /// The cutoff.
        before: String,
    },

    /// An input holds nothing to work on: a corpus without documents, a claims file without
    /// claims, qrels without judgments. Never scored as zeros.
    #[error("{}: {what}\n\nhint: {hint}", path.display())]
    Empty {
        /// The input.
        path: PathBuf,
        /// What it lacks, in the user's terms.
        what: String,
        /// What to do.
        hint: String,
    },

    /// An artifact an earlier run left where this one would write was made from other inputs or
    /// settings, and `--resume strict` refuses to make it again.
    #[error("{}: {why}\n\nhint: run without --resume strict to make it again with these inputs and settings, or choose another --output (nothing was changed)", path.display())]
    StaleArtifact {
        /// The artifact.
        path: PathBuf,
        /// How it differs (provenance's words).
        why: String,
    },

    /// A file of a folder artifact quantir wrote (a trained verifier, a stance model) is not the
    /// one its provenance record says was written: refused before anything is judged with it.
    #[error("{}: {damage}\n\nhint: {}", file.display(), remake(*artifact))]
    ArtifactDamaged {
        /// The file.
        file: PathBuf,
        /// What is wrong with it.
        damage: Damage,
        /// The kind of folder it belongs to.
        artifact: crate::provenance::Artifact,
    },

    /// The folder is not a quantir index (no manifest).
    #[error("{}: not a quantir index (no CURRENT file naming a generation)\n\nhint: build one with `quantir index --corpus <CORPUS> --index {}`", path.display(), path.display())]
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

    /// An update would encode its new documents differently from how the index's vectors were
    /// encoded (another model build, runtime or machine, or an encoder whose vectors depend on
    /// the passages batched together): the updated index would not equal a rebuild.
    #[error(
        "{}: encoding document {id} again gives another vector than the index holds (cosine {cosine:.6})\n\nhint: the encoder or its runtime is not the one the vectors were made with, so an update cannot equal a rebuild; rebuild the index (`quantir index --corpus <CORPUS> --index {} --dense <MODEL_DIR>`) (nothing was changed)",
        index.display(), index.display()
    )]
    VectorsDiffer {
        /// The index folder.
        index: PathBuf,
        /// A document whose stored vector was not reproduced.
        id: String,
        /// The cosine between the stored and the new vector.
        cosine: f32,
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

    /// The encoder cannot run on the GPU with this ONNX Runtime (`--device cuda`).
    #[error("cannot encode on the GPU (--device cuda) with the ONNX Runtime at {}: {why}\n\nhint: install the GPU runtime from PyPI with scripts/setup_gpu.sh and pass the library it prints (--ort-lib …/onnxruntime-gpu/libonnxruntime.so); or encode on the CPU (--device cpu; --device auto falls back to it by itself)", runtime.display())]
    Accelerator {
        /// The ONNX Runtime library.
        runtime: PathBuf,
        /// What failed.
        why: String,
    },

    /// Dense or hybrid retrieval asked of an OpenSearch index loaded without vectors.
    #[error("OpenSearch index {index} holds no vectors\n\nhint: load it with vectors from an embedded index of the same corpus built with --dense: `quantir index --corpus … --backend opensearch --opensearch-index {index} --vectors-from DIR`")]
    OpenSearchNoVectors {
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

    /// An input two layouts could describe: refused with both readings named, never guessed.
    #[error("{}: it could be read as {}; quantir does not guess\n\nhint: {hint}", path.display(), readings.join(", or as "))]
    Ambiguous {
        /// The input.
        path: PathBuf,
        /// Each way it could be read, in words.
        readings: Vec<String>,
        /// How to make it unambiguous.
        hint: String,
    },

    /// A count or number outside its range ([`crate::ranges`]).
    #[error("{name}: expected {}, found {found}", match max { Some(max) => format!("{min} to {max}"), None => format!("at least {min}") })]
    Range {
        /// The setting, as users name it (`threads`, `k`, `top`).
        name: &'static str,
        /// The least value allowed.
        min: String,
        /// The greatest value allowed, if there is one.
        max: Option<String>,
        /// The value given.
        found: String,
    },

    /// A named run setting (a Python keyword argument, a field of an API request) with a value of
    /// the wrong kind or outside its closed set ([`crate::engine::RunSettings::set`]).
    #[error("{name}={found}: expected {expected}")]
    Setting {
        /// The setting, as the front ends name it (`fusion`, `mmr_beta`).
        name: String,
        /// The value given, as written (text quoted).
        found: String,
        /// What the setting takes.
        expected: String,
        /// Whether the value is of the wrong kind (a number for a name; Python's `TypeError`)
        /// rather than a wrong value of the right kind (`ValueError`).
        wrong_type: bool,
    },

    /// An OpenAI-compatible chat API did not give an answer.
    #[error("{url}: {failure}")]
    Llm {
        /// The endpoint asked.
        url: String,
        /// What went wrong.
        failure: LlmFailure,
    },

    /// A SQLite database (evidence for `verify --database`) could not be opened or read.
    #[error("{database}: {message}")]
    Sqlite {
        /// The database: its path, or the in-memory URI of one loaded from CSV files.
        database: String,
        /// SQLite's message.
        message: String,
    },

    /// A model's files (its tokenizer, its ONNX graph) could not be loaded or run.
    #[error("{}: {what}: {message}", path.display())]
    Model {
        /// The file or folder.
        path: PathBuf,
        /// What failed: "loading the tokenizer", "tokenizing", "loading the model", "running the model".
        what: &'static str,
        /// The library's message (tokenizers', ONNX Runtime's).
        message: String,
    },

    /// Predictions that do not cover the gold claims one for one.
    #[error("{source_name}: {problem}")]
    Unmatched {
        /// Where the predictions came from (a file, or the argument that held them).
        source_name: String,
        /// How they fail to match.
        problem: Unmatched,
    },

    /// An argument is out of its range or inconsistent with another (or with the index).
    #[error("{name}: {message}")]
    InvalidArgument {
        /// The setting, as the library, Python and the API name it (`k1`, `ort_lib`); the CLI
        /// names its flag beside the message (`--k1`, `--ort-lib`).
        name: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// How predictions fail to cover the gold claims one for one ([`Error::Unmatched`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Unmatched {
    /// Gold claims without a prediction.
    #[error("{missing} of {gold} gold claims have no prediction (e.g. {first:?})")]
    Missing {
        /// How many.
        missing: usize,
        /// Gold claims in all.
        gold: usize,
        /// The first missing id.
        first: String,
    },
    /// Predictions of claims without a gold label.
    #[error("{extra} predictions are for claims with no gold label (e.g. {first:?})")]
    Extra {
        /// How many.
        extra: usize,
        /// The first such id.
        first: String,
    },
    /// A claim predicted twice.
    #[error("claim {id:?} is predicted twice")]
    Twice {
        /// Its id.
        id: String,
    },
    /// No prediction is of a gold claim.
    #[error("no prediction for any gold claim")]
    Nothing,
}

/// Why a chat API gave no answer ([`Error::Llm`]).
#[derive(Debug, Clone, PartialEq)]
pub enum LlmFailure {
    /// `--llm-url` is not an http(s) URL: refused before any request, never retried.
    Url {
        /// What is wrong with it.
        message: String,
    },
    /// No answer within the request's deadline (`--llm-timeout`, retries included).
    Timeout {
        /// The deadline, in seconds.
        seconds: f64,
        /// Attempts made.
        attempts: u32,
    },
    /// No connection could be made, after the retries.
    Connect {
        /// The network's explanation.
        message: String,
        /// Attempts made.
        attempts: u32,
    },
    /// The server answered with an HTTP error.
    Status {
        /// The HTTP status.
        status: u16,
        /// The start of its body.
        body: String,
        /// Attempts made.
        attempts: u32,
    },
    /// The answer is not the JSON the chat API returns.
    Malformed {
        /// What was wrong.
        message: String,
    },
}

impl std::fmt::Display for LlmFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tries = |n: &u32| if *n == 1 { "1 attempt".to_string() } else { format!("{n} attempts") };
        match self {
            LlmFailure::Url { message } => write!(f, "not a chat API URL: {message}\n\nhint: give --llm-url as http://HOST:PORT/v1 (or https://…)"),
            LlmFailure::Timeout { seconds, attempts } => write!(f, "timed out after {seconds} s ({}) with no answer\n\nhint: check that the server is up, or allow more time with --llm-timeout", tries(attempts)),
            LlmFailure::Connect { message, attempts } => write!(f, "could not connect ({}): {message}\n\nhint: check --llm-url and that the server is up", tries(attempts)),
            LlmFailure::Status { status, body, attempts } => write!(f, "HTTP {status} ({}): {body}", tries(attempts)),
            LlmFailure::Malformed { message } => write!(f, "the answer is not a chat completion: {message}"),
        }
    }
}

/// What is wrong with a damaged index file ([`Error::IndexDamaged`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Damage {
    /// The file is gone.
    Missing,
    /// Its length is not the one recorded.
    Size {
        /// Bytes recorded at build time.
        expected: u64,
        /// Bytes found.
        found: u64,
    },
    /// Its bytes are not the ones recorded.
    Content {
        /// The xxh3 recorded at build time.
        expected: String,
        /// The xxh3 of the bytes found.
        found: String,
    },
    /// It does not have the shape its format requires.
    Malformed {
        /// What it must hold.
        expected: String,
    },
    /// It disagrees with another file of the generation.
    Inconsistent {
        /// How.
        what: String,
    },
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Damage::Missing => f.write_str("missing"),
            Damage::Size { expected, found } => write!(f, "{found} bytes, where {expected} were written"),
            Damage::Content { expected, found } => write!(f, "its bytes changed since they were written (xxh3 {found}, {expected} recorded)"),
            Damage::Malformed { expected } => write!(f, "expected {expected}"),
            Damage::Inconsistent { what } => f.write_str(what),
        }
    }
}

/// How to make an artifact of kind `artifact` again ([`Error::ArtifactDamaged`]'s hint).
fn remake(artifact: crate::provenance::Artifact) -> &'static str {
    use crate::provenance::Artifact;
    match artifact {
        Artifact::Verifier => "train it again with `quantir train-verifier` (or restore the folder as a whole): quantir reads a verifier only as it wrote it",
        Artifact::StanceModel => "train it again with `quantir train-stance` (or restore the folder as a whole): quantir reads a stance model only as it wrote it",
        _ => "make it again with the command that wrote it (or restore the folder as a whole)",
    }
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

    /// The setting this error refuses a value of, as the library, Python and the API name it
    /// (`k`, `hybrid_norm`), when it is about one: the API's 400 names it as the field, the CLI
    /// turns it into its flag.
    pub fn setting(&self) -> Option<&str> {
        match self {
            Error::Setting { name, .. } => Some(name),
            Error::Range { name, .. } | Error::InvalidArgument { name, .. } => Some(name),
            _ => None,
        }
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
