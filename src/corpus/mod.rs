//! Evidence documents and claims, read from the formats researchers publish them in.
//!
//! In: a path and a [`Format`] (or [`Format::Auto`]). Out: [`Corpus`] (documents plus a
//! [`LoadSummary`]) or a list of [`Claim`]s.
//!
//! | format | documents | claims |
//! |---|---|---|
//! | `jsonl` | `{"id", "title"?, "text", "date"?, "url"?}` a line | `{"id", "text", "date"?}` a line |
//! | `beir` | folder with `corpus.jsonl` (`_id`, `title`, `text`, `metadata`) | `queries.jsonl` (`_id`, `text`) |
//! | `quantemp` | QuanTemp++ `corpus.json` (or the folder holding it): `{"<id>": {"title", "snippet", "date", "link"/"url", "text"?}}` | `{split}.json`: a list, text in `claim`, date in `published`, id = position |
//!
//! Invariants of what comes out:
//! - ids are unique (a repeat is [`Error::DuplicateId`](crate::Error::DuplicateId) naming both lines);
//! - a document's date is either one of the forms in [`date`] or absent: unparseable dates are
//!   counted as undated, with the first examples kept, never guessed;
//! - documents whose title and text are both empty are skipped and counted;
//! - a claim's date, when given, must parse: a wrong cutoff would silently change results.
//!
//! Reading lines, positions, UTF-8, ids, dates and errors is written once (`load.rs`); each
//! format's file only maps one parsed record to a document or a claim.

mod beir;
pub mod date;
mod detect;
mod fields;
#[cfg(feature = "server")]
pub(crate) use fields::kind as json_kind;
mod jsonl;
mod load;
mod quantemp;

pub use date::{DayNumber, Precision, PubDate};
pub use load::{claims_from, documents_from, load_claims, load_corpus, scan_corpus, stream_corpus, ClaimFields, CorpusScan, CorpusStream, DocumentFields, Documents, InOrder, LoadOptions, Origin, IN_MEMORY_BYTES};

/// The file a claims path names (a BEIR folder's `queries.jsonl`, or the path itself): what a
/// run's provenance digests.
pub fn claims_file(path: &std::path::Path, format: Format) -> crate::Result<std::path::PathBuf> {
    Ok(detect::claims(path, format)?.1)
}

/// A document's passage: what is indexed for BM25, encoded for dense search and read by a verifier
/// as evidence — the title, a space and the text, or the text alone when there is no title. The
/// one place this rule is written.
pub fn passage(title: &str, text: &str) -> String {
    if title.is_empty() {
        return text.to_string();
    }
    let mut passage = String::with_capacity(title.len() + 1 + text.len());
    passage.push_str(title);
    passage.push(' ');
    passage.push_str(text);
    passage
}

/// One evidence document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// The collection's own id (BEIR `_id`, QuanTemp++ key).
    pub id: String,
    /// Title, empty when the collection has none.
    pub title: String,
    /// Body text (for QuanTemp++: the snippet, or `text` when present).
    pub text: String,
    /// Source address, when given.
    pub url: Option<String>,
    /// Publication date, when given in one of the accepted forms.
    pub date: Option<PubDate>,
}

/// One claim to find evidence for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The claim's id (for QuanTemp++ lists, its position in the list, as the qrels key it).
    pub id: String,
    /// The claim as written.
    pub text: String,
    /// When the claim was made: evidence must be published strictly before.
    pub date: Option<PubDate>,
}

/// A loaded evidence collection.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    /// The documents, in file order.
    pub documents: Vec<Document>,
    /// What loading counted.
    pub summary: LoadSummary,
}

impl Corpus {
    /// What identifies the corpus's content in provenance records: the digest of the file it was
    /// read from, or, for documents given in memory, of the documents themselves (each field,
    /// separated, in order).
    pub fn digest(&self) -> crate::io::Digest {
        if let Some(digest) = &self.summary.digest {
            return digest.clone();
        }
        let mut hasher = crate::io::Hasher::default();
        for d in &self.documents {
            let date = d.date.map(|d| d.to_string()).unwrap_or_default();
            for field in [d.id.as_str(), &d.title, &d.text, d.url.as_deref().unwrap_or(""), &date] {
                hasher.update(field.as_bytes());
                hasher.update(&[0]);
            }
            hasher.update(b"\n");
        }
        hasher.finish()
    }
}

/// Counts from loading a collection.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct LoadSummary {
    /// The file the records were read from (inside the folder, for BEIR).
    pub file: std::path::PathBuf,
    /// Records read.
    pub records: usize,
    /// Documents kept.
    pub documents: usize,
    /// Kept documents without a usable date.
    pub undated: usize,
    /// Up to five undated records that had a date field: `(line, the field as found)`.
    pub undated_examples: Vec<(usize, String)>,
    /// Records skipped because their title and text were empty.
    pub skipped_empty: usize,
    /// Undated records with no date field at all.
    pub no_date_field: usize,
    /// The digest of the file's bytes, when the corpus was read from a file.
    pub digest: Option<crate::io::Digest>,
}

/// The layout of an input file or folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Detect from the path and the first record.
    Auto,
    /// quantir JSONL.
    Jsonl,
    /// BEIR (folder with corpus.jsonl / queries.jsonl, or one of those files).
    Beir,
    /// QuanTemp++ (corpus.json object, or a claims list).
    Quantemp,
}

impl Format {
    /// The `--format` values, for messages.
    pub const CHOICES: &'static str = "auto|jsonl|beir|quantemp";
}
