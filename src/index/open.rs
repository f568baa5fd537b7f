//! Opening an index: checks its manifest, then keeps what scoring touches in memory.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use tantivy::schema::{Field, Value};
use tantivy::{DocAddress, InvertedIndexReader, Searcher, TantivyDocument, Term};

use super::bounds::TermBounds;
use super::decoded::{self, DecodedPostings};
use super::deletions::{Deletions, DELETED};
use super::dense::{HnswGraph, Vectors};
use super::manifest::Manifest;
use super::tokenizer::{QuantirTokenizer, TOKENIZER_NAME};
use crate::corpus::DayNumber;
use crate::error::{Damage, Error, Result};

pub(super) const FIELD_BODY: &str = "body";
pub(super) const FIELD_ID: &str = "id";
pub(super) const FIELD_TITLE: &str = "title";
pub(super) const FIELD_TEXT: &str = "text";
pub(super) const FIELD_URL: &str = "url";
pub(super) const FIELD_DATE: &str = "date";
pub(super) const FIELD_DATE_KEY: &str = "date_key";
pub(super) const FIELD_RANK: &str = "rank";

/// `date_key` of an undated document on disk.
pub const UNDATED_KEY: i64 = i64::MAX;

/// One tantivy segment's postings and the per-document columns scoring reads.
pub struct SegmentData {
    /// Tantivy's id of the segment (its uuid string).
    pub id: String,
    /// The `body` field's inverted index.
    pub inverted: Arc<InvertedIndexReader>,
    /// Each document's field-norm id (tantivy's one-byte length code, the same quantisation as
    /// Lucene's `SmallFloat.intToByte4`).
    pub norm_ids: Vec<u8>,
    /// Each document's id rank (its place in `ids.json`), or [`DELETED`](super::DELETED) for a
    /// document deleted by an update (its postings stay until the segment is rewritten).
    pub ranks: Vec<u32>,
    /// How many of its documents are deleted: where any is, every candidate is checked.
    pub deleted: u32,
    /// Each document's last publication day, or [`DayNumber::MAX`] when undated.
    pub date_keys: Vec<DayNumber>,
    /// Whether `date_keys` never decrease (a [`DocOrder::Date`](super::DocOrder::Date) build):
    /// then the documents a cutoff admits are a prefix and, undated ones kept, a suffix. Found
    /// from the keys themselves, so it holds whatever the manifest says.
    pub date_sorted: bool,
    /// Each term's frontier of (length, tf) pairs ([`TermBounds`]); `None` for an index built
    /// before `bounds.bin` existed.
    pub bounds: Option<TermBounds>,
}

/// A document's stored fields, for display.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StoredDocument {
    /// Its id.
    pub id: String,
    /// Title (may be empty).
    pub title: String,
    /// Text.
    pub text: String,
    /// Source address, when known.
    pub url: Option<String>,
    /// Publication date as normalised at load time (`2022-03-21`, `2022-03`, `2022`), if any.
    pub date: Option<String>,
}

/// The document ids in rank order, packed into one buffer: a run file writes one id per hit in
/// random rank order, and an id behind its own allocation cost a cache miss more per line (a
/// `Vec<String>` here made writing a 2.5-million-line run 0.4 s slower, 2026-12-02).
struct IdTable {
    text: String,
    /// `ends[r]`: where id `r`'s text ends in `text` (it starts where id `r - 1`'s ends).
    ends: Vec<u32>,
}

impl IdTable {
    /// `None` when the ids hold more than 4 GiB of text.
    fn new(ids: Vec<String>) -> Option<Self> {
        let mut text = String::with_capacity(ids.iter().map(String::len).sum());
        let ends = ids
            .iter()
            .map(|id| {
                text.push_str(id);
                u32::try_from(text.len()).ok()
            })
            .collect::<Option<_>>()?;
        Some(IdTable { text, ends })
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    fn get(&self, rank: usize) -> &str {
        let start = if rank == 0 { 0 } else { self.ends[rank - 1] as usize };
        &self.text[start..self.ends[rank] as usize]
    }

    /// The rank of `id`: ranks are the ids' sorted order.
    fn rank_of(&self, id: &str) -> Option<u32> {
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let middle = (low + high) / 2;
            match self.get(middle).cmp(id) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return Some(middle as u32),
            }
        }
        None
    }
}

