//! `quantir index`: a corpus into a BM25 index folder, atomically.

use std::path::{Path, PathBuf};
use std::time::Instant;

use tantivy::schema::{IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, STORED};
use tantivy::{IndexWriter, TantivyDocument};

use super::bounds::TermBounds;
use super::dense::encode::{encode_corpus, work_dir};
use super::dense::{Encoder, VectorDtype, Vectors};
use super::generation::{lock_writer, Current, WriterLock, CURRENT, MANIFEST};
use super::manifest::{Bm25Params, DenseManifest, DocOrder, HnswParams, Manifest};
use super::open::{UNDATED_KEY, FIELD_BODY, FIELD_DATE, FIELD_DATE_KEY, FIELD_ID, FIELD_RANK, FIELD_TEXT, FIELD_TITLE, FIELD_URL};
use super::tokenizer::{QuantirTokenizer, TOKENIZER_NAME};
use crate::corpus::{scan_corpus, DayNumber, Documents, Format, LoadOptions, LoadSummary, PubDate};
use crate::error::{Error, Result};
use super::DecodedPostings;
use crate::io::{AtomicDir, Digest, Progress};
use crate::provenance::{Artifact, Input, Provenance, Role};

/// Memory tantivy's writer may use before it flushes a segment, all threads together. Large
/// enough that a 165k-snippet corpus makes a segment per thread, small enough for CI's 24 GiB.
pub(super) const WRITER_MEMORY_BYTES: usize = 512 << 20;

/// Memory each writer thread gets at least: tantivy refuses less than 15 MB a thread, so the
/// budget above caps the indexing threads at 16 (on a machine with more cores, a fixed budget
/// split over every core used to fall under tantivy's floor and fail the build).
const WRITER_MEMORY_PER_THREAD: usize = 32 << 20;

/// Documents per writer thread when the thread count is left to the build: each writer thread
/// makes a segment of its own, and every segment costs each query a dictionary lookup per term
/// and a selection pass, so a small collection is searched faster from one segment (SciFact,
/// 5,183 documents, 22,180 claims on one thread: 0.41 s from one segment against 0.49 s from two
/// at k = 10, 0.94 s against 1.06 s at k = 1000), while its build takes a fraction of a second
/// on one thread anyway.
pub const DOCS_PER_AUTO_THREAD: usize = 50_000;

/// How an index is built.
#[derive(Debug, Clone, Copy, Default)]
pub struct IndexConfig<'a> {
    /// Default BM25 parameters recorded in the manifest (searches may override them).
    pub bm25: Bm25Params,
    /// Indexing threads; 0 means one per core, but at most one per [`DOCS_PER_AUTO_THREAD`]
    /// documents.
    pub threads: usize,
    /// Encode the documents with this encoder too (`--dense`).
    pub dense: Option<DenseConfig<'a>>,
    /// The order of documents inside the segments.
    pub doc_order: DocOrder,
}

/// The dense part of a build.
#[derive(Debug, Clone, Copy)]
pub struct DenseConfig<'a> {
    /// The encoder.
    pub encoder: &'a Encoder,
    /// Stored value type.
    pub dtype: VectorDtype,
    /// Build an HNSW graph with these parameters.
    pub hnsw: Option<HnswParams>,
}

/// What a build did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct BuildSummary {
    /// Documents indexed.
    pub documents: usize,
    /// Of which undated.
    pub undated: usize,
    /// Records skipped as empty.
    pub skipped_empty: usize,
    /// Wall-clock seconds of the build (not of loading the corpus).
    pub seconds: f64,
    /// Passages encoded in this build (`--dense`).
    pub encoded: usize,
    /// Passages resumed from an interrupted build's finished chunks.
    pub resumed: usize,
}

