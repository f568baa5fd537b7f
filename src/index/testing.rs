//! Test support (the `testing` feature): rewriting a generation's digests after a test changed
//! its files on purpose — an index without `bounds.bin`, a manifest edited to look older — so the
//! test reaches the code behind the integrity check instead of the check itself.

use std::path::{Path, PathBuf};

use super::generation::{name, Current, MANIFEST};
use crate::error::Result;
use crate::io::Digest;

/// The folder of the generation `DIR/CURRENT` names.
pub fn current_generation_dir(dir: &Path) -> PathBuf {
    let current = Current::read(dir).expect("CURRENT reads").expect("an index");
    dir.join(name(current.generation))
}

/// Records the current files of the generation `DIR/CURRENT` names in its manifest (keeping every
/// other field as it is now), and the manifest's new digest in `CURRENT`.
pub fn restamp(dir: &Path) -> Result<()> {
    let current = Current::read(dir)?.expect("an index");
    let generation = dir.join(name(current.generation));
    let path = generation.join(MANIFEST);
    let mut manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).expect("manifest reads")).expect("manifest is JSON");
    manifest["files"] = serde_json::to_value(super::integrity::digest_tree(&generation)?).expect("digests serialise");
    let bytes = serde_json::to_string_pretty(&manifest).expect("manifest serialises") + "\n";
    std::fs::write(&path, &bytes).expect("manifest writes");
    Current { generation: current.generation, manifest: Digest::of_bytes(bytes.as_bytes()).xxh3 }.write(dir)
}
