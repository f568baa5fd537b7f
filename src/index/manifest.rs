//! `manifest.json`: what a generation is, how it was built and the digest of each of its files.
//! Written last into the generation, read first.

use std::path::Path;

use super::integrity::FileList;
use crate::analysis::{ANALYZER_NAME, ANALYZER_VERSION};
use crate::error::{Error, Result};
use crate::io::Digest;
use crate::provenance::Provenance;

/// Version of the on-disk layout described in the [`index`](super) module doc. Bump it on any
/// change to a file's bytes or meaning. 2: generations under `CURRENT`, each listing its files'
/// digests and its provenance (1 kept one set of files at the top of the folder, unchecked).
pub const FORMAT_VERSION: u32 = 2;

/// BM25's free parameters.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Bm25Params {
    /// Term-frequency saturation.
    pub k1: f32,
    /// Length normalisation, in [0, 1].
    pub b: f32,
}

impl Default for Bm25Params {
    /// k1 = 0.9, b = 0.4: Pyserini's defaults, used in its BEIR regressions (the figures the
    /// SciFact acceptance test is held to).
    fn default() -> Self {
        Bm25Params { k1: 0.9, b: 0.4 }
    }
}

impl Bm25Params {
    /// `k1` and `b` where given, the rest from `self`; `None` when neither is given, so callers
    /// can tell "the index's own" from an override (`--k1`/`--b`, Python's `k1=`/`b=`).
    pub fn over(self, k1: Option<f32>, b: Option<f32>) -> Option<Bm25Params> {
        if k1.is_none() && b.is_none() {
            return None;
        }
        Some(Bm25Params { k1: k1.unwrap_or(self.k1), b: b.unwrap_or(self.b) })
    }

    /// Checks the ranges: k1 ≥ 0 and finite, b in [0, 1].
    pub fn validate(&self) -> Result<()> {
        if !(self.k1.is_finite() && self.k1 >= 0.0) {
            return Err(Error::InvalidArgument { name: "k1", message: format!("expected a number ≥ 0, found {}", self.k1) });
        }
        if !(0.0..=1.0).contains(&self.b) {
            return Err(Error::InvalidArgument { name: "b", message: format!("expected a number in [0, 1], found {}", self.b) });
        }
        Ok(())
    }
}

/// The order of documents inside an index's segments (`quantir index --doc-order`).
///
/// The order never changes a result — ties are broken by id, not by document number — only how
/// much work a date cutoff costs: in date order every segment's documents that a cutoff admits
/// are a prefix (and, when undated documents are kept, a suffix), so BM25 stops reading a term's
/// postings at the cutoff and checks no dates. `scripts/bench_bm25.sh` measures both orders.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DocOrder {
    /// By last publication day, undated documents last, ties in corpus order.
    #[default]
    Date,
    /// The corpus's own order (every index built before the option existed).
    Corpus,
}

/// The contents of `manifest.json`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// The quantir release that wrote it.
    pub quantir_version: String,
    /// The analyzer's name.
    pub analyzer: String,
    /// [`ANALYZER_VERSION`] of the writer.
    pub analyzer_version: u32,
    /// The default BM25 parameters for searches of this index.
    pub bm25: Bm25Params,
    /// What the `body` field holds.
    pub fields: String,
    /// Documents indexed.
    pub documents: usize,
    /// Of which undated.
    pub undated: usize,
    /// Records skipped as empty.
    pub skipped_empty: usize,
    /// The corpus path as given to `quantir index`.
    pub corpus: String,
    /// The order of documents inside the segments.
    pub doc_order: DocOrder,
    /// The dense vectors, when built with `--dense`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dense: Option<DenseManifest>,
    /// The generation's number (its folder is `gen-NNNNNN`).
    pub generation: u64,
    /// Every other file of the generation with its digest, checked when it is opened
    /// ([`super::integrity`]).
    pub files: FileList,
    /// What made it: the corpus's digest and the settings ([`crate::provenance`]); its
    /// fingerprint identifies the index's content.
    pub provenance: Provenance,
}

/// How an index's dense vectors were made.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DenseManifest {
    /// The encoder's settings (name, pooling, normalisation, max length, prefixes).
    pub encoder: crate::index::dense::EncoderConfig,
    /// The model folder it was built with (queries are encoded with it unless `--dense` says otherwise).
    pub model_dir: String,
    /// The sha256 of the model file it was built with (absent in indexes from before it was
    /// recorded): a query encoder whose model differs is refused ([`DenseManifest::check_model`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_sha256: Option<String>,
    /// Vector dimension.
    pub dim: usize,
    /// On-disk value type.
    pub dtype: crate::index::dense::VectorDtype,
    /// The HNSW graph's parameters, when one was built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hnsw: Option<HnswParams>,
    /// Where the passages were encoded (written when not the CPU).
    #[serde(default, skip_serializing_if = "is_cpu")]
    pub device: crate::index::dense::Device,
}