/// Checks that `target` may be replaced by an index: it is absent, an empty folder, or a folder
/// holding a quantir index (its `CURRENT`, or the `manifest.json` of a format-1 index). Anything
/// else — a file, a folder of someone's documents, the corpus being indexed — is refused before
/// any work, so `quantir index` never destroys what is not its own.
pub fn check_target(target: &Path) -> Result<()> {
    let refuse = |what: &str| Err(Error::NotAnIndexTarget { path: target.to_path_buf(), what: what.to_string() });
    match std::fs::symlink_metadata(target) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(target, e)),
        Ok(meta) if meta.is_dir() => {
            if target.join(CURRENT).is_file() || target.join(MANIFEST).is_file() || super::generation::holds_generations(target) {
                return Ok(());
            }
            let mut entries = std::fs::read_dir(target).map_err(|e| Error::io(target, e))?;
            match entries.next() {
                None => Ok(()),
                Some(_) => refuse("is a folder that holds files but no quantir index (no CURRENT)"),
            }
        }
        Ok(meta) if meta.file_type().is_symlink() => refuse("is a symbolic link"),
        Ok(_) => refuse("is a file"),
    }
}

/// Where a build writes its generation and how it commits it (the [`index`](super) module doc).
pub(super) enum Placement {
    /// A new index folder (or one replaced whole: empty, of format 1, or whose `CURRENT` is
    /// damaged), staged beside the target with its first generation and moved into place whole.
    Whole { staging: AtomicDir, generation: PathBuf },
    /// An index folder already there: its next generation, staged inside it.
    Next { target: PathBuf, generation: u64, staging: AtomicDir, _writer: WriterLock },
}

impl Placement {
    /// Decides how the index at `target` is (re)built, taking the writer lock of an existing one.
    fn prepare(target: &Path) -> Result<Placement> {
        check_target(target)?;
        if target.join(CURRENT).is_file() {
            let writer = lock_writer(target)?;
            // Read under the lock: the generation a concurrent build committed counts.
            if let Ok(Some(current)) = Current::read(target) {
                let generation = super::generation::next(target, &current)?;
                let staging = AtomicDir::create(&target.join(super::generation::name(generation)))?;
                return Ok(Placement::Next { target: target.to_path_buf(), generation, staging, _writer: writer });
            }
        }
        let staging = AtomicDir::create(target)?;
        let generation = staging.path().join(super::generation::name(1));
        std::fs::create_dir(&generation).map_err(|e| Error::io(&generation, e))?;
        Ok(Placement::Whole { staging, generation })
    }

    /// The next generation of the index at `target` for an update of its served generation
    /// `served` ([`super::update`]), the writer lock taken; `None` when another writer
    /// committed a newer one since `served` was opened (the caller opens it and starts again).
    pub(super) fn next_of(target: &Path, served: u64) -> Result<Option<Placement>> {
        let writer = lock_writer(target)?;
        match Current::read(target)? {
            Some(current) if current.generation == served => {
                let generation = super::generation::next(target, &current)?;
                let staging = AtomicDir::create(&target.join(super::generation::name(generation)))?;
                Ok(Some(Placement::Next { target: target.to_path_buf(), generation, staging, _writer: writer }))
            }
            Some(_) => Ok(None),
            None => Err(Error::NotAnIndex { path: target.to_path_buf() }),
        }
    }

    /// The generation's number.
    pub(super) fn generation(&self) -> u64 {
        match self {
            Placement::Whole { .. } => 1,
            Placement::Next { generation, .. } => *generation,
        }
    }

    /// The folder the generation's files go to.
    pub(super) fn dir(&self) -> &Path {
        match self {
            Placement::Whole { generation, .. } => generation,
            Placement::Next { staging, .. } => staging.path(),
        }
    }

    /// Makes the generation, whose manifest has digest `manifest`, the one served.
    pub(super) fn commit(self, manifest: &Digest) -> Result<()> {
        match self {
            Placement::Whole { staging, .. } => {
                Current { generation: 1, manifest: manifest.xxh3.clone() }.write(staging.path())?;
                staging.commit()
            }
            Placement::Next { target, generation, staging, _writer } => {
                staging.commit()?;
                super::generation::sync_dir(&target)?;
                Current { generation, manifest: manifest.xxh3.clone() }.write(&target)?;
                super::generation::collect(&target, generation);
                Ok(())
            }
        }
    }
}

