//! Updating an index in place: documents added, replaced and deleted, each update one new
//! generation, every search on it equal to a rebuild of the final collection, bit for bit.
//!
//! In: an index folder and a change — documents to add or replace by id ([`add_from_path`],
//! [`update`]), ids to delete ([`delete`]), or a compaction ([`compact`]). Out: the index's next
//! generation, committed as a build commits one ([`super::generation`]): staged inside the
//! folder, `CURRENT` replaced last, so a crash or a `kill -9` at any point leaves the generation
//! served as it was, and readers following the folder ([`super::Live`]) move to it on their
//! next request.
//!
//! # How each structure stays exact
//! - **Segments.** The generation keeps the served generation's segments it does not rewrite —
//!   their tantivy files hard-linked, never changed — and adds one new segment (more in a
//!   compaction) holding the new and replaced documents and the live documents of the segments
//!   the [`MergePolicy`] rewrites. The new segment is written in date order, so in every segment
//!   a cutoff still admits a prefix and BM25 still reads no postings past it.
//! - **Deleted documents** (deleted, or the old copy of a replaced one) stay in their segment's
//!   postings until it is rewritten. Their rank becomes [`DELETED`] in `ranks.bin`, and the
//!   scorer checks every candidate of a segment that has one, so none is ever returned; their
//!   terms and tokens (the stored text analysed again by the analyzer that indexed it) are
//!   recorded per segment in `deleted.json` ([`super::deletions`]) and subtracted from the
//!   document frequencies and the total length. N, the mean length and every df are then the
//!   live documents' own, the same integers a rebuild counts, so every score is the same float.
//! - **Ids and ranks.** `ids.json` is written again (the live ids in byte order) and every
//!   document's rank follows it: `ranks.bin` holds each segment's ranks as of this generation (a
//!   kept segment's `rank` column holds those of the generation that wrote it). Ties fall by
//!   rank, so the tie order is a rebuild's.
//! - **Term bounds** of a kept segment are kept: computed over its postings deleted ones
//!   included, they still bound every live document's contribution, which is all pruning needs.
//!   A new segment's are computed. **Decoded postings** are written only for a generation of one
//!   segment with nothing deleted (a compacted small index); otherwise BM25 reads tantivy's.
//! - **Vectors** are rewritten in the new rank order: the rows of documents kept are copied, only
//!   the new and replaced documents are encoded (a passage's vector depends on its text alone,
//!   [`super::dense::Encoder::encode`]), so exact dense search returns a rebuild's top k. An
//!   HNSW graph is built again over the new vectors (its cost is that of the build's graph step).
//!
//! Merging ([`MergePolicy`]): segments are grouped in tiers by live size, each tier `factor`
//! times the one below; when a tier holds `factor` segments they are rewritten together into
//! the update's new segment, and a segment with `deleted_share` of its documents deleted is
//! rewritten too. A rewrite reads the live documents' stored fields and indexes them again; their
//! vectors are copied. [`compact`] rewrites every segment as a build would lay them out.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::time::Instant;

use tantivy::{IndexWriter, TantivyDocument};

use super::build::{create_tantivy, segment_bounds, write_decoded, write_ids, Placement, DOCUMENTS_PER_CHUNK, WRITER_MEMORY_BYTES};
use super::deletions::{write_ranks, Deletions, SegmentDeletions, DELETED};
use super::dense::{Encoder, TextKind};
use super::manifest::DocOrder;
use super::open::{Index, StoredDocument, FIELD_BODY, FIELD_RANK};
use super::tokenizer::{QuantirTokenizer, TOKENIZER_NAME};
use crate::analysis::Analyzer;
use crate::corpus::{scan_corpus, DayNumber, Document, Documents, Format, LoadOptions, LoadSummary, PubDate};
use crate::error::{Error, Result};
use crate::io::{Digest, Progress};
use crate::provenance::{Artifact, Input, Provenance, Role};

