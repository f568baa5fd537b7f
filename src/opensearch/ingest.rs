//! Loading a corpus into the cluster: `_bulk` in batches, resumable, swapped in by alias.

use std::time::{Duration, Instant};

use opensearch::http::Method;
use rayon::prelude::*;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::client::{Body, Cluster};
use super::{wire_term, LAYOUT_VERSION, META_KEY};
use crate::analysis::{Analyzer, ANALYZER_NAME, ANALYZER_VERSION};
use crate::corpus::{passage, Document, InOrder, Origin};
use crate::error::{Error, Result};
use crate::index::{Bm25Params, DenseManifest, HnswParams, Index};
use crate::io::Progress;

/// The `knn_vector` field that holds a document's vector.
pub(crate) const VECTOR_FIELD: &str = "vector";

/// The k-NN engine quantir's indexes use, and the only one it searches: Lucene's HNSW runs inside
/// the JVM; the faiss and nmslib engines need native libraries (the faiss engine accepts an index
/// without them and then kills the node on its first document).
pub(crate) const KNN_ENGINE: &str = "lucene";

/// How an index is laid out on the cluster.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadConfig {
    /// BM25's k1 and b, fixed in the index's similarity settings.
    pub bm25: Bm25Params,
    /// Primary shards.
    pub shards: u32,
    /// Replicas of each primary.
    pub replicas: u32,
    /// Documents per `_bulk` request.
    pub batch: usize,
    /// The HNSW graph's parameters when vectors are loaded (Lucene's graph, one per segment).
    pub hnsw: HnswParams,
}

impl Default for LoadConfig {
    /// Two primaries with one replica each, 500 documents a request.
    fn default() -> Self {
        LoadConfig { bm25: Bm25Params::default(), shards: 2, replicas: 1, batch: 500, hnsw: HnswParams::default() }
    }
}

/// What a load did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LoadSummary {
    /// The physical index the alias now names.
    pub physical: String,
    /// Documents in it.
    pub documents: usize,
    /// Documents without a date.
    pub undated: usize,
    /// Documents an interrupted load had already sent, not sent again.
    pub resumed: usize,
    /// The same corpus and settings were already loaded and named by the alias: nothing sent.
    pub unchanged: bool,
    /// Wall time.
    pub seconds: f64,
}

/// The `_meta` record of a physical index.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct IndexMeta {
    pub layout_version: u32,
    pub quantir_version: String,
    pub analyzer: String,
    pub analyzer_version: u32,
    pub bm25: Bm25Params,
    pub fingerprint: String,
    pub documents: usize,
    /// Documents known to be in the index: every batch before this position has been accepted.
    pub loaded: usize,
    /// Loaded, merged and counted: ready to be named by the alias.
    pub complete: bool,
    pub corpus: String,
    /// Changed by `quantir add`/`delete` since the load: its content is no longer the corpus its
    /// name's fingerprint says.
    #[serde(default)]
    pub updated: bool,
    /// The vectors loaded with the documents (field [`VECTOR_FIELD`], Lucene's HNSW with the
    /// recorded parameters): the encoder that made them, so queries are encoded alike. None: BM25
    /// only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dense: Option<DenseManifest>,
}

/// Checks an index or alias name against OpenSearch's rules before any request.
fn check_name(name: &str) -> Result<()> {
    let bad = name.is_empty()
        || name.len() > 200
        || name.starts_with(['-', '_', '+', '.'])
        || name.chars().any(|c| c.is_ascii_uppercase() || "\\/*?\"<>| ,#:".contains(c));
    if bad {
        return Err(Error::Value {
            at: "--opensearch-index".into(),
            expected: "a lowercase OpenSearch index name without \\ / * ? \" < > | , # : or spaces, not starting with - _ + .".into(),
            found: format!("{name:?}"),
        });
    }
    Ok(())
}

