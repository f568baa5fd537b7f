//! The HNSW graph over the document vectors (hnsw_rs), for approximate search.
//!
//! Built at index time from `vectors.f32` with inner-product distance (`1 − u·v`, so the vectors
//! must be L2-normalised) and dumped as `dense/hnsw.hnsw.graph` and `dense/hnsw.hnsw.data`; the
//! parameters go into the manifest. Loaded the first time a search asks for it.

use std::path::Path;

use hnsw_rs::prelude::{AnnT, DistDot, FilterT, Hnsw, HnswIo};

use super::vectors::Vectors;
use crate::error::{Error, Result};
use crate::index::HnswParams;
use crate::io::Progress;

/// File base name of the dump.
const BASENAME: &str = "hnsw";

/// The most layers hnsw_rs builds.
const MAX_LAYERS: usize = 16;

/// Builds the graph for `vectors` and dumps it into `dir`.
pub fn build(vectors: &Vectors, params: HnswParams, dir: &Path, progress: &dyn Progress) -> Result<()> {
    let n = vectors.len();
    let hnsw: Hnsw<f32, DistDot> = Hnsw::new(params.max_connections, n.max(1), MAX_LAYERS, params.ef_construction, DistDot {});
    progress.start("hnsw", Some(n as u64));
    let rows: Vec<(&[f32], usize)> = (0..n).map(|i| (vectors.row(i), i)).collect();
    for chunk in rows.chunks(4096) {
        hnsw.parallel_insert_slice(&chunk.to_vec());
        progress.advance(chunk.len() as u64);
    }
    progress.finish();
    let written = hnsw.file_dump(dir, BASENAME).map_err(|e| Error::io(dir, std::io::Error::other(e.to_string())))?;
    if written != BASENAME {
        return Err(Error::io(dir, std::io::Error::other(format!("hnsw_rs wrote {written}.* instead of {BASENAME}.*: the folder was not empty"))));
    }
    Ok(())
}

/// A loaded graph.
pub struct HnswGraph {
    hnsw: Hnsw<'static, f32, DistDot>,
}

impl HnswGraph {
    /// Loads the graph dumped in `dir`.
    pub fn load(dir: &Path) -> Result<HnswGraph> {
        // hnsw_rs ties a loaded graph's lifetime to its loader; an index's graph is kept for the
        // life of the process, so the loader is leaked once per opened graph.
        let loader: &'static mut HnswIo = Box::leak(Box::new(HnswIo::new(dir, BASENAME)));
        let mut hnsw = loader.load_hnsw::<f32, DistDot>().map_err(|e| Error::io(dir, std::io::Error::other(e.to_string())))?;
        hnsw.set_searching_mode(true);
        Ok(HnswGraph { hnsw })
    }

    /// The `k` nearest neighbours of `query` that pass `admit`, as `(row, inner product)`, best
    /// first; `ef` candidates are explored.
    pub fn search(&self, query: &[f32], k: usize, ef: usize, admit: &dyn Fn(usize) -> bool) -> Vec<(usize, f32)> {
        struct Admit<'a>(&'a dyn Fn(usize) -> bool);
        impl FilterT for Admit<'_> {
            fn hnsw_filter(&self, id: &usize) -> bool {
                (self.0)(*id)
            }
        }
        let filter = Admit(admit);
        self.hnsw.search_filter(query, k, ef.max(k), Some(&filter)).into_iter().map(|n| (n.d_id, 1.0 - n.distance)).collect()
    }

    /// The `k` nearest neighbours of `query` with no filter (a filtered search costs a call per
    /// visited node).
    pub fn search_all(&self, query: &[f32], k: usize, ef: usize) -> Vec<(usize, f32)> {
        self.hnsw.search(query, k, ef.max(k)).into_iter().map(|n| (n.d_id, 1.0 - n.distance)).collect()
    }
}