/// When an update rewrites segments (module doc).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MergePolicy {
    /// Segments per tier before the tier is merged into one; each tier holds segments up to
    /// `factor` times larger than the one below.
    pub factor: usize,
    /// The smallest tier: segments of fewer live documents than this.
    pub floor: usize,
    /// A segment with at least this share of its documents deleted is rewritten.
    pub deleted_share: f64,
}

impl Default for MergePolicy {
    /// Tiers of 10 over a floor of 1,000 documents, rewriting a segment a fifth deleted.
    fn default() -> Self {
        MergePolicy { factor: 10, floor: 1_000, deleted_share: 0.2 }
    }
}

impl MergePolicy {
    /// The tier of a segment of `live` documents.
    fn tier(&self, live: usize) -> u32 {
        let (mut tier, mut bound) = (0, self.floor.max(1));
        while live >= bound {
            tier += 1;
            bound = bound.saturating_mul(self.factor.max(2));
        }
        tier
    }

    fn validate(&self) -> Result<()> {
        crate::ranges::MERGE_FACTOR.check(self.factor as u64)?;
        if !(self.deleted_share > 0.0 && self.deleted_share <= 1.0) {
            return Err(Error::InvalidArgument { name: "merge_deleted_share", message: format!("{} is not a share in (0, 1]", self.deleted_share) });
        }
        Ok(())
    }
}

/// How an update is made.
#[derive(Clone, Copy, Default)]
pub struct UpdateConfig<'a> {
    /// The encoder of an index with vectors (the one it was built with): new documents need it.
    pub encoder: Option<&'a Encoder>,
    /// When segments are rewritten.
    pub merge: MergePolicy,
    /// Indexing threads of a compaction (0: as a build chooses).
    pub threads: usize,
}

/// What a change did to an index's documents, embedded or on a cluster.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ChangeCounts {
    /// Documents whose id the index did not hold.
    pub added: usize,
    /// Documents whose id it held with other content.
    pub replaced: usize,
    /// Documents it held as given: nothing was written for them.
    pub unchanged: usize,
    /// Documents deleted.
    pub deleted: usize,
    /// Ids to delete that the index does not hold.
    pub not_found: usize,
}

impl std::fmt::Display for ChangeCounts {
    /// "3 added, 1 replaced, 0 unchanged, 2 deleted, 1 ids to delete not in the index".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} added, {} replaced, {} unchanged, {} deleted", self.added, self.replaced, self.unchanged, self.deleted)?;
        if self.not_found > 0 {
            write!(f, ", {} ids to delete not in the index", self.not_found)?;
        }
        Ok(())
    }
}

/// What an update did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct UpdateSummary {
    /// The documents added, replaced, unchanged, deleted and not found.
    #[serde(flatten)]
    pub counts: ChangeCounts,
    /// Documents served after the update.
    pub documents: usize,
    /// The generation served after it (the same as before when nothing changed).
    pub generation: u64,
    /// Whether a new generation was committed.
    pub committed: bool,
    /// Segments of the generation served.
    pub segments: usize,
    /// Segments rewritten by merging (module doc).
    pub merged_segments: usize,
    /// Live documents indexed again by those rewrites.
    pub rewritten: usize,
    /// Passages encoded (the new and replaced documents of an index with vectors).
    pub encoded: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// The change an update makes.
enum Change<'a> {
    Upsert { documents: &'a dyn Documents, path: &'a Path },
    Delete { ids: &'a [String] },
    Compact,
}

impl Change<'_> {
    fn operation(&self) -> &'static str {
        match self {
            Change::Upsert { .. } => "add",
            Change::Delete { .. } => "delete",
            Change::Compact => "compact",
        }
    }
}

/// What becomes of a document of the generation served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Kept,
    /// A new version of it is in the update: its id stays, this copy goes.
    Replaced,
    Deleted,
}

/// A document of the update's new segment.
#[derive(Clone, Copy)]
enum Source {
    /// The update's `fresh[j]`.
    Fresh(usize),
    /// A live document of a rewritten segment: (segment, document) in the generation served.
    Stored(u32, u32),
}

