//! Every file of a generation, with its digest: listed by the build in `manifest.json`, checked
//! when the generation is opened.
//!
//! The list holds every file the build left in the generation folder but the manifest itself
//! (whose digest `CURRENT` holds) and tantivy's lock files (empty files that readers open to
//! lock, which hold no data). Opening checks each listed file's length, then its xxh3, before
//! anything is read from it: a file of other bytes — one flipped byte is enough — is refused with
//! [`Error::IndexDamaged`] naming it, never searched. Files the list does not name are never
//! read (tantivy reads only the segments its `meta.json`, itself listed, names).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::generation::MANIFEST;
use crate::error::{Damage, Error, Result};
use crate::io::Digest;

/// A generation's files, by path relative to its folder (`/`-separated).
pub type FileList = BTreeMap<String, Digest>;

/// Whether a file holds no data the index needs (tantivy's lock files).
fn unlisted(relative: &str) -> bool {
    relative == MANIFEST || (relative.rsplit('/').next().is_some_and(|name| name.starts_with(".tantivy-") && name.ends_with(".lock")))
}

/// Every file under `dir` (a generation being built), with its digest.
pub(super) fn digest_tree(dir: &Path) -> Result<FileList> {
    let mut paths = Vec::new();
    walk(dir, dir, &mut paths)?;
    let digests: Vec<Result<(String, Digest)>> = paths.into_par_iter().map(|(relative, path)| Ok((relative, Digest::of_file(&path)?))).collect();
    digests.into_iter().collect()
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) -> Result<()> {
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| Error::io(&path, e))?;
        if kind.is_dir() {
            walk(root, &path, out)?;
        } else {
            let relative = path.strip_prefix(root).expect("under the root").components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            if !unlisted(&relative) {
                out.push((relative, path));
            }
        }
    }
    Ok(())
}

/// Checks every file of `files` in the generation folder `dir` of the index `index`: lengths
/// first (cheap), then contents. The first damaged file in path order is the error; [`damages`]
/// lists them all.
pub(super) fn verify(index: &Path, dir: &Path, files: &FileList) -> Result<()> {
    match damages(dir, files)?.into_iter().next() {
        None => Ok(()),
        Some((file, damage)) => Err(Error::IndexDamaged { index: index.to_path_buf(), file, damage }),
    }
}

/// Every damaged file of `files` in `dir`, in path order.
pub(super) fn damages(dir: &Path, files: &FileList) -> Result<Vec<(PathBuf, Damage)>> {
    let mut found = Vec::new();
    for (relative, digest) in files {
        if !safe(relative) {
            found.push((dir.join(MANIFEST), Damage::Malformed { expected: format!("file names inside the generation, not {relative:?}") }));
            continue;
        }
        let path = dir.join(relative);
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => found.push((path, Damage::Missing)),
            Err(e) => return Err(Error::io(&path, e)),
            Ok(meta) if meta.len() != digest.bytes => found.push((path, Damage::Size { expected: digest.bytes, found: meta.len() })),
            Ok(_) => {}
        }
    }
    if !found.is_empty() {
        return Ok(found);
    }
    // Largest first, so the two cores finish together.
    let mut order: Vec<(&String, &Digest)> = files.iter().collect();
    order.sort_by_key(|(_, d)| std::cmp::Reverse(d.bytes));
    let hashed: Vec<Result<Option<(PathBuf, Damage)>>> = order
        .into_par_iter()
        .map(|(relative, digest)| {
            let path = dir.join(relative);
            let now = Digest::of_file(&path)?;
            Ok((now.xxh3 != digest.xxh3).then(|| (path, Damage::Content { expected: digest.xxh3.clone(), found: now.xxh3 })))
        })
        .collect();
    let mut found: Vec<(PathBuf, Damage)> = hashed.into_iter().collect::<Result<Vec<_>>>()?.into_iter().flatten().collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}

/// Whether a listed path stays inside the generation folder (a manifest naming `../x` is damage,
/// not a file to read).
fn safe(relative: &str) -> bool {
    !relative.is_empty() && relative.split('/').all(|part| !part.is_empty() && part != "." && part != "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_files_are_checked_by_length_then_content() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("a"), "alpha").unwrap();
        std::fs::write(dir.path().join("sub/b"), "beta").unwrap();
        std::fs::write(dir.path().join("sub/.tantivy-meta.lock"), "").unwrap();
        std::fs::write(dir.path().join(MANIFEST), "{}").unwrap();
        let files = digest_tree(dir.path()).unwrap();
        assert_eq!(files.keys().collect::<Vec<_>>(), ["a", "sub/b"]);
        verify(dir.path(), dir.path(), &files).unwrap();
        std::fs::write(dir.path().join("sub/b"), "bets").unwrap();
        let err = verify(dir.path(), dir.path(), &files).unwrap_err();
        assert!(matches!(&err, Error::IndexDamaged { file, damage: Damage::Content { .. }, .. } if file.ends_with("sub/b")), "{err}");
        assert!(err.to_string().contains("hint: rebuild the index"), "{err}");
        std::fs::write(dir.path().join("a"), "alphabet").unwrap();
        let all = damages(dir.path(), &files).unwrap();
        assert_eq!(all.len(), 1, "lengths are checked first: {all:?}");
        assert!(matches!(all[0].1, Damage::Size { expected: 5, found: 8 }));
        std::fs::remove_file(dir.path().join("a")).unwrap();
        assert!(matches!(damages(dir.path(), &files).unwrap()[0].1, Damage::Missing));
        let mut escaping = files.clone();
        escaping.insert("../a".into(), Digest::of_bytes(b"alpha"));
        assert!(damages(dir.path(), &escaping).unwrap().iter().any(|(_, d)| matches!(d, Damage::Malformed { .. })));
    }
}
