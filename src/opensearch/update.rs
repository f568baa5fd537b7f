//! Updating the cluster's index in place: documents added, replaced and deleted as `_bulk`
//! operations on the physical index the alias names, not a new full load.
//!
//! **Exactness.** An added document changes the statistics as a load of the final corpus would.
//! A replaced or deleted one leaves a deleted copy in its Lucene segment, and Lucene keeps
//! counting a deleted copy's terms in document frequencies (and its length in the field's mean)
//! until a merge rewrites the segment, so scores drift from the embedded index's by those copies.
//! `expunge` (`quantir add/delete --expunge`) makes exactness the caller's choice: it merges
//! away every deleted copy (`_forcemerge?only_expunge_deletes`, repeated while OpenSearch's
//! retention leases still hold recent deletes) and fails rather than answer with copies left.
//! Without it, the summary counts the deleted copies the index still holds.
//!
//! **Idempotence.** Each incoming document is compared with the stored one (`_mget`: title,
//! text, date, url); one stored as given is `unchanged` and sends nothing.
//!
//! **Interruption.** Each `_bulk` operation carries the document's id as `_id`: an update killed
//! midway leaves some documents in, and running it again sends the rest (the ones in are
//! `unchanged`). The index's record (`_meta`) takes the new count and fingerprint last.

use std::time::{Duration, Instant};

use opensearch::http::Method;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::client::{Body, Cluster};
use super::ingest::{source, write_meta, IndexMeta};
use super::search::served;
use crate::analysis::Analyzer;
use crate::corpus::{Corpus, Document};
use crate::error::{Error, Result};
use crate::index::ChangeCounts;
use crate::io::Progress;

/// What changes on the cluster.
#[derive(Debug, Clone, Copy)]
pub enum RemoteChange<'a> {
    /// Documents to add, or to replace those of the same id.
    Upsert(&'a Corpus),
    /// Ids to delete.
    Delete(&'a [String]),
}

/// What an update did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct RemoteUpdateSummary {
    /// The physical index updated.
    pub physical: String,
    /// The documents added, replaced, unchanged (nothing sent), deleted and not found.
    #[serde(flatten)]
    pub counts: ChangeCounts,
    /// Documents in the index after the update.
    pub documents: usize,
    /// Deleted copies the index still counts in its statistics (0 after `expunge`).
    pub deleted_copies: u64,
    /// Whether deleted copies were merged away.
    pub expunged: bool,
    /// Wall time.
    pub seconds: f64,
}

/// Documents per `_mget` and `_bulk` request.
const BATCH: usize = 500;
/// How long `expunge` waits for OpenSearch to release deleted copies its retention leases hold.
const EXPUNGE_PATIENCE: Duration = Duration::from_secs(120);