/// An opened index.
pub struct Index {
    path: PathBuf,
    /// The folder of the generation held.
    generation_dir: PathBuf,
    /// The shared lock that keeps the generation from being removed.
    _pinned: super::generation::Pinned,
    /// Seconds opening spent checking every file's digest.
    integrity_seconds: f64,
    manifest: Manifest,
    searcher: Searcher,
    body: Field,
    segments: Vec<SegmentData>,
    ids: IdTable,
    /// Id rank → (segment, document), to read a hit's stored fields from its id.
    addresses: Vec<(u32, u32)>,
    /// Id rank → date key (the dense side is in id-rank order).
    date_keys: Vec<DayNumber>,
    /// The dense vectors, when the index has them.
    vectors: Option<Vectors>,
    /// The HNSW graph, loaded on first use.
    hnsw: OnceLock<std::result::Result<HnswGraph, String>>,
    /// A small one-segment index's postings as arrays ([`super::decoded`]), read on first use.
    decoded: OnceLock<Option<DecodedPostings>>,
    /// Tokens of the documents served (deleted ones not counted).
    total_tokens: u64,
    /// The statistics of deleted documents still in the postings ([`super::deletions`]).
    deletions: Deletions,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index").field("path", &self.path).field("generation", &self.manifest.generation).field("documents", &self.ids.len()).finish()
    }
}