/// The corpus and every setting that changes the index, hashed: equal fingerprints, equal indexes.
/// One pass over the documents in order (a corpus on disk is never held whole).
fn fingerprint(corpus: &dyn InOrder, config: &LoadConfig, vectors: Option<&Index>) -> Result<String> {
    let mut hash = Sha256::new();
    hash.update(format!("layout {LAYOUT_VERSION} analyzer {ANALYZER_NAME} {ANALYZER_VERSION} k1 {} b {} shards {} replicas {}\0", config.bm25.k1, config.bm25.b, config.shards, config.replicas));
    if let Some(index) = vectors {
        // The vectors are the embedded index's: its fingerprint covers them.
        hash.update(format!("vectors {} m {} ef_construction {}\0", index.fingerprint().0, config.hnsw.max_connections, config.hnsw.ef_construction));
    }
    corpus.for_each_from(0, &mut |d, _| {
        for part in [d.id.as_str(), &d.title, &d.text, d.url.as_deref().unwrap_or("\u{1}")] {
            hash.update(part.as_bytes());
            hash.update([0]);
        }
        hash.update(d.date.map(|d| d.to_string()).unwrap_or_default().as_bytes());
        hash.update([0]);
        Ok(())
    })?;
    Ok(hash.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// The physical index's settings and mapping.
fn create_body(config: &LoadConfig, meta: &IndexMeta) -> Value {
    let mut body = json!({
        "settings": {
            "number_of_shards": config.shards,
            "number_of_replicas": config.replicas,
            "refresh_interval": "-1",
            // A segment with any deleted copy is rewritten by `only_expunge_deletes` (the default
            // leaves segments under 10% deleted alone, and their copies in the statistics).
            "merge": { "policy": { "expunge_deletes_allowed": 0 } },
            "similarity": { "quantir_bm25": { "type": "BM25", "k1": config.bm25.k1, "b": config.bm25.b } }
        },
        "mappings": {
            "dynamic": "strict",
            "_meta": { META_KEY: meta },
            "_source": { "excludes": ["terms"] },
            "properties": {
                "terms": { "type": "text", "analyzer": "whitespace", "similarity": "quantir_bm25", "index_options": "freqs" },
                "id": { "type": "keyword" },
                "date_last": { "type": "date", "format": "strict_date" },
                "date": { "type": "keyword", "index": false },
                "title": { "type": "text", "index": false },
                "text": { "type": "text", "index": false },
                "url": { "type": "keyword", "index": false },
                // Where the document's record is, so that a `create` refused for an id already
                // there tells a re-sent copy (same offset) from a repeated id (another record).
                "line": { "type": "long", "index": false, "doc_values": false },
                "offset": { "type": "long", "index": false, "doc_values": false }
            }
        }
    });
    if let Some(dense) = &meta.dense {
        body["settings"]["index.knn"] = json!(true);
        // Inner product, as the embedded index scores; OpenSearch reports it as `ip + 1` (or
        // `1 / (1 - ip)` below zero), which the search maps back.
        body["mappings"]["properties"][VECTOR_FIELD] = json!({
            "type": "knn_vector",
            "dimension": dense.dim,
            "method": { "name": "hnsw", "space_type": "innerproduct", "engine": KNN_ENGINE, "parameters": { "m": config.hnsw.max_connections, "ef_construction": config.hnsw.ef_construction } }
        });
        body["mappings"]["_source"]["excludes"] = json!(["terms", VECTOR_FIELD]);
    }
    body
}

/// One document as sent: quantir's terms, the stored fields, the cutoff's date.
pub(crate) fn source(analyzer: &Analyzer, d: &Document) -> Value {
    let mut terms = String::new();
    analyzer.analyze(&passage(&d.title, &d.text), &mut |t| {
        if !terms.is_empty() {
            terms.push(' ');
        }
        terms.push_str(&wire_term(t));
    });
    let mut doc = json!({ "id": d.id, "terms": terms, "title": d.title, "text": d.text });
    if let Some(url) = &d.url {
        doc["url"] = json!(url);
    }
    if let Some(date) = &d.date {
        doc["date"] = json!(date.to_string());
        doc["date_last"] = json!(date.last_day().format("%Y-%m-%d").to_string());
    }
    doc
}

/// Reads a physical index's `_meta.quantir`, `None` when it has none.
pub(crate) fn read_meta(cluster: &Cluster, physical: &str) -> Result<Option<IndexMeta>> {
    let value = cluster.request(Method::Get, &format!("/{physical}/_mapping"), &[], Body::None, "reading the index mapping")?;
    let meta = value.as_object().and_then(|m| m.values().next()).map(|m| m["mappings"]["_meta"][META_KEY].clone()).unwrap_or(Value::Null);
    if meta.is_null() {
        return Ok(None);
    }
    serde_json::from_value(meta).map(Some).map_err(|e| Error::OpenSearchIncompatible { index: physical.to_string(), what: "its _meta.quantir record", found: e.to_string(), supported: format!("layout {LAYOUT_VERSION}") })
}

pub(crate) fn write_meta(cluster: &Cluster, physical: &str, meta: &IndexMeta) -> Result<()> {
    cluster.request(Method::Put, &format!("/{physical}/_mapping"), &[], Body::Json(json!({ "_meta": { META_KEY: meta } })), "recording the load's progress")?;
    Ok(())
}

/// The physical indexes `alias` names (empty when it names none). A concrete index of that name
/// is an error: quantir will not replace an index it did not make.
pub(crate) fn alias_targets(cluster: &Cluster, alias: &str) -> Result<Vec<String>> {
    let (status, value) = cluster.request_status(Method::Get, &format!("/_alias/{alias}"), &[], Body::None, "reading the alias")?;
    if status.as_u16() == 404 {
        let (status, _) = cluster.request_status(Method::Head, &format!("/{alias}"), &[], Body::None, "checking the index name")?;
        if status.is_success() {
            return Err(Error::OpenSearchIncompatible { index: alias.to_string(), what: "the name", found: "a concrete index, not an alias".into(), supported: "an alias quantir manages (choose another --opensearch-index, or delete that index)".into() });
        }
        return Ok(Vec::new());
    }
    if !status.is_success() {
        return Err(cluster.error(status, &value, "reading the alias"));
    }
    Ok(value.as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default())
}

/// Loads `corpus` into the cluster under `cluster.config().index`, replacing what the alias named
/// only once the new index is complete. Re-running after an interruption resumes; re-running
/// with the same corpus and settings does nothing.
///
/// With `vectors`, an embedded index built from the same corpus with `--dense`: each document is
/// loaded with its vector from that index (the same vectors, so dense retrieval on the cluster
/// equals the embedded index's), and a document the index does not hold as the corpus has it is
/// an error ([`Error::VectorsMismatch`]).
pub fn build(cluster: &Cluster, corpus: &dyn InOrder, corpus_path: &std::path::Path, config: &LoadConfig, vectors: Option<&Index>, progress: &dyn Progress) -> Result<LoadSummary> {
    config.bm25.validate()?;
    let dense = match vectors {
        None => None,
        Some(index) => {
            let manifest = index.manifest().dense.clone().ok_or_else(|| Error::InvalidArgument {
                name: "vectors_from",
                message: format!("{} has no dense vectors\n\nhint: build it with `quantir index --corpus … --index {} --dense models/all-minilm-l6-v2`", index.path().display(), index.path().display()),
            })?;
            crate::ranges::HNSW_M.check(config.hnsw.max_connections as u64)?;
            crate::ranges::HNSW_EF_CONSTRUCTION.check(config.hnsw.ef_construction as u64)?;
            Some(DenseManifest { hnsw: Some(config.hnsw), dtype: crate::index::dense::VectorDtype::F32, ..manifest })
        }
    };
    if config.shards == 0 || config.batch == 0 {
        return Err(Error::InvalidArgument { name: "opensearch_shards", message: "expected at least 1 shard and 1 document per batch".into() });
    }
    let alias = cluster.config().index.clone();
    check_name(&alias)?;
    let started = Instant::now();
    let fingerprint = fingerprint(corpus, config, vectors)?;
    let targets = alias_targets(cluster, &alias)?;
    // Named by the fingerprint; a name an updated index holds (its content no longer what the
    // name says) is passed over for the next free one.
    let mut physical = String::new();
    let mut existing = None;
    for n in 0..=8 {
        let name = match n {
            0 => format!("{alias}-{}", &fingerprint[..16]),
            n => format!("{alias}-{}-{n}", &fingerprint[..16]),
        };
        let (exists, _) = cluster.request_status(Method::Head, &format!("/{name}"), &[], Body::None, "checking for an earlier load")?;
        if !exists.is_success() {
            physical = name;
            break;
        }
        match read_meta(cluster, &name)? {
            Some(meta) if meta.fingerprint == fingerprint => {
                (physical, existing) = (name, Some(meta));
                break;
            }
            Some(meta) if meta.updated => continue,
            _ => return Err(Error::OpenSearchIncompatible { index: name, what: "an index of that name", found: "not a quantir load of this corpus".into(), supported: "a name quantir chose (delete it)".into() }),
        }
    }
    if physical.is_empty() {
        return Err(Error::OpenSearchIncompatible { index: alias.clone(), what: "the names for this corpus", found: "all taken by updated indexes".into(), supported: "a free one (delete the indexes no alias names)".into() });
    }
    let undated = corpus.load_summary().undated;
    let summary = |resumed, unchanged| LoadSummary { physical: physical.clone(), documents: corpus.count(), undated, resumed, unchanged, seconds: started.elapsed().as_secs_f64() };

    let mut meta = if let Some(meta) = existing {
        meta
    } else {
        let meta = IndexMeta {
            layout_version: LAYOUT_VERSION,
            quantir_version: env!("CARGO_PKG_VERSION").to_string(),
            analyzer: ANALYZER_NAME.to_string(),
            analyzer_version: ANALYZER_VERSION,
            bm25: config.bm25,
            fingerprint: fingerprint.clone(),
            documents: corpus.count(),
            loaded: 0,
            complete: false,
            corpus: corpus_path.display().to_string(),
            updated: false,
            dense,
        };
        cluster.request(Method::Put, &format!("/{physical}"), &[], Body::Json(create_body(config, &meta)), "creating the index")?;
        meta
    };
    if meta.complete && targets == [physical.clone()] {
        return Ok(summary(0, true));
    }
    let resumed = meta.loaded.min(corpus.count());
    if !meta.complete {
        load(cluster, corpus, &physical, &mut meta, config, vectors, progress)?;
        finish(cluster, &physical, &mut meta)?;
    }
    // One `_aliases` call: searches see the old index or the new one, never neither.
    let mut actions: Vec<Value> = targets.iter().filter(|t| **t != physical).map(|t| json!({ "remove": { "index": t, "alias": alias } })).collect();
    actions.push(json!({ "add": { "index": physical, "alias": alias } }));
    cluster.request(Method::Post, "/_aliases", &[], Body::Json(json!({ "actions": actions })), "moving the alias")?;
    for old in targets.iter().filter(|t| **t != physical) {
        cluster.request(Method::Delete, &format!("/{old}"), &[], Body::None, "deleting the previous index")?;
    }
    Ok(summary(resumed, false))
}

/// Sends every document from `meta.loaded` on, a window of `concurrency` batches at a time,
/// recording progress in `_meta` as it goes. Only the window being sent is held in memory.
fn load(cluster: &Cluster, corpus: &dyn InOrder, physical: &str, meta: &mut IndexMeta, config: &LoadConfig, vectors: Option<&Index>, progress: &dyn Progress) -> Result<()> {
    let sender = Sender { cluster, physical, analyzer: Analyzer::default(), config, vectors, file: &corpus.load_summary().file };
    let size = (config.batch * cluster.config().concurrency).max(1);
    progress.start("loading into OpenSearch", Some(corpus.count() as u64));
    progress.advance(meta.loaded as u64);
    let mut failures: Vec<(String, String)> = Vec::new();
    let mut last_record = Instant::now();
    let mut window: Vec<(Document, Option<Origin>)> = Vec::with_capacity(size);
    let mut send = |window: &mut Vec<(Document, Option<Origin>)>, meta: &mut IndexMeta| -> Result<()> {
        send_window(&sender, window, &mut failures)?;
        progress.advance(window.len() as u64);
        meta.loaded += window.len();
        window.clear();
        if failures.is_empty() && last_record.elapsed() > Duration::from_secs(2) {
            write_meta(cluster, physical, meta)?;
            last_record = Instant::now();
        }
        Ok(())
    };
    corpus.for_each_from(meta.loaded, &mut |d, origin| {
        window.push((d.clone(), origin));
        if window.len() == size {
            send(&mut window, meta)?;
        }
        Ok(())
    })?;
    if !window.is_empty() {
        send(&mut window, meta)?;
    }
    progress.finish();
    if !failures.is_empty() {
        let examples = failures.iter().take(3).map(|(id, why)| format!("{id:?}: {why}")).collect::<Vec<_>>().join("; ");
        return Err(Error::OpenSearchDocuments { index: physical.to_string(), failed: failures.len(), examples });
    }
    write_meta(cluster, physical, meta)
}

/// What every window of a load is sent with: the physical index, the analyzer of its stored
/// terms, the load's settings, the index the vectors come from, and the corpus file errors name.
struct Sender<'a> {
    cluster: &'a Cluster,
    physical: &'a str,
    analyzer: Analyzer,
    config: &'a LoadConfig,
    vectors: Option<&'a Index>,
    file: &'a std::path::Path,
}

/// Sends one window of documents as `_bulk` creates, `concurrency` requests at a time; 429s on
/// single documents (a full write queue) are sent again, other failures added to `failures`. A
/// create refused because the id is there (409) is a copy an interrupted load already sent when
/// the stored copy came from the same record, and a repeated id ([`Error::DuplicateId`]) otherwise.
fn send_window(sender: &Sender<'_>, window: &[(Document, Option<Origin>)], failures: &mut Vec<(String, String)>) -> Result<()> {
    let Sender { cluster, physical, ref analyzer, config, vectors, file } = *sender;
    // Each document's vector, read (and its text checked) once, before any attempt.
    let rows: Vec<Option<&[f32]>> = match vectors {
        None => vec![None; window.len()],
        Some(index) => window.iter().map(|(d, _)| vector_of(index, d).map(Some)).collect::<Result<_>>()?,
    };
    let rows: std::collections::HashMap<&str, &[f32]> = window.iter().zip(&rows).filter_map(|((d, _), r)| r.map(|r| (d.id.as_str(), r))).collect();
    let mut pending: Vec<&(Document, Option<Origin>)> = window.iter().collect();
    let mut refused: Vec<(&str, Origin)> = Vec::new();
    for attempt in 0..=cluster.config().retries {
        if pending.is_empty() {
            break;
        }
        if attempt > 0 {
            std::thread::sleep(Duration::from_millis(200 << attempt.min(5)));
        }
        let requests = pending
            .par_chunks(config.batch)
            .map(|batch| {
                let mut body = String::new();
                for (d, origin) in batch {
                    // `create`, not `index`: a resumed load re-sends the documents after its
                    // last checkpoint, and re-indexing one would leave its first copy
                    // soft-deleted, counted in the term statistics until a merge may drop it
                    // — which OpenSearch defers while replicas' retention leases hold recent
                    // operations (CI found 200 such copies left after the merges).
                    body.push_str(&json!({ "create": { "_index": physical, "_id": d.id } }).to_string());
                    body.push('\n');
                    let mut doc = source(analyzer, d);
                    if let Some(row) = rows.get(d.id.as_str()) {
                        doc[VECTOR_FIELD] = json!(row);
                    }
                    if let Some(origin) = origin {
                        doc["line"] = json!(origin.line);
                        doc["offset"] = json!(origin.offset);
                    }
                    body.push_str(&doc.to_string());
                    body.push('\n');
                }
                (Method::Post, "/_bulk".to_string(), Vec::new(), Body::NdJson(body))
            })
            .collect();
        let answers = cluster.request_all(requests, "loading documents (_bulk)")?;
        let mut again = Vec::new();
        for ((status, value), batch) in answers.into_iter().zip(pending.chunks(config.batch)) {
            if !status.is_success() {
                return Err(cluster.error(status, &value, "loading documents (_bulk)"));
            }
            let items = value["items"].as_array().map(Vec::as_slice).unwrap_or(&[]);
            if items.len() != batch.len() {
                return Err(Error::OpenSearch { action: "loading documents (_bulk)".into(), status: status.as_u16(), message: format!("{} answers for {} documents", items.len(), batch.len()) });
            }
            for (item, sent) in items.iter().zip(batch) {
                let result = &item["create"];
                match (result["status"].as_u64().unwrap_or(0), sent.1) {
                    (200..=299, _) | (409, None) => {}
                    (409, Some(origin)) => refused.push((&sent.0.id, origin)),
                    (429, _) if attempt < cluster.config().retries => again.push(*sent),
                    _ => failures.push((sent.0.id.clone(), super::client::reason(result))),
                }
            }
        }
        pending = again;
    }
    if refused.is_empty() {
        return Ok(());
    }
    let ids: Vec<&str> = refused.iter().map(|(id, _)| *id).collect();
    let action = "reading the stored copies of refused documents (_mget)";
    let found = cluster.request(Method::Post, &format!("/{physical}/_mget"), &[("_source_includes", "line,offset".to_string())], Body::Json(json!({ "ids": ids })), action)?;
    let docs = found["docs"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    if docs.len() != refused.len() {
        return Err(Error::OpenSearch { action: action.into(), status: 200, message: format!("{} answers for {} ids", docs.len(), refused.len()) });
    }
    for (stored, (id, origin)) in docs.iter().zip(&refused) {
        if stored["_source"]["offset"].as_u64() != Some(origin.offset) {
            let other = stored["_source"]["line"].as_u64().map_or(0, |l| l as usize);
            return Err(Error::DuplicateId { path: file.to_path_buf(), id: id.to_string(), first_line: other.min(origin.line), line: other.max(origin.line) });
        }
    }
    Ok(())
}

/// The vector `index` holds for `document`, checked to be the vector of the same passage: the
/// index must hold the id, with the same title and text.
fn vector_of<'a>(index: &'a Index, document: &Document) -> Result<&'a [f32]> {
    let mismatch = |why: &str| Error::VectorsMismatch { index: index.path().to_path_buf(), id: document.id.clone(), why: why.to_string() };
    let rank = index.rank_of(&document.id).ok_or_else(|| mismatch("the index does not hold it"))?;
    let stored = index.stored_by_rank(rank)?;
    if (stored.title.as_str(), stored.text.as_str()) != (document.title.as_str(), document.text.as_str()) {
        return Err(mismatch("the index holds another title or text for it"));
    }
    let vectors = index.vectors().ok_or_else(|| mismatch("the index has no vectors"))?;
    Ok(vectors.row(rank as usize))
}

