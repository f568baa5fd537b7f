//! Encoding a corpus at index time, resumably.
//!
//! Documents are encoded in id-rank order in chunks of [`CHUNK`] passages. Each chunk is written
//! to `.NAME.dense-work/chunk-NNNNNN.f32` beside the index (renamed into place when complete), so
//! a build that is killed keeps every finished chunk, and the next build of the same corpus with
//! the same encoder — checked by a fingerprint of both — encodes only what is missing. When every
//! chunk is there they are joined into the index's `dense/vectors.f32` and the work folder goes.

use std::path::{Path, PathBuf};


use super::encoder::{Encoder, TextKind};
use super::vectors::{self, VectorDtype};
use crate::corpus::{Document, Documents};
use crate::error::{Error, Result};
use crate::io::Progress;
use crate::provenance::{Artifact, Input, Provenance, Role};

/// Passages per chunk file.
pub const CHUNK: usize = 2048;

/// The work folder for an index at `target`.
pub fn work_dir(target: &Path) -> PathBuf {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    target.with_file_name(format!(".{name}.dense-work"))
}

/// What is encoded for a document: its passage, as BM25 indexes it.
fn passage(document: &Document) -> String {
    crate::corpus::passage(&document.title, &document.text)
}

/// Encodes the documents `order` (the corpus's indices in id-rank order) into `out` (a
/// `vectors.f32`), resuming from `work`. Returns (dimension, passages encoded now, passages
/// resumed). A chunk's passages are read when it is encoded, and the chunks are joined into
/// `out` one at a time: memory holds one chunk, whatever the corpus's size.
pub fn encode_corpus(documents: &dyn Documents, order: &[usize], encoder: &Encoder, dtype: VectorDtype, work: &Path, out: &Path, progress: &dyn Progress) -> Result<(usize, usize, usize)> {
    let fingerprint = fingerprint(documents, encoder)?;
    let stamp = work.join("fingerprint");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(fingerprint.as_str()) {
        let _ = std::fs::remove_dir_all(work);
    }
    std::fs::create_dir_all(work).map_err(|e| Error::io(work, e))?;
    std::fs::write(&stamp, &fingerprint).map_err(|e| Error::io(&stamp, e))?;
    progress.start("encoding", Some(order.len() as u64));
    let (mut encoded, mut resumed, mut dim) = (0, 0, 0);
    let chunks: Vec<&[usize]> = order.chunks(CHUNK).collect();
    let chunk_path = |k: usize| work.join(format!("chunk-{k:06}.f32"));
    for (k, chunk) in chunks.iter().enumerate() {
        let path = chunk_path(k);
        if let Some(d) = complete_chunk(&path, chunk.len()) {
            dim = d;
            resumed += chunk.len();
            progress.advance(chunk.len() as u64);
            continue;
        }
        let mut texts: Vec<String> = Vec::with_capacity(chunk.len());
        documents.for_each_in(chunk, &mut |d| {
            texts.push(passage(d));
            Ok(())
        })?;
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        // Encode in sub-batches so the progress bar moves.
        let mut rows = Vec::with_capacity(chunk.len() * 384);
        for part in refs.chunks(1024) {
            let (v, d) = encoder.encode(part, TextKind::Passage)?;
            dim = d;
            rows.extend(v);
            progress.advance(part.len() as u64);
        }
        vectors::write(&path, dim, &rows, VectorDtype::F32)?;
        encoded += chunk.len();
    }
    progress.finish();
    let parts = (0..chunks.len()).map(|k| vectors::Vectors::open(&chunk_path(k)).map(|v| v.all().to_vec()));
    vectors::write_parts(out, dim, order.len(), dtype, parts)?;
    Ok((dim, encoded, resumed))
}

/// The dimension of a complete chunk file with `rows` rows, or `None`.
fn complete_chunk(path: &Path, rows: usize) -> Option<usize> {
    let v = vectors::Vectors::open(path).ok()?;
    (v.len() == rows).then_some(v.dim())
}

/// What the work folder's chunks were encoded from ([`crate::provenance`]): the corpus's digest
/// (the same bytes give the same documents in the same id order), the encoder's settings and its
/// model file's sha256.
fn fingerprint(documents: &dyn Documents, encoder: &Encoder) -> Result<String> {
    let inputs = vec![Input::digested(Role::Corpus, std::path::Path::new("corpus"), documents.digest())];
    let settings = (encoder.config(), encoder.config().model_sha256(encoder.dir())?, encoder.device());
    Ok(Provenance::new(Artifact::Vectors, inputs, &settings).fingerprint.0)
}