impl Index {
    /// Opens the generation of the index at `dir` that its `CURRENT` names, and holds it (a later
    /// build leaves it in place while this value lives; [`super::generation`]). Refuses an index
    /// of another format or analyzer version, and checks every file of the generation against
    /// the digests its manifest records before reading any ([`super::integrity`]): a damaged
    /// index is an error naming the file, never a result.
    pub fn open(dir: &Path) -> Result<Index> {
        let pinned = super::generation::pin(dir)?;
        let gen = pinned.dir.clone();
        let manifest_path = gen.join(super::generation::MANIFEST);
        let manifest = Manifest::parse(dir, &manifest_path, &pinned.manifest)?;
        let inconsistent = |file: PathBuf, what: String| Error::IndexDamaged { index: dir.to_path_buf(), file, damage: Damage::Inconsistent { what } };
        if manifest.generation != pinned.generation {
            return Err(inconsistent(manifest_path, format!("it describes generation {}, in the folder of generation {}", manifest.generation, pinned.generation)));
        }
        let checking = std::time::Instant::now();
        super::integrity::verify(dir, &gen, &manifest.files)?;
        let integrity_seconds = checking.elapsed().as_secs_f64();
        let tv = |e| Error::tantivy(dir, e);
        let tantivy_index = tantivy::Index::open_in_dir(gen.join("tantivy")).map_err(tv)?;
        tantivy_index.tokenizers().register(TOKENIZER_NAME, QuantirTokenizer::default());
        let schema = tantivy_index.schema();
        let body = schema.get_field(FIELD_BODY).map_err(tv)?;
        let reader = tantivy_index.reader_builder().reload_policy(tantivy::ReloadPolicy::Manual).try_into().map_err(tv)?;
        let searcher = reader.searcher();
        let mut segments = Vec::new();
        let mut total_tokens = 0;
        let mut bounds = super::bounds::read(&gen)?;
        // An updated generation's ranks and deletions ([`super::deletions`]); none in a built one.
        let mut updated_ranks = super::deletions::read_ranks(dir, &gen)?;
        let deletions = Deletions::read(dir, &gen)?;
        for segment in searcher.segment_readers() {
            let id = segment.segment_id().uuid_string();
            let inverted = segment.inverted_index(body).map_err(tv)?;
            let segment_bounds = match &mut bounds {
                None => None,
                Some(all) => {
                    let found = all.iter().position(|(s, _)| *s == id).map(|at| all.swap_remove(at).1);
                    match found {
                        Some(b) if b.num_terms() == inverted.terms().num_terms() => Some(b),
                        Some(b) => return Err(Error::IncompatibleIndex { path: dir.to_path_buf(), what: super::bounds::FILE, found: format!("{} terms for segment {id}", b.num_terms()), supported: format!("its {} terms", inverted.terms().num_terms()) }),
                        None => return Err(Error::IncompatibleIndex { path: dir.to_path_buf(), what: super::bounds::FILE, found: format!("no bounds for segment {id}"), supported: "a file written with the index".into() }),
                    }
                }
            };
            total_tokens += inverted.total_num_tokens();
            let norms = segment.get_fieldnorms_reader(body).map_err(tv)?;
            let fast = segment.fast_fields();
            let rank_column = fast.u64(FIELD_RANK).map_err(tv)?;
            let date_column = fast.i64(FIELD_DATE_KEY).map_err(tv)?;
            let docs = 0..segment.max_doc();
            let date_keys: Vec<DayNumber> = docs
                .clone()
                .map(|d| match date_column.first(d) {
                    Some(key) if key != UNDATED_KEY => key as DayNumber,
                    _ => DayNumber::MAX,
                })
                .collect();
            let ranks: Vec<u32> = match &mut updated_ranks {
                None => docs.clone().map(|d| rank_column.first(d).map_or(u32::MAX, |r| u32::try_from(r).unwrap_or(u32::MAX))).collect(),
                Some(all) => match all.remove(&id) {
                    Some(ranks) if ranks.len() == segment.max_doc() as usize => ranks,
                    found => return Err(inconsistent(gen.join(super::deletions::RANKS_FILE), format!("{} ranks for segment {id} of {} documents", found.map_or(0, |r| r.len()), segment.max_doc()))),
                },
            };
            let deleted = ranks.iter().filter(|&&r| r == DELETED).count() as u32;
            let recorded = deletions.segment(&id).map_or(0, |s| s.documents);
            if u64::from(deleted) != recorded {
                return Err(inconsistent(gen.join(super::deletions::DELETED_FILE), format!("{recorded} deleted documents recorded for segment {id}, {deleted} in its ranks")));
            }
            segments.push(SegmentData {
                id,
                inverted,
                norm_ids: docs.clone().map(|d| norms.fieldnorm_id(d)).collect(),
                ranks,
                deleted,
                date_sorted: date_keys.is_sorted(),
                date_keys,
                bounds: segment_bounds,
            });
        }
        if let Some(left) = updated_ranks.as_ref().and_then(|all| all.keys().next()) {
            return Err(inconsistent(gen.join(super::deletions::RANKS_FILE), format!("ranks for segment {left}, which the index does not hold")));
        }
        // Deleted documents count nowhere: their tokens leave the mean length.
        let total_tokens = total_tokens.checked_sub(deletions.tokens()).ok_or_else(|| inconsistent(gen.join(super::deletions::DELETED_FILE), format!("{} deleted tokens of {total_tokens}", deletions.tokens())))?;
        let ids_path = gen.join("ids.json");
        let ids_text = crate::io::read_utf8(&ids_path)?;
        let ids: Vec<String> = serde_json::from_str(&ids_text)
            .map_err(|e| crate::io::json_error(&ids_path, crate::error::Position { line: 1, column: Some(1) }, &e))?;
        let count = ids.len();
        let ids = IdTable::new(ids).ok_or_else(|| Error::IncompatibleIndex { path: dir.to_path_buf(), what: "ids.json", found: format!("{count} ids of more than 4 GiB in all"), supported: "up to 4 GiB of ids".into() })?;
        let documents: usize = segments.iter().map(|s| s.ranks.len() - s.deleted as usize).sum();
        if documents != ids.len() || documents != manifest.documents {
            return Err(inconsistent(ids_path, format!("{} ids, {documents} documents in the segments, {} in the manifest", ids.len(), manifest.documents)));
        }
        let mut addresses = vec![(u32::MAX, u32::MAX); ids.len()];
        let mut date_keys = vec![DayNumber::MAX; ids.len()];
        for (s, segment) in segments.iter().enumerate() {
            for (d, &rank) in segment.ranks.iter().enumerate().filter(|(_, &rank)| rank != DELETED) {
                // Every rank names one id, once: a rank out of range or seen twice would map a hit
                // to another document's id.
                match addresses.get_mut(rank as usize) {
                    Some(slot) if slot.0 == u32::MAX => {
                        *slot = (s as u32, d as u32);
                        date_keys[rank as usize] = segment.date_keys[d];
                    }
                    _ => return Err(inconsistent(gen.join("tantivy"), format!("document {d} of segment {} has id rank {rank}, out of range or given twice", segment.id))),
                }
            }
        }
        let vectors = match &manifest.dense {
            Some(dense) => {
                let v = Vectors::open(&gen.join("dense/vectors.f32"))?;
                if v.len() != ids.len() || v.dim() != dense.dim {
                    return Err(Error::IncompatibleIndex { path: dir.to_path_buf(), what: "dense/vectors.f32", found: format!("{} vectors of {}", v.len(), v.dim()), supported: format!("{} of {}", ids.len(), dense.dim) });
                }
                Some(v)
            }
            None => None,
        };
        Ok(Index { path: dir.to_path_buf(), generation_dir: gen, _pinned: pinned, integrity_seconds, manifest, searcher, body, segments, ids, addresses, date_keys, vectors, hnsw: OnceLock::new(), decoded: OnceLock::new(), total_tokens, deletions })
    }

