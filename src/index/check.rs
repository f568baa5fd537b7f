//! `quantir check`: every file of an index's served generation against the digests its manifest
//! records, and tantivy's own checksums, with every damaged file listed (opening stops at the
//! first).

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::generation::{list, pin, MANIFEST};
use super::manifest::Manifest;
use crate::error::{Damage, Error, Result};

/// What [`check`] found.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckReport {
    /// The generation checked (the one `CURRENT` names).
    pub generation: u64,
    /// The generations in the folder (older ones are kept while a reader holds them).
    pub generations: Vec<u64>,
    /// Files checked, the manifest and `CURRENT` included.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Every damaged file, in path order; empty when the index is intact.
    pub damaged: Vec<(PathBuf, Damage)>,
    /// Seconds the check took.
    pub seconds: f64,
}

/// Checks the index at `dir` (module doc). A damaged `CURRENT` or manifest is an error, as when
/// opening; damaged data files are listed in the report.
pub fn check(dir: &Path) -> Result<CheckReport> {
    let started = Instant::now();
    let pinned = pin(dir)?;
    let manifest = Manifest::parse(dir, &pinned.dir.join(MANIFEST), &pinned.manifest)?;
    let mut damaged = super::integrity::damages(&pinned.dir, &manifest.files)?;
    if damaged.is_empty() {
        // Our digests say every byte is as the build wrote it; tantivy's footers then check
        // that the build wrote what tantivy meant.
        let tantivy = tantivy::Index::open_in_dir(pinned.dir.join("tantivy")).map_err(|e| Error::tantivy(dir, e))?;
        let mut failing: Vec<PathBuf> = tantivy.validate_checksum().map_err(|e| Error::tantivy(dir, e))?.into_iter().collect();
        failing.sort();
        damaged.extend(failing.into_iter().map(|f| (pinned.dir.join("tantivy").join(f), Damage::Inconsistent { what: "tantivy's own checksum of it fails".into() })));
    }
    Ok(CheckReport {
        generation: pinned.generation,
        generations: list(dir)?,
        files: manifest.files.len() + 2,
        bytes: manifest.files.values().map(|d| d.bytes).sum::<u64>() + pinned.manifest.len() as u64,
        damaged,
        seconds: started.elapsed().as_secs_f64(),
    })
}
