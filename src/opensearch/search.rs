//! Searching the cluster: batches of queries through `_msearch`, each exact under its cutoff.

use opensearch::http::Method;
use rustc_hash::FxHashMap;
use serde_json::{json, Value};

use super::client::{reason, Body, Cluster};
use super::ingest::{alias_targets, read_meta, IndexMeta, KNN_ENGINE, VECTOR_FIELD};
use super::{wire_term, READABLE_LAYOUTS};
use crate::analysis::{Analyzer, ANALYZER_NAME, ANALYZER_VERSION};
use crate::error::{Error, Result};
use crate::index::{Bm25Params, DenseManifest};
use crate::io::Progress;
use crate::retrieve::{Ann, Cutoff, UndatedPolicy};

/// Queries per `_msearch` request.
const QUERIES_PER_REQUEST: usize = 64;

/// OpenSearch's default `index.max_result_window`: the deepest page a search may ask for.
pub const MAX_K: usize = 10_000;

/// One query of a batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RemoteQuery<'a> {
    /// The query text, analysed by quantir.
    pub text: &'a str,
    /// Which documents it may return.
    pub cutoff: Cutoff,
    /// How many.
    pub k: usize,
    /// A document id never to return (`--remove-query`).
    pub exclude: Option<&'a str>,
}

/// One dense query of a batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RemoteVectorQuery<'a> {
    /// The query's vector (the index's dimension).
    pub vector: &'a [f32],
    /// Which documents it may return.
    pub cutoff: Cutoff,
    /// How many.
    pub k: usize,
    /// A document id never to return (`--remove-query`).
    pub exclude: Option<&'a str>,
}

/// How the cluster's scores become the embedded index's.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Scores {
    /// BM25, times a constant ([`score_scale`]).
    Bm25(f32),
    /// The k-NN plugin's inner-product score (`ip + 1` from 0 up, `1 / (1 - ip)` below), back to
    /// the inner product.
    InnerProduct,
}

impl Scores {
    fn map(self, score: f32) -> f32 {
        match self {
            Scores::Bm25(scale) => score * scale,
            Scores::InnerProduct if score >= 1.0 => score - 1.0,
            Scores::InnerProduct => 1.0 - 1.0 / score,
        }
    }
}

/// One hit: the document's id and its score (BM25, or the inner product of a dense search).
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteHit {
    /// Document id.
    pub id: String,
    /// BM25 score.
    pub score: f32,
    /// The stored fields, when asked for ([`RemoteIndex::search_batch`]'s `stored`).
    pub stored: Option<Value>,
}

/// A quantir index on a cluster, checked and ready to search.
#[derive(Debug)]
pub struct RemoteIndex {
    cluster: Cluster,
    meta: IndexMeta,
    analyzer: Analyzer,
    /// What a score from the cluster is multiplied by to be the embedded scorer's (see
    /// [`score_scale`]).
    scale: f32,
}

/// OpenSearch 2.x's `BM25` similarity is Lucene's `LegacyBM25Similarity`, which keeps the
/// constant factor k1 + 1 in the numerator that Lucene 8 dropped; 3.x's `BM25` is Lucene's
/// `BM25Similarity`, the embedded scorer's formula. The factor changes no ranking; removing it
/// makes the scores equal too.
fn score_scale(major_version: u32, bm25: Bm25Params) -> f32 {
    if major_version < 3 {
        1.0 / (1.0 + bm25.k1)
    } else {
        1.0
    }
}

impl RemoteIndex {
    /// Opens the index the configuration names: the alias must exist and name one complete
    /// physical index built by this analyzer version and layout.
    pub fn open(cluster: Cluster) -> Result<RemoteIndex> {
        let (_, meta) = served(&cluster)?;
        let scale = score_scale(cluster.major_version(), meta.bm25);
        Ok(RemoteIndex { cluster, meta, analyzer: Analyzer::default(), scale })
    }


