//! Building and opening a quantir index.
//!
//! In: a loaded [`Corpus`](crate::corpus::Corpus) and an [`IndexConfig`]. Out: an index folder,
//! opened later as an [`Index`] that the retrieve stage scores.
//!
//! # The index folder (format version [`FORMAT_VERSION`])
//! ```text
//! DIR/
//! ├── manifest.json   format and analyzer versions, BM25 k1/b, counts, corpus path, document
//! │                   order (`doc_order`: "date" or "corpus"); written last
//! ├── ids.json        every document id, sorted by bytes; a document's place here is its `rank`
//! ├── bounds.bin      per segment and term, the (length, tf) pairs that bound its BM25
//! │                   contribution for any k1 and b (see bounds.rs); absent in older indexes
//! ├── decoded.bin     an index of one segment and at most 4 Mi tokens: its postings as plain
//! │                   arrays (see decoded.rs), read when it opens; absent in larger and older
//! │                   indexes
//! ├── dense/          with --dense: vectors.f32 (see dense/vectors.rs) and, with --hnsw, the graph
//! └── tantivy/        the tantivy index: one text field `body` (title + " " + text, the
//!                     quantir analyzer, term frequencies and field norms, no positions),
//!                     stored `id` `title` `text` `url` `date`, fast fields `rank` (u64) and
//!                     `date_key` (i64: the last day of the publication date, in days since
//!                     1970-01-01, or i64::MAX when undated)
//! ```
//! `quantir index` writes all of it into a staging folder beside DIR and moves it into place
//! only when complete ([`AtomicDir`](crate::io::AtomicDir)): a crash, a `kill -9` or a bad input
//! file leaves the previous index as it was. Opening checks `format_version` and
//! `analyzer_version` and refuses a mismatch with a hint to rebuild: terms analysed by another
//! version of the analyzer would silently match the wrong documents.
//!
//! Document order (`--doc-order`, [`DocOrder`]): by default documents go to the writer sorted by
//! their last publication day, undated last, and date-ordered builds never merge segments, so in
//! every segment the documents a date cutoff admits are a prefix (and the undated ones a suffix).
//! BM25 then reads a term's postings only up to the cutoff. Whether a segment is in date order is
//! read from its `date_key` column when the index is opened, not trusted from the manifest.
//!
//! Why `rank`: ties in score are broken by document id, and comparing the integer rank of an id
//! in sorted order is the same comparison without touching strings in the hot loop. `ids.json`
//! then maps a hit back to its id without reading tantivy's compressed document store.

mod bounds;
mod build;
mod decoded;
pub mod dense;
mod manifest;
mod open;
mod tokenizer;

pub use bounds::TermBounds;
pub use build::{build, check_target, BuildSummary, DenseConfig, IndexConfig, DOCS_PER_AUTO_THREAD};
pub use manifest::{Bm25Params, DenseManifest, DocOrder, HnswParams, Manifest, FORMAT_VERSION};
pub use decoded::{DecodedPostings, TermKey};
pub use open::{Index, SegmentData, StoredDocument, UNDATED_KEY};