/// Builds the index of the corpus at `corpus` (read as `format`) at `target`: the target is
/// checked before anything is read ([`check_target`]), the corpus is read in one streaming pass
/// ([`scan_corpus`]: a file larger than [`LoadOptions::in_memory_bytes`] is read again document by
/// document as the index needs it, so memory does not grow with its text), then [`build`].
/// What every front end calls to index a file. Returns the build's summary and what loading
/// counted.
pub fn build_from_path(corpus: &Path, format: Format, load: &LoadOptions, target: &Path, config: &IndexConfig, progress: &dyn Progress) -> Result<(BuildSummary, LoadSummary)> {
    check_target(target)?;
    config.bm25.validate()?;
    let scan = scan_corpus(corpus, format, load, progress)?;
    let summary = build(&scan, corpus, target, config, progress)?;
    Ok((summary, scan.summary().clone()))
}

/// The settings recorded in an index's provenance: those that change what a search returns.
/// (Threads change the segments, never a result: ties are broken by id.)
#[derive(serde::Serialize)]
pub(super) struct BuildSettings<'a> {
    bm25: Bm25Params,
    doc_order: DocOrder,
    fields: &'static str,
    dense: Option<DenseSettings<'a>>,
}

#[derive(serde::Serialize)]
struct DenseSettings<'a> {
    encoder: &'a crate::index::dense::EncoderConfig,
    model_sha256: String,
    dtype: VectorDtype,
    hnsw: Option<HnswParams>,
}