fn is_cpu(device: &crate::index::dense::Device) -> bool {
    *device == crate::index::dense::Device::Cpu
}

impl DenseManifest {
    /// Checks that the model in `dir` (with its `config`) is the one the vectors of the index at
    /// `index` were made with: the same encoder settings and, when recorded, the same model file.
    pub fn check_model(&self, index: &std::path::Path, dir: &std::path::Path, config: &crate::index::dense::EncoderConfig) -> crate::Result<()> {
        self.check_settings(index, config)?;
        if let Some(expected) = &self.model_sha256 {
            let found = config.model_sha256(dir)?;
            if &found != expected {
                return Err(crate::Error::ModelMismatch { index: index.to_path_buf(), model: dir.join(&config.model), found, expected: expected.clone() });
            }
        }
        Ok(())
    }

    /// Checks the encoder settings alone (name, pooling, normalisation, max length): cheap enough
    /// for every query batch.
    pub fn check_settings(&self, index: &std::path::Path, config: &crate::index::dense::EncoderConfig) -> crate::Result<()> {
        let (built, now) = (&self.encoder, config);
        if (&built.name, built.pooling, built.normalize, built.max_length) != (&now.name, now.pooling, now.normalize, now.max_length) {
            return Err(crate::Error::IncompatibleIndex { path: index.to_path_buf(), what: "dense encoder", found: format!("{now:?}"), supported: format!("{built:?}") });
        }
        Ok(())
    }
}

/// HNSW build parameters (hnsw_rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HnswParams {
    /// Neighbours per node (M).
    pub max_connections: usize,
    /// Candidate list size while building.
    pub ef_construction: usize,
}

impl Default for HnswParams {
    /// M = 16, ef_construction = 200: hnswlib's and faiss's usual setting.
    fn default() -> Self {
        HnswParams { max_connections: 16, ef_construction: 200 }
    }
}

impl Manifest {
    /// A manifest for a new index with this build's versions, made as `provenance` records.
    pub fn new(bm25: Bm25Params, corpus: &Path, provenance: Provenance) -> Self {
        Manifest {
            format_version: FORMAT_VERSION,
            quantir_version: env!("CARGO_PKG_VERSION").to_string(),
            analyzer: ANALYZER_NAME.to_string(),
            analyzer_version: ANALYZER_VERSION,
            bm25,
            fields: "title text".to_string(),
            documents: 0,
            undated: 0,
            skipped_empty: 0,
            corpus: corpus.display().to_string(),
            doc_order: DocOrder::default(),
            dense: None,
            generation: 0,
            files: FileList::new(),
            provenance,
        }
    }

    /// Writes `dir/manifest.json` (synced) and returns the digest of its bytes, which `CURRENT`
    /// records.
    pub fn write(&self, dir: &Path) -> Result<Digest> {
        let path = dir.join(super::generation::MANIFEST);
        let json = serde_json::to_string_pretty(self).expect("manifest serialises") + "\n";
        crate::io::write_synced(&path, json.as_bytes())?;
        Ok(Digest::of_bytes(json.as_bytes()))
    }

    /// Parses the manifest `bytes` of the index at `dir`, read from `path` (already checked
    /// against `CURRENT`), checking that this quantir can read the index.
    pub(super) fn parse(dir: &Path, path: &Path, bytes: &[u8]) -> Result<Manifest> {
        let damaged = |expected: String| Error::IndexDamaged { index: dir.to_path_buf(), file: path.to_path_buf(), damage: crate::error::Damage::Malformed { expected } };
        // Check the versions before the rest, so that a future layout is reported as such.
        let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| damaged(format!("a JSON manifest ({e})")))?;
        let found = |key: &str| value.get(key).map_or("missing".to_string(), |v| v.to_string());
        if value.get("format_version").and_then(|v| v.as_u64()) != Some(FORMAT_VERSION.into()) {
            return Err(Error::IncompatibleIndex {
                path: dir.to_path_buf(),
                what: "format_version",
                found: found("format_version"),
                supported: FORMAT_VERSION.to_string(),
            });
        }
        if value.get("analyzer_version").and_then(|v| v.as_u64()) != Some(ANALYZER_VERSION.into())
            || value.get("analyzer").and_then(|v| v.as_str()) != Some(ANALYZER_NAME)
        {
            return Err(Error::IncompatibleIndex {
                path: dir.to_path_buf(),
                what: "analyzer_version",
                found: format!("{} {}", found("analyzer"), found("analyzer_version")),
                supported: format!("\"{ANALYZER_NAME}\" {ANALYZER_VERSION}"),
            });
        }
        serde_json::from_value(value).map_err(|e| damaged(format!("a manifest of format {FORMAT_VERSION} ({e})")))
    }
}