    /// Seconds opening spent checking every file against its digest ([`super::integrity`]):
    /// what the check costs (`scripts/bench_integrity.sh` reports it beside a run's time).
    pub fn integrity_seconds(&self) -> f64 {
        self.integrity_seconds
    }

    /// The generation it holds (module doc of [`super::generation`]).
    pub fn generation(&self) -> u64 {
        self.manifest.generation
    }

    /// `CURRENT`'s text when the generation was pinned ([`super::Live`] compares it).
    pub(super) fn current_line(&self) -> &str {
        &self._pinned.current_line
    }

    /// The folder of the generation it holds.
    pub fn generation_dir(&self) -> &Path {
        &self.generation_dir
    }

    /// The fingerprint of what made the generation (corpus bytes and build settings).
    pub fn fingerprint(&self) -> &crate::provenance::Fingerprint {
        &self.manifest.provenance.fingerprint
    }

    /// The folder it was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Its segments, in tantivy's order.
    pub fn segments(&self) -> &[SegmentData] {
        &self.segments
    }

    /// Number of documents.
    pub fn num_docs(&self) -> u64 {
        self.ids.len() as u64
    }

    /// Mean number of terms per document.
    pub fn average_length(&self) -> f32 {
        if self.ids.is_empty() {
            0.0
        } else {
            (self.total_tokens as f64 / self.ids.len() as f64) as f32
        }
    }