/// Adds the documents of the corpus at `corpus` (read as `format`, as `quantir index` reads one)
/// to the index at `target`, replacing those whose id it holds with other content and writing
/// nothing for those it holds as given ([`update`]).
pub fn add_from_path(corpus: &Path, format: Format, load: &LoadOptions, target: &Path, config: &UpdateConfig, progress: &dyn Progress) -> Result<(UpdateSummary, LoadSummary)> {
    let scan = scan_corpus(corpus, format, load, progress)?;
    let summary = update(target, &scan, corpus, config, progress)?;
    Ok((summary, scan.summary().clone()))
}

/// Adds `documents` (read from `path`, which provenance records) to the index at `target`: one
/// new generation (module doc), or none when every document is already there as given.
pub fn update(target: &Path, documents: &dyn Documents, path: &Path, config: &UpdateConfig, progress: &dyn Progress) -> Result<UpdateSummary> {
    apply(target, Change::Upsert { documents, path }, config, progress)
}

/// Deletes the documents `ids` from the index at `target` (ids it does not hold are counted in
/// [`UpdateSummary::not_found`]): one new generation, or none when none is held.
pub fn delete(target: &Path, ids: &[String], config: &UpdateConfig, progress: &dyn Progress) -> Result<UpdateSummary> {
    apply(target, Change::Delete { ids }, config, progress)
}

/// Rewrites every segment of the index at `target`, as a build would lay out its live
/// documents: no deleted documents left, the fewest segments. Vectors are copied, not encoded.
pub fn compact(target: &Path, config: &UpdateConfig, progress: &dyn Progress) -> Result<UpdateSummary> {
    apply(target, Change::Compact, config, progress)
}

/// The settings an updated generation's provenance records.
#[derive(serde::Serialize)]
struct UpdateSettings<'a> {
    operation: &'static str,
    merge: MergePolicy,
    /// What made the generation updated.
    base: &'a crate::provenance::Fingerprint,
}