/// Makes a loaded index searchable and exact: refresh, wait for every replica, merge away
/// re-sent copies, count, mark complete.
fn finish(cluster: &Cluster, physical: &str, meta: &mut IndexMeta) -> Result<()> {
    cluster.request(Method::Put, &format!("/{physical}/_settings"), &[], Body::Json(json!({ "index": { "refresh_interval": null } })), "restoring the refresh interval")?;
    cluster.request(Method::Post, &format!("/{physical}/_refresh"), &[], Body::None, "refreshing the index")?;
    // Every replica in place before the merges, so that they run on every copy the count below
    // includes.
    let health = cluster.request(Method::Get, &format!("/_cluster/health/{physical}"), &[("wait_for_status", "green".into()), ("timeout", "120s".into())], Body::None, "waiting for the replicas")?;
    if health["timed_out"].as_bool() == Some(true) {
        return Err(Error::OpenSearch {
            action: "waiting for the replicas".into(),
            status: 200,
            message: format!("{physical} is {} after 120 s: its replicas are not all allocated (a cluster of n nodes holds at most n - 1 replicas)\n\nhint: use --opensearch-replicas 0 on one node", health["status"].as_str().unwrap_or("?")),
        });
    }
    // First every deleted copy away (a shard already in one segment is not rewritten by
    // `max_num_segments=1`, deleted copies and all), then one segment a shard for speed.
    cluster.request_long(Method::Post, &format!("/{physical}/_forcemerge"), &[("only_expunge_deletes", "true".to_string())], "merging away deleted copies")?;
    cluster.request_long(Method::Post, &format!("/{physical}/_forcemerge"), &[("max_num_segments", "1".to_string())], "merging the index")?;
    cluster.request(Method::Post, &format!("/{physical}/_refresh"), &[], Body::None, "refreshing the index")?;
    let stats = cluster.request(Method::Get, &format!("/{physical}/_stats/docs"), &[], Body::None, "reading the index's document counts")?;
    let deleted = stats["_all"]["total"]["docs"]["deleted"].as_u64().unwrap_or(0);
    if deleted > 0 {
        return Err(Error::OpenSearch {
            action: "merging away deleted copies".into(),
            status: 200,
            message: format!("{physical} still holds {deleted} deleted copies after the merge, which would change document frequencies; run the load again"),
        });
    }
    let count = cluster.request(Method::Get, &format!("/{physical}/_count"), &[], Body::None, "counting documents")?;
    let found = count["count"].as_u64().unwrap_or(0) as usize;
    if found != meta.documents {
        return Err(Error::OpenSearch { action: "counting the loaded documents".into(), status: 200, message: format!("{physical} holds {found} documents, the corpus has {}; run the load again", meta.documents) });
    }
    meta.complete = true;
    write_meta(cluster, physical, meta)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_opensearch_rules() {
        assert!(check_name("quantemp").is_ok());
        assert!(check_name("scifact-2").is_ok());
        for bad in ["", "Upper", "_x", "a b", "a,b", "a*"] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_document_carries_its_terms_and_the_cutoff_date() {
        let d = Document { id: "d1".into(), title: "GDP".into(), text: "grew 3.2% in 2021".into(), url: None, date: crate::corpus::PubDate::parse("2021-03") };
        let s = source(&Analyzer::default(), &d);
        assert_eq!(s["terms"], "gdp grew 3.2 percent 2021");
        assert_eq!(s["date_last"], "2021-03-31", "a month ends on its last day");
        assert_eq!(s["date"], "2021-03");
        assert!(s.get("url").is_none());
    }
}