    /// The BM25 parameters its similarity was created with.
    pub fn bm25(&self) -> Bm25Params {
        self.meta.bm25
    }

    /// The fingerprint of the corpus and settings its load recorded: what identifies its content
    /// in a run's provenance.
    pub fn fingerprint(&self) -> crate::provenance::Fingerprint {
        crate::provenance::Fingerprint(self.meta.fingerprint.clone())
    }

    /// Documents in it.
    pub fn documents(&self) -> usize {
        self.meta.documents
    }

    /// How the vectors loaded with the documents were made, when they were.
    pub fn dense(&self) -> Option<&DenseManifest> {
        self.meta.dense.as_ref()
    }

    /// The vectors' manifest, or [`Error::OpenSearchNoVectors`] for an index loaded without
    /// vectors: the one check before any dense search.
    pub fn vectors(&self) -> Result<&DenseManifest> {
        self.dense().ok_or_else(|| Error::OpenSearchNoVectors { index: self.cluster.config().index.clone() })
    }

    /// The cluster.
    pub fn cluster(&self) -> &Cluster {
        &self.cluster
    }

    /// Refuses BM25 parameters other than the index's: on a cluster they are index settings, not
    /// query options.
    pub fn check_bm25(&self, params: Option<Bm25Params>) -> Result<()> {
        match params {
            Some(p) if p != self.meta.bm25 => Err(Error::InvalidArgument {
                name: "k1",
                message: format!(
                    "the OpenSearch index was built with k1 {} and b {}; on a cluster BM25's parameters are index settings\n\nhint: rebuild with `quantir index --backend opensearch --k1 {} --b {}` (under another --opensearch-index to keep both)",
                    self.meta.bm25.k1, self.meta.bm25.b, p.k1, p.b
                ),
            }),
            _ => Ok(()),
        }
    }

    /// The search body of one query; `None` when its text has no term (nothing can match).
    fn body(&self, query: &RemoteQuery, stored: bool) -> Option<Value> {
        let mut counts: FxHashMap<String, u32> = FxHashMap::default();
        let mut order: Vec<String> = Vec::new();
        self.analyzer.analyze(query.text, &mut |t| {
            let t = wire_term(t).into_owned();
            let n = counts.entry(t.clone()).or_insert(0);
            if *n == 0 {
                order.push(t);
            }
            *n += 1;
        });
        if order.is_empty() {
            return None;
        }
        let should: Vec<Value> = order.iter().map(|t| json!({ "term": { "terms": { "value": t, "boost": counts[t] } } })).collect();
        let mut boolean = admitted(&query.cutoff, query.exclude);
        boolean["should"] = json!(should);
        boolean["minimum_should_match"] = json!(1);
        Some(page(json!({ "bool": boolean }), query.k, stored))
    }

    /// The search body of one dense query: exact (the k-NN plugin's scoring script over the
    /// documents the cutoff admits) or Lucene's HNSW with the cutoff as its filter (efficient
    /// filtering: the graph search visits admitted documents only, falling back to exact search
    /// inside Lucene when few are admitted).
    fn vector_body(query: &RemoteVectorQuery, ann: Ann, ef: usize, stored: bool) -> Value {
        let filter = json!({ "bool": admitted(&query.cutoff, query.exclude) });
        let search = match ann {
            Ann::Exact => json!({ "script_score": {
                "query": filter,
                "script": { "source": "knn_score", "lang": "knn", "params": { "field": VECTOR_FIELD, "query_value": query.vector, "space_type": "innerproduct" } }
            } }),
            Ann::Hnsw => json!({ "knn": { VECTOR_FIELD: {
                "vector": query.vector,
                "k": query.k,
                "method_parameters": { "ef_search": ef.max(query.k) },
                "filter": filter
            } } }),
        };
        page(search, query.k, stored)
    }