fn apply(target: &Path, change: Change, config: &UpdateConfig, progress: &dyn Progress) -> Result<UpdateSummary> {
    config.merge.validate()?;
    crate::ranges::THREADS.check(config.threads as u64)?;
    let started = Instant::now();
    // The generation served, and the writer lock; another writer may commit between the two.
    let (old, placement) = loop {
        let old = Index::open(target)?;
        if let Some(placement) = Placement::next_of(target, old.generation())? {
            break (old, placement);
        }
    };
    let mut summary = UpdateSummary {
        counts: ChangeCounts::default(),
        documents: old.num_docs() as usize,
        generation: old.generation(),
        committed: false,
        segments: old.segments().len(),
        merged_segments: 0,
        rewritten: 0,
        encoded: 0,
        seconds: 0.0,
    };

    // What becomes of each document served, by rank, and the documents to index.
    let n_old = old.num_docs() as usize;
    let mut fate = vec![Fate::Kept; n_old];
    // The new and replaced documents, with the rank of the copy a replaced one replaces.
    let mut fresh: Vec<(Document, Option<u32>)> = Vec::new();
    let mut skipped_empty = 0;
    match &change {
        Change::Upsert { documents, .. } => {
            progress.start("comparing", Some(documents.len() as u64));
            let all: Vec<usize> = (0..documents.len()).collect();
            for chunk in all.chunks(DOCUMENTS_PER_CHUNK) {
                documents.for_each_in(chunk, &mut |document| {
                    match old.rank_of(&document.id) {
                        Some(rank) if same(&old.stored_by_rank(rank)?, document) => summary.counts.unchanged += 1,
                        Some(rank) => {
                            fate[rank as usize] = Fate::Replaced;
                            fresh.push((document.clone(), Some(rank)));
                            summary.counts.replaced += 1;
                        }
                        None => {
                            fresh.push((document.clone(), None));
                            summary.counts.added += 1;
                        }
                    }
                    Ok(())
                })?;
                progress.advance(chunk.len() as u64);
            }
            progress.finish();
            skipped_empty = documents.summary().skipped_empty;
        }
        Change::Delete { ids } => {
            for id in *ids {
                match old.rank_of(id) {
                    Some(rank) if fate[rank as usize] == Fate::Kept => {
                        fate[rank as usize] = Fate::Deleted;
                        summary.counts.deleted += 1;
                    }
                    // Listed twice.
                    Some(_) => {}
                    None => summary.counts.not_found += 1,
                }
            }
        }
        Change::Compact => {}
    }
    let compacting = matches!(change, Change::Compact);
    if fresh.is_empty() && summary.counts.deleted == 0 && !compacting {
        summary.seconds = started.elapsed().as_secs_f64();
        return Ok(summary);
    }

    // The ids served after the update, in byte order: those served, less the deleted (a replaced
    // document keeps its id), and the added. Each old rank's new one, and each fresh document's.
    let mut added: Vec<(&str, usize)> = fresh.iter().enumerate().filter(|(_, (_, replaces))| replaces.is_none()).map(|(j, (d, _))| (d.id.as_str(), j)).collect();
    added.sort_unstable();
    let mut new_rank_of_old = vec![DELETED; n_old];
    let mut fresh_rank = vec![DELETED; fresh.len()];
    let mut ids: Vec<&str> = Vec::with_capacity(n_old + added.len());
    let (mut a, mut b) = (0usize, 0usize);
    loop {
        while a < n_old && fate[a] == Fate::Deleted {
            a += 1;
        }
        let rank = ids.len() as u32;
        match (a < n_old, added.get(b)) {
            (false, None) => break,
            (true, Some(&(id, j))) if id < old.id(a as u32) => {
                fresh_rank[j] = rank;
                ids.push(id);
                b += 1;
            }
            (true, _) => {
                new_rank_of_old[a] = rank;
                ids.push(old.id(a as u32));
                a += 1;
            }
            (false, Some(&(id, j))) => {
                fresh_rank[j] = rank;
                ids.push(id);
                b += 1;
            }
        }
    }
    for (j, (_, replaces)) in fresh.iter().enumerate() {
        if let Some(rank) = replaces {
            fresh_rank[j] = new_rank_of_old[*rank as usize];
        }
    }
    if ids.is_empty() {
        return Err(Error::Empty { path: target.to_path_buf(), what: "the update would leave the index without documents".into(), hint: "build a new index instead (nothing was changed)".into() });
    }
    // A document of a segment served is live after the update when it was and its copy stays.
    let alive = |rank: u32| rank != DELETED && fate[rank as usize] == Fate::Kept;

    // Which segments are rewritten (module doc): all in a compaction; those left without live
    // documents (nothing to rewrite: they go); those with a deleted share past the policy's;
    // then every tier that holds `factor` segments, the new one counted.
    let segments = old.segments();
    let live: Vec<usize> = segments.iter().map(|s| s.ranks.iter().filter(|&&r| alive(r)).count()).collect();
    let mut rewritten: Vec<bool> = segments
        .iter()
        .zip(&live)
        .map(|(s, &live)| compacting || live == 0 || (s.ranks.len() - live) as f64 >= config.merge.deleted_share * s.ranks.len() as f64)
        .collect();
    loop {
        let new_size = fresh.len() + live.iter().zip(&rewritten).filter(|(_, &r)| r).map(|(&l, _)| l).sum::<usize>();
        let mut tiers: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (s, &l) in live.iter().enumerate().filter(|&(s, _)| !rewritten[s]) {
            tiers.entry(config.merge.tier(l)).or_default().push(s);
        }
        let new_tier = (new_size > 0).then(|| config.merge.tier(new_size));
        let full = tiers.iter().find(|(tier, members)| members.len() + usize::from(new_tier == Some(**tier)) >= config.merge.factor.max(2));
        match full {
            Some((_, members)) => members.clone().into_iter().for_each(|s| rewritten[s] = true),
            None => break,
        }
    }
    summary.merged_segments = rewritten.iter().filter(|&&r| r).count();

    // The new segment's documents, in date order (undated last; ties by rank), or in rank order
    // in an index kept in corpus order.
    let mut sources: Vec<(DayNumber, u32, Source)> = Vec::with_capacity(fresh.len());
    for (j, (document, _)) in fresh.iter().enumerate() {
        sources.push((document.date.as_ref().map_or(DayNumber::MAX, PubDate::last_day_number), fresh_rank[j], Source::Fresh(j)));
    }
    for (s, segment) in segments.iter().enumerate().filter(|&(s, _)| rewritten[s]) {
        for (d, &rank) in segment.ranks.iter().enumerate().filter(|&(_, &rank)| alive(rank)) {
            sources.push((segment.date_keys[d], new_rank_of_old[rank as usize], Source::Stored(s as u32, d as u32)));
        }
    }
    summary.rewritten = sources.len() - fresh.len();
    match old.manifest().doc_order {
        DocOrder::Date => sources.sort_unstable_by_key(|&(day, rank, _)| (day, rank)),
        DocOrder::Corpus => sources.sort_unstable_by_key(|&(_, rank, _)| rank),
    }

    let dir = placement.dir().to_path_buf();
    let tv = |e| Error::tantivy(target, e);
    let tantivy_dir = dir.join("tantivy");
    {
        let (index, fields) = create_tantivy(&dir, target)?;
        let threads = match (compacting, config.threads) {
            (true, 0) => std::thread::available_parallelism().map_or(1, |n| n.get()).min(1 + sources.len() / super::DOCS_PER_AUTO_THREAD),
            (true, n) => n,
            (false, _) => 1,
        }
        .min(WRITER_MEMORY_BYTES / (32 << 20));
        let mut writer: IndexWriter<TantivyDocument> = index.writer_with_num_threads(threads, WRITER_MEMORY_BYTES).map_err(tv)?;
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        progress.start("indexing", Some(sources.len() as u64));
        for chunk in sources.chunks(DOCUMENTS_PER_CHUNK) {
            for &(day, rank, source) in chunk {
                let stored;
                let (doc_id, doc_title, doc_text, doc_url, doc_date) = match source {
                    Source::Fresh(j) => {
                        let d = &fresh[j].0;
                        (d.id.as_str(), d.title.as_str(), d.text.as_str(), d.url.clone(), d.date.map(|d| d.to_string()))
                    }
                    Source::Stored(s, d) => {
                        stored = old.stored(s, d)?;
                        (stored.id.as_str(), stored.title.as_str(), stored.text.as_str(), stored.url.clone(), stored.date.clone())
                    }
                };
                let date = doc_date.filter(|_| day != DayNumber::MAX).map(|d| (d, day));
                let doc = fields.document(doc_id, doc_title, doc_text, doc_url.as_deref(), date, u64::from(rank));
                writer.add_document(doc).map_err(tv)?;
            }
            progress.advance(chunk.len() as u64);
        }
        writer.commit().map_err(tv)?;
        writer.wait_merging_threads().map_err(tv)?;
        progress.finish();
    }
    crate::io::pause_point("update:indexed");

    // The segments kept: their files linked (never changed), listed before the new ones.
    let old_tantivy = old.generation_dir().join("tantivy");
    let kept: HashSet<&str> = segments.iter().zip(&rewritten).filter(|(_, &r)| !r).map(|(s, _)| s.id.as_str()).collect();
    link_segments(&old_tantivy, &tantivy_dir, &kept)?;
    merge_meta(&old_tantivy, &tantivy_dir, &kept)?;
    crate::io::pause_point("update:linked");

    // Each segment's ranks and deletions as of this generation.
    let analyzer = Analyzer::default();
    let reader: tantivy::IndexReader = {
        let index = tantivy::Index::open_in_dir(&tantivy_dir).map_err(tv)?;
        index.tokenizers().register(TOKENIZER_NAME, QuantirTokenizer::default());
        index.reader_builder().reload_policy(tantivy::ReloadPolicy::Manual).try_into().map_err(tv)?
    };
    let searcher = reader.searcher();
    let body = searcher.schema().get_field(FIELD_BODY).map_err(tv)?;
    let mut ranks: Vec<(String, Vec<u32>)> = Vec::new();
    let mut deletions: BTreeMap<String, SegmentDeletions> = BTreeMap::new();
    for segment in searcher.segment_readers() {
        let id = segment.segment_id().uuid_string();
        match segments.iter().position(|s| s.id == id) {
            Some(s) => {
                let served = &segments[s];
                let mut deleted = old.deletions().segment(&id).cloned().unwrap_or_default();
                for (d, &rank) in served.ranks.iter().enumerate() {
                    if rank != DELETED && fate[rank as usize] != Fate::Kept {
                        let stored = old.stored(s as u32, d as u32)?;
                        deleted.add(&analyzer, &crate::corpus::passage(&stored.title, &stored.text));
                    }
                }
                ranks.push((id.clone(), served.ranks.iter().map(|&r| if alive(r) { new_rank_of_old[r as usize] } else { DELETED }).collect()));
                if deleted.documents > 0 {
                    deletions.insert(id, deleted);
                }
            }
            None => {
                let column = segment.fast_fields().u64(FIELD_RANK).map_err(tv)?;
                ranks.push((id, (0..segment.max_doc()).map(|d| column.first(d).map_or(DELETED, |r| r as u32)).collect()));
            }
        }
    }
    summary.segments = ranks.len();
    // A generation whose segments are all new has the right ranks in their column: it is laid
    // out as a build's.
    if !kept.is_empty() {
        write_ranks(&dir, &ranks)?;
    }
    Deletions::write(&deletions, &dir)?;

    // Term bounds: a kept segment's as they were (module doc), a new one's computed.
    let mut old_bounds = super::bounds::read(old.generation_dir())?.unwrap_or_default();
    let reused: HashSet<String> = old_bounds.iter().map(|(id, _)| id.clone()).filter(|id| kept.contains(id.as_str())).collect();
    let computed = segment_bounds(&searcher, body, target, progress, &|id| !reused.contains(id))?;
    let mut computed = computed.into_iter();
    let bounds: Vec<_> = ranks
        .iter()
        .map(|(id, _)| match old_bounds.iter().position(|(s, _)| s == id && reused.contains(id)) {
            Some(at) => old_bounds.swap_remove(at),
            None => computed.next().expect("a bound per segment not reused"),
        })
        .collect();
    super::bounds::write(&dir, &bounds)?;
    if deletions.is_empty() {
        write_decoded(&searcher, body, &dir, target)?;
    }
    drop(searcher);
    drop(reader);
    write_ids(&dir.join("ids.json"), ids.iter().copied())?;

    // Vectors in the new rank order: the kept documents' copied, the fresh ones encoded.
    let mut manifest = old.manifest().clone();
    if let Some(dense) = &manifest.dense {
        // Each new rank's row: a served document's (by its old rank) or a fresh one's.
        let mut from: Vec<Option<Result<u32, usize>>> = vec![None; ids.len()];
        for (rank, &new) in new_rank_of_old.iter().enumerate() {
            if new != DELETED && fate[rank] == Fate::Kept {
                from[new as usize] = Some(Ok(rank as u32));
            }
        }
        for (j, &rank) in fresh_rank.iter().enumerate() {
            from[rank as usize] = Some(Err(j));
        }
        let encoded = match fresh.is_empty() {
            true => Vec::new(),
            false => {
                let encoder = config.encoder.ok_or_else(|| Error::InvalidArgument {
                    name: "dense",
                    message: format!("{} holds dense vectors: new documents need its encoder\n\nhint: name the model it was built with ({}) with --dense", target.display(), dense.model_dir),
                })?;
                dense.check_model(target, encoder.dir(), encoder.config())?;
                let probes = probes(&fate);
                let mut texts: Vec<String> = fresh.iter().map(|(d, _)| crate::corpus::passage(&d.title, &d.text)).collect();
                for &rank in &probes {
                    let stored = old.stored_by_rank(rank)?;
                    texts.push(crate::corpus::passage(&stored.title, &stored.text));
                }
                let mut rows = encode(encoder, &texts, progress)?;
                let dim = dense.dim;
                check_probes(target, &old, dense.dtype, &probes, &rows[fresh.len() * dim..], dim)?;
                rows.truncate(fresh.len() * dim);
                rows
            }
        };
        summary.encoded = fresh.len();
        let vectors = old.vectors().expect("an index with dense vectors has them open");
        let dim = dense.dim;
        let dense_dir = dir.join("dense");
        std::fs::create_dir(&dense_dir).map_err(|e| Error::io(&dense_dir, e))?;
        let parts = from.chunks(4096).map(|chunk| {
            let mut rows = Vec::with_capacity(chunk.len() * dim);
            for source in chunk {
                match source.expect("every new rank has a row") {
                    Ok(rank) => rows.extend_from_slice(vectors.row(rank as usize)),
                    Err(j) => rows.extend_from_slice(&encoded[j * dim..(j + 1) * dim]),
                }
            }
            Ok(rows)
        });
        super::dense::vectors::write_parts(&dense_dir.join("vectors.f32"), dim, ids.len(), dense.dtype, parts)?;
        if let Some(params) = dense.hnsw {
            let vectors = super::dense::Vectors::open(&dense_dir.join("vectors.f32"))?;
            super::dense::hnsw::build(&vectors, params, &dense_dir, progress)?;
        }
    }

    let undated_kept = old.date_keys_by_rank().iter().zip(&fate).filter(|(&key, &f)| f == Fate::Kept && key == DayNumber::MAX).count();
    manifest.undated = undated_kept + fresh.iter().filter(|(d, _)| d.date.is_none()).count();
    manifest.documents = ids.len();
    manifest.skipped_empty += skipped_empty;
    manifest.generation = placement.generation();
    let change_input = match &change {
        Change::Upsert { documents, path } => Some(Input::digested(Role::Changes, path, documents.digest())),
        Change::Delete { ids } => Some(Input::digested(Role::Changes, Path::new("deleted ids"), Digest::of_bytes(ids.join("\n").as_bytes()))),
        Change::Compact => None,
    };
    let inputs = std::iter::once(Input::artifact(Role::Index, target, old.fingerprint().clone())).chain(change_input).collect();
    manifest.provenance = Provenance::new(Artifact::Index, inputs, &UpdateSettings { operation: change.operation(), merge: config.merge, base: old.fingerprint() });
    manifest.files = super::integrity::digest_tree(&dir)?;
    let manifest_digest = manifest.write(&dir)?;
    super::generation::sync_dir(&dir)?;
    crate::io::pause_point("update:written");
    // Released first, so that committing can remove the generation it replaces.
    drop(old);
    placement.commit(&manifest_digest)?;
    crate::io::pause_point("update:committed");
    summary.generation = manifest.generation;
    summary.documents = manifest.documents;
    summary.committed = true;
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Whether `document` is what the index stores as `stored`: the same title, text, source and
/// date (as the index normalised it).
fn same(stored: &StoredDocument, document: &Document) -> bool {
    stored.title == document.title && stored.text == document.text && stored.url == document.url && stored.date == document.date.map(|d| d.to_string())
}

/// Kept documents encoded again beside the fresh ones, whose vectors must come out as stored.
const PROBES: usize = 8;

/// Encodes `texts`, in their order.
fn encode(encoder: &Encoder, texts: &[String], progress: &dyn Progress) -> Result<Vec<f32>> {
    progress.start("encoding", Some(texts.len() as u64));
    let mut rows = Vec::new();
    for part in texts.chunks(1024) {
        let refs: Vec<&str> = part.iter().map(String::as_str).collect();
        rows.extend(encoder.encode(&refs, TextKind::Passage)?.0);
        progress.advance(part.len() as u64);
    }
    progress.finish();
    Ok(rows)
}

/// Up to [`PROBES`] kept documents, spread evenly over the ranks.
fn probes(fate: &[Fate]) -> Vec<u32> {
    let kept: Vec<u32> = (0..fate.len() as u32).filter(|&r| fate[r as usize] == Fate::Kept).collect();
    let step = kept.len().div_ceil(PROBES).max(1);
    kept.into_iter().step_by(step).collect()
}

/// An update is a rebuild only if the encoder gives every passage the vector a rebuild would:
/// the probes, kept documents encoded again in the same calls as the new ones (batched with
/// them), must come out as the index stores them, bit for bit (as stored: an f16 index holds
/// the new vectors rounded the same way). They do for all-MiniLM-L6-v2 int8 on ONNX Runtime's
/// CPU provider, whose vector of a passage does not depend on the passages batched with it
/// (measured: 300 SciFact passages each batched with three others, none differs); another
/// model, runtime or machine may not, and is refused rather than mixed.
fn check_probes(target: &Path, old: &Index, dtype: super::dense::VectorDtype, probes: &[u32], rows: &[f32], dim: usize) -> Result<()> {
    let vectors = old.vectors().expect("an index with dense vectors has them open");
    let stored_as = |x: f32| match dtype {
        super::dense::VectorDtype::F32 => x,
        super::dense::VectorDtype::F16 => half::f16::from_f32(x).to_f32(),
    };
    for (&rank, row) in probes.iter().zip(rows.chunks(dim)) {
        let stored = vectors.row(rank as usize);
        if stored.iter().zip(row).any(|(&s, &n)| s.to_bits() != stored_as(n).to_bits()) {
            let dot: f32 = stored.iter().zip(row).map(|(a, b)| a * b).sum();
            let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
            return Err(Error::VectorsDiffer { index: target.to_path_buf(), id: old.id(rank).to_string(), cosine: dot / (norm(stored) * norm(row)).max(f32::MIN_POSITIVE) });
        }
    }
    Ok(())
}

/// Links the files of the segments `kept` (tantivy names them by the segment's id) from the
/// tantivy folder `from` into `to`; copies them where the file system cannot link.
fn link_segments(from: &Path, to: &Path, kept: &HashSet<&str>) -> Result<()> {
    for entry in std::fs::read_dir(from).map_err(|e| Error::io(from, e))? {
        let entry = entry.map_err(|e| Error::io(from, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((stem, _)) = name.split_once('.') else { continue };
        if !kept.contains(stem) {
            continue;
        }
        let (source, target) = (entry.path(), to.join(&name));
        if std::fs::hard_link(&source, &target).is_err() {
            std::fs::copy(&source, &target).map_err(|e| Error::io(&target, e))?;
        }
    }
    Ok(())
}

/// Writes the tantivy folder `to`'s `meta.json`: its own segments after the segments `kept` of
/// the folder `from`, as that folder's `meta.json` lists them.
fn merge_meta(from: &Path, to: &Path, kept: &HashSet<&str>) -> Result<()> {
    let read = |path: &Path| -> Result<serde_json::Value> {
        let text = crate::io::read_utf8(path)?;
        serde_json::from_str(&text).map_err(|e| crate::io::json_error(path, crate::error::Position { line: 1, column: Some(1) }, &e))
    };
    let (from_path, to_path) = (from.join("meta.json"), to.join("meta.json"));
    let (old, mut new) = (read(&from_path)?, read(&to_path)?);
    let segment_id = |entry: &serde_json::Value| entry.get("segment_id").and_then(|v| v.as_str()).map(|s| s.replace('-', ""));
    let mut segments: Vec<serde_json::Value> = old.get("segments").and_then(|s| s.as_array()).into_iter().flatten().filter(|e| segment_id(e).is_some_and(|id| kept.contains(id.as_str()))).cloned().collect();
    if segments.len() != kept.len() {
        return Err(Error::IndexDamaged { index: from.to_path_buf(), file: from_path, damage: crate::error::Damage::Inconsistent { what: format!("{} of the {} segments kept are listed", segments.len(), kept.len()) } });
    }
    segments.extend(new.get("segments").and_then(|s| s.as_array()).into_iter().flatten().cloned());
    let opstamp = |v: &serde_json::Value| v.get("opstamp").and_then(|o| o.as_u64()).unwrap_or(0);
    new["opstamp"] = opstamp(&old).max(opstamp(&new)).into();
    new["segments"] = segments.into();
    crate::io::write_synced(&to_path, (serde_json::to_string_pretty(&new).expect("meta serialises") + "\n").as_bytes())
}