    /// The postings decoded into arrays, for an index of one segment and at most
    /// [`decoded::MAX_TOKENS`] tokens (read on the first call from the build's `decoded.bin`, or
    /// from the segment in an index without one, then kept); `None` for any other.
    pub fn decoded(&self) -> Result<Option<&DecodedPostings>> {
        if let Some(decoded) = self.decoded.get() {
            return Ok(decoded.as_ref());
        }
        let read = match self.segments.as_slice() {
            // Decoded postings count every document a term's postings hold: none may be deleted.
            [segment] if segment.deleted == 0 && decoded::applies(1, self.total_tokens) => match DecodedPostings::read_file(&self.generation_dir, &segment.id, segment.norm_ids.len() as u32)? {
                Some(decoded) => Some(decoded),
                // An index built before the build wrote them: decoded from its segment.
                None => DecodedPostings::read(&segment.inverted).map_err(|e| Error::io(&self.path, e))?,
            },
            _ => None,
        };
        // Another thread may have read it meanwhile: either copy is the same.
        Ok(self.decoded.get_or_init(|| read).as_ref())
    }

    /// The `body` term for an analysed term's text.
    pub fn term(&self, text: &str) -> Term {
        Term::from_field_text(self.body, text)
    }

    /// Number of documents containing `term`, over all segments (deleted ones not counted).
    pub fn doc_freq(&self, term: &Term) -> Result<u64> {
        let mut total = 0;
        for segment in &self.segments {
            total += u64::from(segment.inverted.doc_freq(term).map_err(|e| Error::io(&self.path, e))?);
        }
        Ok(total - term.value().as_str().map_or(0, |text| self.deletions.doc_freq(text)))
    }

    /// The statistics of deleted documents still in the postings ([`super::deletions`]): what
    /// BM25's document frequencies subtract.
    pub fn deletions(&self) -> &Deletions {
        &self.deletions
    }

    /// The id of the document with id rank `rank`.
    pub fn id(&self, rank: u32) -> &str {
        self.ids.get(rank as usize)
    }

    /// Each document's date key by id rank (`DayNumber::MAX` when undated).
    pub fn date_keys_by_rank(&self) -> &[DayNumber] {
        &self.date_keys
    }

    /// The dense vectors, if the index was built with `--dense`.
    pub fn vectors(&self) -> Option<&Vectors> {
        self.vectors.as_ref()
    }

    /// The HNSW graph (loaded on first call), if the index was built with `--hnsw`.
    pub fn hnsw(&self) -> Result<&HnswGraph> {
        if self.manifest.dense.as_ref().and_then(|d| d.hnsw).is_none() {
            return Err(Error::InvalidArgument { name: "ann", message: format!("{} has no HNSW graph\n\nhint: rebuild it with `quantir index … --dense MODEL --hnsw`, or search with --ann exact", self.path.display()) });
        }
        self.hnsw
            .get_or_init(|| HnswGraph::load(&self.generation_dir.join("dense")).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|message| Error::InvalidArgument { name: "ann", message: message.clone() })
    }

    /// The id rank of `id`, if the index holds it.
    pub fn rank_of(&self, id: &str) -> Option<u32> {
        self.ids.rank_of(id)
    }

    /// The tantivy segment and document number of the document with id rank `rank`.
    pub fn address(&self, rank: u32) -> (u32, u32) {
        self.addresses[rank as usize]
    }

    /// Reads the stored fields of the document with id rank `rank`.
    pub fn stored_by_rank(&self, rank: u32) -> Result<StoredDocument> {
        let (segment, doc) = self.address(rank);
        self.stored(segment, doc)
    }

    /// Reads the stored fields of document `doc` of segment `segment`.
    pub fn stored(&self, segment: u32, doc: u32) -> Result<StoredDocument> {
        let document: TantivyDocument = self.searcher.doc(DocAddress::new(segment, doc)).map_err(|e| Error::tantivy(&self.path, e))?;
        let schema = self.searcher.schema();
        let get = |name: &str| {
            let field = schema.get_field(name).ok()?;
            document.get_first(field).and_then(|v| v.as_str()).map(str::to_string)
        };
        Ok(StoredDocument {
            id: get(FIELD_ID).unwrap_or_default(),
            title: get(FIELD_TITLE).unwrap_or_default(),
            text: get(FIELD_TEXT).unwrap_or_default(),
            url: get(FIELD_URL),
            date: get(FIELD_DATE),
        })
    }
}