    /// Every query's top k, in input order, `QUERIES_PER_REQUEST` a request and
    /// `concurrency` requests in flight. A query whose answer failed on some shard (a node
    /// dropping mid-search) is asked again; no partial answer is ever returned.
    pub fn search_batch(&self, queries: &[RemoteQuery], stored: bool, progress: &dyn Progress) -> Result<Vec<Vec<RemoteHit>>> {
        check_k(queries.iter().map(|q| q.k))?;
        let bodies: Vec<Option<Value>> = queries.iter().map(|q| self.body(q, stored)).collect();
        self.msearch(bodies, "dfs_query_then_fetch", Scores::Bm25(self.scale), "searching OpenSearch", progress)
    }

    /// Every dense query's top k by inner product, in input order, as [`Self::search_batch`]
    /// sends them: exact (equal to the embedded index's exact search) or through Lucene's HNSW.
    /// An index loaded without vectors is an error.
    pub fn search_vectors(&self, queries: &[RemoteVectorQuery], ann: Ann, ef: usize, stored: bool, progress: &dyn Progress) -> Result<Vec<Vec<RemoteHit>>> {
        let dense = self.vectors()?;
        check_k(queries.iter().map(|q| q.k))?;
        if let Some(q) = queries.iter().find(|q| q.vector.len() != dense.dim) {
            return Err(Error::InvalidArgument { name: "dense", message: format!("a query vector has {} values, the index's vectors {}: the encoder is not the index's", q.vector.len(), dense.dim) });
        }
        let bodies: Vec<Option<Value>> = queries.iter().map(|q| Some(Self::vector_body(q, ann, ef, stored))).collect();
        // No term statistics in a vector's score: one round trip.
        self.msearch(bodies, "query_then_fetch", Scores::InnerProduct, "searching OpenSearch's vectors", progress)
    }

    /// Sends the searches `bodies` (a `None` finds nothing) through `_msearch`: every answer in
    /// input order, complete, its scores mapped by `scores`.
    fn msearch(&self, bodies: Vec<Option<Value>>, search_type: &str, scores: Scores, what: &str, progress: &dyn Progress) -> Result<Vec<Vec<RemoteHit>>> {
        let mut out: Vec<Option<Vec<RemoteHit>>> = bodies.iter().map(|b| if b.is_none() { Some(Vec::new()) } else { None }).collect();
        let header = json!({ "index": self.cluster.config().index, "search_type": search_type, "allow_partial_search_results": false }).to_string();
        let window = QUERIES_PER_REQUEST * self.cluster.config().concurrency;
        progress.start(what, Some(bodies.len() as u64));
        let mut last_problem = String::new();
        for start in (0..bodies.len()).step_by(window.max(1)) {
            let end = (start + window).min(bodies.len());
            for attempt in 0..=self.cluster.config().retries {
                let todo: Vec<usize> = (start..end).filter(|&i| out[i].is_none()).collect();
                if todo.is_empty() {
                    break;
                }
                if attempt > 0 {
                    std::thread::sleep(super::client::backoff(attempt));
                }
                let requests = todo
                    .chunks(QUERIES_PER_REQUEST)
                    .map(|chunk| {
                        let mut body = String::new();
                        for &i in chunk {
                            body.push_str(&header);
                            body.push('\n');
                            body.push_str(&bodies[i].as_ref().expect("a query with terms").to_string());
                            body.push('\n');
                        }
                        (Method::Post, "/_msearch".to_string(), Vec::new(), Body::NdJson(body))
                    })
                    .collect();
                let answers = self.cluster.request_all(requests, "searching (_msearch)")?;
                for ((status, value), chunk) in answers.into_iter().zip(todo.chunks(QUERIES_PER_REQUEST)) {
                    if !status.is_success() {
                        return Err(self.cluster.error(status, &value, "searching (_msearch)"));
                    }
                    let responses = value["responses"].as_array().map(Vec::as_slice).unwrap_or(&[]);
                    if responses.len() != chunk.len() {
                        return Err(Error::OpenSearch { action: "searching (_msearch)".into(), status: status.as_u16(), message: format!("{} answers for {} queries", responses.len(), chunk.len()) });
                    }
                    for (response, &i) in responses.iter().zip(chunk) {
                        match read_response(response, scores) {
                            Answer::Hits(hits) => out[i] = Some(hits),
                            Answer::Again(why) => last_problem = why,
                            Answer::Fatal(status, why) => return Err(Error::OpenSearch { action: "searching (_msearch)".into(), status, message: why }),
                        }
                    }
                }
            }
            if let Some(i) = (start..end).find(|&i| out[i].is_none()) {
                return Err(Error::OpenSearch {
                    action: "searching (_msearch)".into(),
                    status: 503,
                    message: format!("query {} had no complete answer after {} attempts: {last_problem}", i + 1, self.cluster.config().retries + 1),
                });
            }
            progress.advance((end - start) as u64);
        }
        progress.finish();
        Ok(out.into_iter().map(|hits| hits.expect("every query answered")).collect())
    }
}