/// Builds the index for `corpus` at `target` ([`check_target`] first): a new folder is moved
/// into place whole, an existing index gets a new generation, served once complete (module doc).
/// `corpus_path` is recorded in the manifest.
pub fn build(corpus: &dyn Documents, corpus_path: &Path, target: &Path, config: &IndexConfig, progress: &dyn Progress) -> Result<BuildSummary> {
    config.bm25.validate()?;
    crate::ranges::THREADS.check(config.threads as u64)?;
    if let Some(hnsw) = config.dense.and_then(|d| d.hnsw) {
        crate::ranges::HNSW_M.check(hnsw.max_connections as u64)?;
        crate::ranges::HNSW_EF_CONSTRUCTION.check(hnsw.ef_construction as u64)?;
    }
    let dense_settings = match &config.dense {
        Some(dense) => Some(DenseSettings { encoder: dense.encoder.config(), model_sha256: dense.encoder.config().model_sha256(dense.encoder.dir())?, dtype: dense.dtype, hnsw: dense.hnsw }),
        None => None,
    };
    let settings = BuildSettings { bm25: config.bm25, doc_order: config.doc_order, fields: FIELDS, dense: dense_settings };
    let provenance = Provenance::new(Artifact::Index, vec![Input::digested(Role::Corpus, corpus_path, corpus.digest())], &settings);
    let placement = Placement::prepare(target)?;
    let started = Instant::now();
    let dir = placement.dir().to_path_buf();
    let dir = dir.as_path();

    // Ranks: each document's place among the ids in byte order (see the module doc).
    let by_id = corpus.by_id();
    let mut rank = vec![0u64; by_id.len()];
    for (r, &doc) in by_id.iter().enumerate() {
        rank[doc] = r as u64;
    }
    write_ids(&dir.join("ids.json"), by_id.iter().map(|&d| corpus.id(d)))?;

    let tv = |e| Error::tantivy(target, e);
    let (index, fields) = create_tantivy(dir, target)?;
    let threads = match config.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()).min(1 + corpus.len() / DOCS_PER_AUTO_THREAD),
        n => n,
    }
    .min(WRITER_MEMORY_BYTES / WRITER_MEMORY_PER_THREAD);
    let mut writer: IndexWriter<TantivyDocument> = index.writer_with_num_threads(threads, WRITER_MEMORY_BYTES).map_err(tv)?;
    // The order documents go to the writer: each writer thread takes them in this order, so
    // every segment it makes holds them in this order too. A merge would concatenate segments
    // and break a date order, so date-ordered builds merge nothing.
    // Each document's day, computed once (the sort compares each many times).
    let days: Vec<Option<DayNumber>> = (0..corpus.len()).map(|i| corpus.date(i).as_ref().map(PubDate::last_day_number)).collect();
    let mut order: Vec<usize> = (0..corpus.len()).collect();
    if config.doc_order == DocOrder::Date {
        // Undated last; equal days in file order.
        order.sort_unstable_by_key(|&i| (days[i].unwrap_or(DayNumber::MAX), i));
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
    }

    progress.start("indexing", Some(corpus.len() as u64));
    let mut added = 0usize;
    // A chunk of documents at a time: a corpus on disk reads and parses each chunk on every core.
    for chunk in order.chunks(DOCUMENTS_PER_CHUNK) {
        let mut positions = chunk.iter();
        corpus.for_each_in(chunk, &mut |document| {
            let i = *positions.next().expect("one document per index");
            let date = match (&document.date, days[i]) {
                (Some(d), Some(day)) => Some((d.to_string(), day)),
                _ => None,
            };
            let doc = fields.document(&document.id, &document.title, &document.text, document.url.as_deref(), date, rank[i]);
            writer.add_document(doc).map_err(tv)?;
            added += 1;
            if added.is_multiple_of(1024) {
                progress.advance(1024);
            }
            Ok(())
        })?;
    }
    progress.advance(added as u64 % 1024);
    writer.commit().map_err(tv)?;
    writer.wait_merging_threads().map_err(tv)?;
    progress.finish();
    {
        // One reader over the committed segments for what is derived from them, closed before
        // the rest of the build.
        let reader: tantivy::IndexReader = index.reader_builder().reload_policy(tantivy::ReloadPolicy::Manual).try_into().map_err(tv)?;
        let (searcher, body) = (reader.searcher(), index.schema().get_field(FIELD_BODY).map_err(tv)?);
        write_bounds(&searcher, body, dir, target, progress)?;
        write_decoded(&searcher, body, dir, target)?;
    }

    let summary = corpus.summary();
    let mut manifest = Manifest::new(config.bm25, corpus_path, provenance);
    let (mut encoded, mut resumed) = (0, 0);
    if let Some(dense) = &config.dense {
        let dense_dir = dir.join("dense");
        std::fs::create_dir(&dense_dir).map_err(|e| Error::io(&dense_dir, e))?;
        let work = work_dir(target);
        let (dim, now, before) = encode_corpus(corpus, &by_id, dense.encoder, dense.dtype, &work, &dense_dir.join("vectors.f32"), progress)?;
        (encoded, resumed) = (now, before);
        if let Some(params) = dense.hnsw {
            if !dense.encoder.config().normalize {
                return Err(Error::InvalidArgument { name: "hnsw", message: "the HNSW graph uses inner product and needs normalised vectors (\"normalize\": true)".into() });
            }
            let vectors = Vectors::open(&dense_dir.join("vectors.f32"))?;
            super::dense::hnsw::build(&vectors, params, &dense_dir, progress)?;
        }
        let model_dir = dense.encoder.dir().display().to_string();
        let model_sha256 = Some(dense.encoder.config().model_sha256(dense.encoder.dir())?);
        manifest.dense = Some(DenseManifest { encoder: dense.encoder.config().clone(), model_dir, model_sha256, dim, dtype: dense.dtype, hnsw: dense.hnsw, device: dense.encoder.device() });
    }
    manifest.doc_order = config.doc_order;
    manifest.documents = corpus.len();
    manifest.undated = summary.undated;
    manifest.skipped_empty = summary.skipped_empty;
    manifest.generation = placement.generation();
    // Every file written so far, with its digest; the manifest goes last: a generation without
    // one is not an index, and CURRENT records the manifest's own digest.
    manifest.files = super::integrity::digest_tree(dir)?;
    let manifest_digest = manifest.write(dir)?;
    super::generation::sync_dir(dir)?;
    placement.commit(&manifest_digest)?;
    if config.dense.is_some() {
        let _ = std::fs::remove_dir_all(work_dir(target));
    }
    Ok(BuildSummary {
        documents: manifest.documents,
        undated: manifest.undated,
        skipped_empty: manifest.skipped_empty,
        seconds: started.elapsed().as_secs_f64(),
        encoded,
        resumed,
    })
}

