//! Building and opening a quantir index.
//!
//! In: a corpus file ([`build_from_path`]) or documents already read
//! ([`Documents`](crate::corpus::Documents)) and an [`IndexConfig`]. Out: an index folder, opened
//! later as an [`Index`] that the retrieve stage scores.
//!
//! # The index folder (format version [`FORMAT_VERSION`])
//! ```text
//! DIR/
//! ├── CURRENT            "gen-000003 <xxh3 of its manifest.json>": the generation served;
//! │                      replaced by a rename, the commit point of a build (generation.rs)
//! ├── writer.lock        held by the build writing a new generation
//! └── gen-000003/        one generation, written once and never changed:
//!     ├── manifest.json  format and analyzer versions, BM25 k1/b, counts, corpus path, document
//!     │                  order (`doc_order`: "date" or "corpus"), the generation number, every
//!     │                  other file's length and xxh3 (`files`, integrity.rs) and what made it
//!     │                  (`provenance`: the corpus's digest and the settings); written last
//!     ├── ids.json       every document id, sorted by bytes; a document's place here is its `rank`
//!     ├── bounds.bin     per segment and term, the (length, tf) pairs that bound its BM25
//!     │                  contribution for any k1 and b (see bounds.rs)
//!     ├── decoded.bin    an index of one segment and at most 4 Mi tokens: its postings as plain
//!     │                  arrays (see decoded.rs), read when it opens; absent in larger indexes
//!     ├── ranks.bin      after an update (update.rs) that kept segments of an earlier
//!     │                  generation: every segment's ranks as of this generation, u32::MAX
//!     │                  (`DELETED`) for a deleted document (see deletions.rs)
//!     ├── deleted.json   after an update that deleted or replaced documents: per segment, how
//!     │                  many it holds deleted, their tokens and each term's count among them
//!     ├── dense/         with --dense: vectors.f32 (see dense/vectors.rs) and, with --hnsw, the graph
//!     └── tantivy/       the tantivy index: one text field `body` (title + " " + text, the
//!                        quantir analyzer, term frequencies and field norms, no positions),
//!                        stored `id` `title` `text` `url` `date`, fast fields `rank` (u64) and
//!                        `date_key` (i64: the last day of the publication date, in days since
//!                        1970-01-01, or i64::MAX when undated)
//! ```
//! **Builds** (`quantir index`, [`build`]): a new index folder is staged beside DIR and moved into
//! place whole ([`AtomicDir`](crate::io::AtomicDir)); an existing one gets its next generation
//! staged inside it, renamed into place, and `CURRENT` replaced last, after which the build
//! removes every older generation no reader holds. A crash, a `kill -9` or a bad input file at
//! any point leaves the generation served as it was.
//!
//! **Updates** (`quantir add`, `delete`, `compact`; [`update`], [`delete`], [`compact`]) write
//! a generation the same way, keeping the served generation's segments (hard links) and adding
//! one; every search on it equals a rebuild of the final collection (update.rs says how).
//!
//! **Opening** ([`Index::open`]) pins the generation `CURRENT` names (a shared lock that keeps
//! later builds from removing it while it is open: a server or a Python `Index` keeps answering
//! from it during a rebuild, and [`Live`] moves it to the next one), checks `format_version` and
//! `analyzer_version` — terms analysed by another version of the analyzer would silently match
//! the wrong documents — and checks every file against the manifest's digests before reading
//! any (about 10 GB/s; `scripts/bench_integrity.sh` measures it). A damaged index is refused
//! with [`Error::IndexDamaged`](crate::Error::IndexDamaged) naming the file; [`check`] lists
//! every damaged file (`quantir check`). An index of format 1 is refused with a hint to rebuild.
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
mod check;
mod decoded;
mod deletions;
pub mod dense;
mod generation;
mod integrity;
mod live;
mod manifest;
mod open;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
mod tokenizer;
mod update;

pub use bounds::TermBounds;
pub use build::{build, build_from_path, check_target, BuildSummary, DenseConfig, IndexConfig, DOCS_PER_AUTO_THREAD};
pub use check::{check, CheckReport};
pub use integrity::FileList;
pub use live::{Accept, Live};
pub use manifest::{Bm25Params, DenseManifest, DocOrder, HnswParams, Manifest, FORMAT_VERSION};
pub use decoded::{DecodedPostings, TermKey};
pub use deletions::{Deletions, SegmentDeletions, DELETED};
pub use update::{add_from_path, compact, delete, update, ChangeCounts, MergePolicy, UpdateConfig, UpdateSummary};
pub use open::{Index, SegmentData, StoredDocument, UNDATED_KEY};