/// Every k within 1 to [`MAX_K`].
fn check_k(mut ks: impl Iterator<Item = usize>) -> Result<()> {
    match ks.find(|&k| k == 0 || k > MAX_K) {
        Some(k) => Err(Error::InvalidArgument { name: "k", message: format!("an OpenSearch search returns 1 to {MAX_K} documents (index.max_result_window), not {k}") }),
        None => Ok(()),
    }
}

/// A bool query's clauses for the documents a query may return: the cutoff's filter and the
/// excluded id.
fn admitted(cutoff: &Cutoff, exclude: Option<&str>) -> Value {
    let mut filter: Vec<Value> = Vec::new();
    if let Some(before) = cutoff.before {
        let range = json!({ "range": { "date_last": { "lt": before.first_day().format("%Y-%m-%d").to_string(), "format": "strict_date" } } });
        filter.push(match cutoff.undated {
            UndatedPolicy::Exclude => range,
            UndatedPolicy::Include => json!({ "bool": { "should": [range, { "bool": { "must_not": { "exists": { "field": "date_last" } } } }], "minimum_should_match": 1 } }),
        });
    }
    let mut boolean = json!({ "filter": filter });
    if let Some(id) = exclude {
        boolean["must_not"] = json!({ "ids": { "values": [id] } });
    }
    boolean
}

/// A search body around `query`: its top `k` in the retrieve stage's order, with the stored
/// fields or with none.
fn page(query: Value, k: usize, stored: bool) -> Value {
    let mut body = json!({
        "size": k,
        "query": query,
        // The retrieve stage's tie rule: score descending, then id descending.
        "sort": [{ "_score": "desc" }, { "id": "desc" }],
        "track_scores": true,
        "track_total_hits": false,
    });
    if stored {
        body["_source"] = json!(["id", "title", "text", "url", "date"]);
    } else {
        // No stored field at all, not even `_id`: the id comes back as the second sort value.
        // Loading `_id` for every hit was most of a deep search's cost (SciFact's 300 claims
        // at k = 1000 through `_msearch`: 12.2–14.2 s with it, 4.2–5.6 s without).
        body["stored_fields"] = json!("_none_");
    }
    body
}

/// One `_msearch` response, read.
enum Answer {
    Hits(Vec<RemoteHit>),
    /// A shard failed or the search timed out: ask again.
    Again(String),
    Fatal(u16, String),
}