/// Documents handed to the writer at a time (read and parsed together when the corpus is on
/// disk).
pub(super) const DOCUMENTS_PER_CHUNK: usize = 16_384;

/// Writes `ids` as a JSON list to `path`, streamed (millions of ids without one string of them
/// all) and synced.
pub(super) fn write_ids<'a>(path: &Path, ids: impl Iterator<Item = &'a str>) -> Result<()> {
    use std::io::Write;
    let io = |e| Error::io(path, e);
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path).map_err(io)?);
    out.write_all(b"[").map_err(io)?;
    for (i, id) in ids.enumerate() {
        if i > 0 {
            out.write_all(b",").map_err(io)?;
        }
        serde_json::to_writer(&mut out, id).map_err(|e| Error::io(path, e.into()))?;
    }
    out.write_all(b"]").map_err(io)?;
    out.into_inner().map_err(|e| Error::io(path, e.into_error()))?.sync_all().map_err(io)
}

/// What the `body` field holds, as the manifest records it.
const FIELDS: &str = "title text";

/// Computes every segment's term bounds ([`super::bounds`]), a segment per thread, and writes them
/// into `dir`.
fn write_bounds(searcher: &tantivy::Searcher, body: tantivy::schema::Field, dir: &Path, target: &Path, progress: &dyn Progress) -> Result<()> {
    let segments = segment_bounds(searcher, body, target, progress, &|_| true)?;
    super::bounds::write(dir, &segments)
}

/// The term bounds ([`super::bounds`]) of the segments of `searcher` whose id `wanted` accepts,
/// in its order, a segment per thread.
pub(super) fn segment_bounds(searcher: &tantivy::Searcher, body: tantivy::schema::Field, target: &Path, progress: &dyn Progress, wanted: &(dyn Fn(&str) -> bool + Sync)) -> Result<Vec<(String, TermBounds)>> {
    let tv = |e| Error::tantivy(target, e);
    let chosen: Vec<&tantivy::SegmentReader> = searcher.segment_readers().iter().filter(|s| wanted(&s.segment_id().uuid_string())).collect();
    progress.start("term bounds", Some(chosen.len() as u64));
    let computed: Vec<Result<(String, TermBounds)>> = std::thread::scope(|scope| {
        let tasks: Vec<_> = chosen
            .iter()
            .map(|&segment| {
                scope.spawn(move || {
                    let inverted = segment.inverted_index(body).map_err(tv)?;
                    let norms = segment.get_fieldnorms_reader(body).map_err(tv)?;
                    let norm_ids: Vec<u8> = (0..segment.max_doc()).map(|d| norms.fieldnorm_id(d)).collect();
                    let bounds = TermBounds::compute(&inverted, &norm_ids).map_err(|e| Error::io(target, e))?;
                    progress.advance(1);
                    Ok((segment.segment_id().uuid_string(), bounds))
                })
            })
            .collect();
        tasks.into_iter().map(|task| task.join().expect("a bounds thread panicked")).collect()
    });
    let segments = computed.into_iter().collect::<Result<Vec<_>>>()?;
    progress.finish();
    Ok(segments)
}