/// Applies `change` to the index the cluster's alias names (module doc).
pub fn update(cluster: &Cluster, change: RemoteChange<'_>, expunge: bool, progress: &dyn Progress) -> Result<RemoteUpdateSummary> {
    let started = Instant::now();
    let (physical, mut meta) = served(cluster)?;
    let mut summary = RemoteUpdateSummary { physical: physical.clone(), expunged: expunge, ..RemoteUpdateSummary::default() };
    // One `_bulk` line pair (or line) per operation.
    let mut operations: Vec<String> = Vec::new();
    let analyzer = Analyzer::default();
    match change {
        RemoteChange::Upsert(corpus) => {
            progress.start("comparing with the cluster", Some(corpus.documents.len() as u64));
            for batch in corpus.documents.chunks(BATCH) {
                let ids: Vec<&str> = batch.iter().map(|d| d.id.as_str()).collect();
                let found = cluster.request(Method::Post, &format!("/{physical}/_mget"), &[("_source_includes", "title,text,url,date".to_string())], Body::Json(json!({ "ids": ids })), "reading the stored documents (_mget)")?;
                let docs = found["docs"].as_array().map(Vec::as_slice).unwrap_or(&[]);
                if docs.len() != batch.len() {
                    return Err(Error::OpenSearch { action: "reading the stored documents (_mget)".into(), status: 200, message: format!("{} answers for {} ids", docs.len(), batch.len()) });
                }
                for (stored, d) in docs.iter().zip(batch) {
                    let exists = stored["found"].as_bool() == Some(true);
                    if exists && same(&stored["_source"], d) {
                        summary.counts.unchanged += 1;
                        continue;
                    }
                    if meta.dense.is_some() {
                        // Deletions keep an index's vectors whole; a new text would need a vector.
                        return Err(Error::InvalidArgument {
                            name: "backend",
                            message: format!("OpenSearch index {} holds vectors, and `quantir add` does not encode documents on the cluster: document {:?} is new or changed (nothing was sent)\n\nhint: add it to the embedded index (`quantir add --index DIR`) and load again with --vectors-from DIR", cluster.config().index, d.id),
                        });
                    }
                    let op = if exists { "index" } else { "create" };
                    match exists {
                        true => summary.counts.replaced += 1,
                        false => summary.counts.added += 1,
                    }
                    operations.push(format!("{}\n{}\n", json!({ op: { "_index": physical, "_id": d.id } }), source(&analyzer, d)));
                }
                progress.advance(batch.len() as u64);
            }
            progress.finish();
        }
        RemoteChange::Delete(ids) => {
            let mut seen = std::collections::HashSet::new();
            for id in ids.iter().filter(|id| seen.insert(id.as_str())) {
                operations.push(format!("{}\n", json!({ "delete": { "_index": physical, "_id": id } })));
            }
        }
    }
    let (sent, missing) = send(cluster, &physical, &operations, progress)?;
    if matches!(change, RemoteChange::Delete(_)) {
        summary.counts.deleted = sent;
        summary.counts.not_found = missing;
    }
    if !operations.is_empty() {
        cluster.request(Method::Post, &format!("/{physical}/_refresh"), &[], Body::None, "refreshing the index")?;
    }
    summary.deleted_copies = deleted_copies(cluster, &physical)?;
    if expunge && summary.deleted_copies > 0 {
        summary.deleted_copies = expunge_deleted(cluster, &physical)?;
    }
    let count = cluster.request(Method::Get, &format!("/{physical}/_count"), &[], Body::None, "counting documents")?;
    summary.documents = count["count"].as_u64().unwrap_or(0) as usize;
    if !operations.is_empty() {
        meta.fingerprint = next_fingerprint(&meta, &operations);
        meta.documents = summary.documents;
        meta.loaded = summary.documents;
        meta.updated = true;
        write_meta(cluster, &physical, &meta)?;
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// Whether the stored `_source` is `d` as given (the embedded index's rule: title, text, url,
/// date as written).
fn same(stored: &Value, d: &Document) -> bool {
    let text = |field: &str| stored[field].as_str();
    text("title").unwrap_or("") == d.title && text("text") == Some(d.text.as_str()) && text("url") == d.url.as_deref() && text("date").map(str::to_string) == d.date.map(|x| x.to_string())
}

/// Sends `operations` in `_bulk` requests, re-sending those refused with 429; returns how many
/// took effect and how many deletes found nothing.
fn send(cluster: &Cluster, physical: &str, operations: &[String], progress: &dyn Progress) -> Result<(usize, usize)> {
    let (mut done, mut missing) = (0, 0);
    let mut failures: Vec<String> = Vec::new();
    progress.start("updating the cluster", Some(operations.len() as u64));
    let mut pending: Vec<&String> = operations.iter().collect();
    for attempt in 0..=cluster.config().retries {
        if pending.is_empty() {
            break;
        }
        if attempt > 0 {
            std::thread::sleep(super::client::backoff(attempt));
        }
        let requests = pending.chunks(BATCH).map(|batch| (Method::Post, "/_bulk".to_string(), Vec::new(), Body::NdJson(batch.iter().map(|s| s.as_str()).collect()))).collect();
        let answers = cluster.request_all(requests, "updating documents (_bulk)")?;
        let mut again = Vec::new();
        for ((status, value), batch) in answers.into_iter().zip(pending.chunks(BATCH)) {
            if !status.is_success() {
                return Err(cluster.error(status, &value, "updating documents (_bulk)"));
            }
            let items = value["items"].as_array().map(Vec::as_slice).unwrap_or(&[]);
            if items.len() != batch.len() {
                return Err(Error::OpenSearch { action: "updating documents (_bulk)".into(), status: status.as_u16(), message: format!("{} answers for {} operations", items.len(), batch.len()) });
            }
            for (item, op) in items.iter().zip(batch) {
                let result = item.as_object().and_then(|o| o.values().next()).cloned().unwrap_or(Value::Null);
                match result["status"].as_u64().unwrap_or(0) {
                    200..=299 => done += 1,
                    404 if result["result"] == "not_found" => missing += 1,
                    429 if attempt < cluster.config().retries => again.push(*op),
                    _ => failures.push(format!("{:?}: {}", result["_id"].as_str().unwrap_or("?"), super::client::reason(&result))),
                }
            }
        }
        progress.advance((pending.len() - again.len()) as u64);
        pending = again;
    }
    progress.finish();
    if !failures.is_empty() {
        return Err(Error::OpenSearchDocuments { index: physical.to_string(), failed: failures.len(), examples: failures.iter().take(3).cloned().collect::<Vec<_>>().join("; ") });
    }
    Ok((done, missing))
}

/// Deleted copies the index's statistics still count, over every shard copy.
fn deleted_copies(cluster: &Cluster, physical: &str) -> Result<u64> {
    let stats = cluster.request(Method::Get, &format!("/{physical}/_stats/docs"), &[], Body::None, "reading the index's document counts")?;
    Ok(stats["_all"]["total"]["docs"]["deleted"].as_u64().unwrap_or(0))
}

/// Merges away every deleted copy: flush (so the global checkpoint and the retention leases
/// move past the deletes), merge, and again while copies remain, up to [`EXPUNGE_PATIENCE`].
fn expunge_deleted(cluster: &Cluster, physical: &str) -> Result<u64> {
    let started = Instant::now();
    loop {
        cluster.request(Method::Post, &format!("/{physical}/_flush"), &[], Body::None, "flushing the index")?;
        cluster.request_long(Method::Post, &format!("/{physical}/_forcemerge"), &[("only_expunge_deletes", "true".to_string())], "merging away deleted copies")?;
        cluster.request(Method::Post, &format!("/{physical}/_refresh"), &[], Body::None, "refreshing the index")?;
        let left = deleted_copies(cluster, physical)?;
        if left == 0 {
            return Ok(0);
        }
        if started.elapsed() > EXPUNGE_PATIENCE {
            return Err(Error::OpenSearch {
                action: "merging away deleted copies".into(),
                status: 200,
                message: format!("{physical} still holds {left} deleted copies after {} s of merges, which would change document frequencies; run the update again with --expunge", EXPUNGE_PATIENCE.as_secs()),
            });
        }
        std::thread::sleep(Duration::from_secs(2));
    }
}

/// The record's fingerprint after `operations`: the one before and what was sent.
fn next_fingerprint(meta: &IndexMeta, operations: &[String]) -> String {
    let mut hash = Sha256::new();
    hash.update(meta.fingerprint.as_bytes());
    hash.update(b"\0update\0");
    for op in operations {
        hash.update(op.as_bytes());
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}