fn read_response(response: &Value, scores: Scores) -> Answer {
    if response.get("error").is_some() {
        let status = response["status"].as_u64().unwrap_or(500) as u16;
        let why = reason(response);
        return if status == 429 || status >= 500 { Answer::Again(why) } else { Answer::Fatal(status, why) };
    }
    let failed = response["_shards"]["failed"].as_u64().unwrap_or(0);
    if failed > 0 || response["timed_out"].as_bool() == Some(true) {
        return Answer::Again(format!("{failed} shards failed"));
    }
    let hits = response["hits"]["hits"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let mut out = Vec::with_capacity(hits.len());
    for hit in hits {
        // The id is `_id` when stored fields were loaded, else the `id` sort value.
        let id = hit["_id"].as_str().or_else(|| hit["sort"][1].as_str());
        let (Some(id), Some(score)) = (id, hit["_score"].as_f64()) else {
            return Answer::Fatal(200, format!("a hit without an id or a _score: {}", crate::error::shorten(&hit.to_string())));
        };
        let stored = hit.get("_source").cloned();
        out.push(RemoteHit { id: id.to_string(), score: scores.map(score as f32), stored });
    }
    Answer::Hits(out)
}

/// The physical index the configuration's alias names, and its record: one complete physical
/// index built by this analyzer version and layout, else an error saying what was found.
pub(crate) fn served(cluster: &Cluster) -> Result<(String, IndexMeta)> {
    let alias = cluster.config().index.clone();
    let targets = alias_targets(cluster, &alias)?;
    let url = cluster.config().urls.iter().map(|u| u.as_str().trim_end_matches('/')).collect::<Vec<_>>().join(",");
    let physical = match targets.as_slice() {
        [] => return Err(Error::OpenSearchIndexMissing { url, index: alias }),
        [one] => one.clone(),
        more => return Err(Error::OpenSearchIncompatible { index: alias, what: "the alias", found: format!("names {} indexes ({})", more.len(), more.join(", ")), supported: "one".into() }),
    };
    let meta = read_meta(cluster, &physical)?.ok_or_else(|| Error::OpenSearchIncompatible { index: alias.clone(), what: "its mapping", found: "without a _meta.quantir record".into(), supported: "an index built by `quantir index --backend opensearch`".into() })?;
    let check = |what, found: String, supported: String| if found == supported { Ok(()) } else { Err(Error::OpenSearchIncompatible { index: alias.clone(), what, found, supported }) };
    if !READABLE_LAYOUTS.contains(&meta.layout_version) {
        return Err(Error::OpenSearchIncompatible { index: alias, what: "the layout version", found: meta.layout_version.to_string(), supported: format!("{} to {}", READABLE_LAYOUTS.start(), READABLE_LAYOUTS.end()) });
    }
    check("the analyzer", meta.analyzer.clone(), ANALYZER_NAME.to_string())?;
    check("the analyzer version", meta.analyzer_version.to_string(), ANALYZER_VERSION.to_string())?;
    check("the load", if meta.complete { "complete" } else { "incomplete" }.to_string(), "complete".to_string())?;
    check_engine(cluster, &physical, &alias)?;
    Ok((physical, meta))
}

/// Refuses an index whose vector field uses a k-NN engine other than Lucene's (module doc of
/// [`super::ingest`]: the others need native libraries, and faiss without them kills the node).
fn check_engine(cluster: &Cluster, physical: &str, alias: &str) -> Result<()> {
    let value = cluster.request(Method::Get, &format!("/{physical}/_mapping"), &[], Body::None, "reading the index mapping")?;
    let properties = value.as_object().and_then(|m| m.values().next()).map(|m| m["mappings"]["properties"].clone()).unwrap_or(Value::Null);
    let Some(fields) = properties.as_object() else { return Ok(()) };
    for (name, field) in fields {
        if field["type"] != "knn_vector" {
            continue;
        }
        // A field without a method is searched by the scoring script only; one with a method
        // names its engine (OpenSearch 2.x's default, when it names none, is not Lucene).
        if field.get("method").is_some() {
            let engine = field["method"]["engine"].as_str().unwrap_or("(the cluster's default)");
            if engine != KNN_ENGINE {
                return Err(Error::OpenSearchIncompatible {
                    index: alias.to_string(),
                    what: "its k-NN engine",
                    found: format!("{engine} on field {name}"),
                    supported: format!("{KNN_ENGINE} only: the other engines need native libraries, and without them faiss kills the node on the first document (reload with `quantir index --backend opensearch`, which sets {KNN_ENGINE})"),
                });
            }
        }
    }
    Ok(())
}