/// Writes a small one-segment index's postings as arrays into `dir` ([`super::decoded`]), so
/// that opening it reads them instead of decoding them; nothing for any other index.
pub(super) fn write_decoded(searcher: &tantivy::Searcher, body: tantivy::schema::Field, dir: &Path, target: &Path) -> Result<()> {
    let [segment] = searcher.segment_readers() else { return Ok(()) };
    let inverted = segment.inverted_index(body).map_err(|e| Error::tantivy(target, e))?;
    if !super::decoded::applies(1, inverted.total_num_tokens()) {
        return Ok(());
    }
    match DecodedPostings::read(&inverted).map_err(|e| Error::io(target, e))? {
        Some(decoded) => decoded.write(dir, &segment.segment_id().uuid_string(), segment.max_doc()),
        None => Ok(()),
    }
}


/// The fields of [`schema`], looked up once.
pub(super) struct Fields {
    body: tantivy::schema::Field,
    id: tantivy::schema::Field,
    title: tantivy::schema::Field,
    text: tantivy::schema::Field,
    url: tantivy::schema::Field,
    date: tantivy::schema::Field,
    date_key: tantivy::schema::Field,
    rank: tantivy::schema::Field,
}

impl Fields {
    fn of(schema: &tantivy::schema::Schema) -> Fields {
        let field = |name: &str| schema.get_field(name).expect("field in schema");
        Fields {
            body: field(FIELD_BODY),
            id: field(FIELD_ID),
            title: field(FIELD_TITLE),
            text: field(FIELD_TEXT),
            url: field(FIELD_URL),
            date: field(FIELD_DATE),
            date_key: field(FIELD_DATE_KEY),
            rank: field(FIELD_RANK),
        }
    }

    /// The one way a document is laid out in the index: its passage indexed, its fields stored,
    /// its date (as written, and its day) or the undated key, and its rank in the id order.
    pub(super) fn document(&self, id: &str, title: &str, text: &str, url: Option<&str>, date: Option<(String, DayNumber)>, rank: u64) -> TantivyDocument {
        let mut doc = TantivyDocument::default();
        doc.add_text(self.body, crate::corpus::passage(title, text));
        doc.add_text(self.id, id);
        doc.add_text(self.title, title);
        doc.add_text(self.text, text);
        if let Some(u) = url {
            doc.add_text(self.url, u);
        }
        match date {
            Some((written, day)) => {
                doc.add_text(self.date, written);
                doc.add_i64(self.date_key, day.into());
            }
            None => doc.add_i64(self.date_key, UNDATED_KEY),
        }
        doc.add_u64(self.rank, rank);
        doc
    }
}

/// A new tantivy index of [`schema`] in `dir/tantivy`, with quantir's tokenizer registered.
pub(super) fn create_tantivy(dir: &Path, target: &Path) -> Result<(tantivy::Index, Fields)> {
    let tantivy_dir = dir.join("tantivy");
    std::fs::create_dir(&tantivy_dir).map_err(|e| Error::io(&tantivy_dir, e))?;
    let schema = schema();
    let index = tantivy::Index::create_in_dir(&tantivy_dir, schema.clone()).map_err(|e| Error::tantivy(target, e))?;
    index.tokenizers().register(TOKENIZER_NAME, QuantirTokenizer::default());
    Ok((index, Fields::of(&schema)))
}

/// The tantivy schema described in the module doc.
pub(super) fn schema() -> Schema {
    let mut builder = Schema::builder();
    // Frequencies and norms but no positions: BM25 needs nothing more, and positions would
    // double the postings' size.
    let body = TextOptions::default()
        .set_indexing_options(TextFieldIndexing::default().set_tokenizer(TOKENIZER_NAME).set_index_option(IndexRecordOption::WithFreqs).set_fieldnorms(true));
    builder.add_text_field(FIELD_BODY, body);
    builder.add_text_field(FIELD_ID, STORED);
    builder.add_text_field(FIELD_TITLE, STORED);
    builder.add_text_field(FIELD_TEXT, STORED);
    builder.add_text_field(FIELD_URL, STORED);
    builder.add_text_field(FIELD_DATE, STORED);
    builder.add_i64_field(FIELD_DATE_KEY, FAST);
    builder.add_u64_field(FIELD_RANK, FAST);
    builder.build()
}
