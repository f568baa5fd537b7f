//! Generations: an index folder holds immutable generations and a `CURRENT` file that names the
//! one served.
//!
//! ```text
//! DIR/
//! ├── CURRENT        "gen-000003 <xxh3 of gen-000003/manifest.json>\n": replaced by a rename, the
//! │                  commit point of a build
//! ├── gen-000003/    the generation served: written once, never changed
//! ├── gen-000002/    an older one, kept while a reader holds it
//! └── writer.lock    held by the build writing a new generation (one at a time)
//! ```
//!
//! **Readers** ([`pin`]) read `CURRENT`, open the generation's `manifest.json`, take a shared lock
//! on it (`flock`) and check the file is still the one at its path; then they hold the lock for as
//! long as they use the generation. **Writers** build `gen-N+1` in a staging folder beside the
//! others, rename it into place, replace `CURRENT`, and then remove every other generation whose
//! manifest they can lock exclusively ([`collect`]): a generation a reader holds is never removed
//! (a server or a Python `Index` keeps answering from it), and the next build collects it once
//! the reader has moved on.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{Damage, Error, Result};
use crate::io::Digest;

/// The file naming the generation served.
pub(super) const CURRENT: &str = "CURRENT";
/// The manifest inside each generation.
pub(super) const MANIFEST: &str = "manifest.json";
/// The lock a build holds while it writes a generation.
const WRITER_LOCK: &str = "writer.lock";
const PREFIX: &str = "gen-";
/// How often a reader tries again when a build replaced the generation it was opening.
const PIN_ATTEMPTS: usize = 50;

/// The folder name of generation `n`.
pub(super) fn name(n: u64) -> String {
    format!("{PREFIX}{n:06}")
}

/// The generation number of a folder name, if it is one.
fn number(name: &str) -> Option<u64> {
    let digits = name.strip_prefix(PREFIX)?;
    if digits.len() < 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The contents of `CURRENT`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Current {
    /// The generation served.
    pub generation: u64,
    /// The xxh3 of its `manifest.json`, which in turn holds every other file's digest.
    pub manifest: String,
}

impl Current {
    /// The file's text.
    fn line(&self) -> String {
        format!("{} {}\n", name(self.generation), self.manifest)
    }

    /// Reads `DIR/CURRENT`: `None` when the folder has none (or `DIR` is not a folder).
    pub fn read(dir: &Path) -> Result<Option<Current>> {
        let path = dir.join(CURRENT);
        let text = match std::fs::read(&path) {
            // No folder, or a file where the folder should be: not an index.
            Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => return Ok(None),
            Err(e) => return Err(Error::io(&path, e)),
            Ok(bytes) => bytes,
        };
        let damaged = || Error::IndexDamaged { index: dir.to_path_buf(), file: path.clone(), damage: Damage::Malformed { expected: "\"gen-NNNNNN\" and a 32-digit hash on one line".into() } };
        let text = std::str::from_utf8(&text).map_err(|_| damaged())?;
        let mut parts = text.strip_suffix('\n').ok_or_else(damaged)?.split(' ');
        let (Some(generation), Some(manifest), None) = (parts.next().and_then(number), parts.next(), parts.next()) else { return Err(damaged()) };
        if manifest.len() != 32 || !manifest.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()) {
            return Err(damaged());
        }
        Ok(Some(Current { generation, manifest: manifest.to_string() }))
    }

    /// Replaces `DIR/CURRENT` (written beside, synced, renamed, the folder synced): the commit
    /// point of a build.
    pub fn write(&self, dir: &Path) -> Result<()> {
        crate::io::write_replacing(&dir.join(CURRENT), self.line().as_bytes())?;
        sync_dir(dir)
    }
}

/// Flushes a folder's entries (a rename into it) to the disk.
pub(super) fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir).and_then(|f| f.sync_all()).map_err(|e| Error::io(dir, e))
}

/// A reader's hold on one generation (module doc): dropping it lets a later build remove the
/// generation once it is no longer served.
#[derive(Debug)]
pub(super) struct Pinned {
    /// The generation's folder.
    pub dir: PathBuf,
    /// Its number.
    pub generation: u64,
    /// Its manifest, as read and checked against `CURRENT`.
    pub manifest: Vec<u8>,
    /// `CURRENT`'s text when it was pinned.
    pub current_line: String,
    /// The shared lock on the manifest.
    _lock: File,
}

/// Pins the generation `DIR/CURRENT` names (module doc), its manifest checked against the hash
/// `CURRENT` records.
pub(super) fn pin(dir: &Path) -> Result<Pinned> {
    for _ in 0..PIN_ATTEMPTS {
        let current = match Current::read(dir)? {
            Some(current) => current,
            None if dir.join(MANIFEST).is_file() => {
                // A folder of format 1 (a manifest and no generations).
                return Err(Error::IncompatibleIndex { path: dir.to_path_buf(), what: "format_version", found: "1".into(), supported: super::FORMAT_VERSION.to_string() });
            }
            None => return Err(Error::NotAnIndex { path: dir.to_path_buf() }),
        };
        let generation_dir = dir.join(name(current.generation));
        let path = generation_dir.join(MANIFEST);
        let mut file = match File::open(&path) {
            Ok(file) => file,
            // A build replaced CURRENT and removed this generation meanwhile: read CURRENT again.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && Current::read(dir)?.as_ref() != Some(&current) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let what = format!("it names {}, which has no {MANIFEST}", name(current.generation));
                return Err(Error::IndexDamaged { index: dir.to_path_buf(), file: dir.join(CURRENT), damage: Damage::Inconsistent { what } });
            }
            Err(e) => return Err(Error::io(&path, e)),
        };
        file.lock_shared().map_err(|e| Error::io(&path, e))?;
        if !same_file(&file, &path) {
            // Removed between the open and the lock.
            continue;
        }
        let mut manifest = Vec::new();
        file.read_to_end(&mut manifest).map_err(|e| Error::io(&path, e))?;
        let found = Digest::of_bytes(&manifest).xxh3;
        if found != current.manifest {
            let what = format!("its xxh3 is {found}, and CURRENT records {}: one of the two was changed since the build", current.manifest);
            return Err(Error::IndexDamaged { index: dir.to_path_buf(), file: path, damage: Damage::Inconsistent { what } });
        }
        return Ok(Pinned { dir: generation_dir, generation: current.generation, manifest, current_line: current.line(), _lock: file });
    }
    Err(Error::io(dir, std::io::Error::other(format!("the index changed {PIN_ATTEMPTS} times while it was being opened"))))
}

/// Whether `path` still names the file `file` has open.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
        _ => false,
    }
}

/// Whether `path` still names a file (elsewhere a removed file cannot be told from a new one by
/// its number: its existence is what is checked).
#[cfg(not(unix))]
fn same_file(_file: &File, path: &Path) -> bool {
    path.is_file()
}

/// The lock a build holds on an index folder while it writes a generation.
#[derive(Debug)]
pub(super) struct WriterLock(#[allow(dead_code)] File);

/// Takes `DIR/writer.lock`, refusing at once when another build holds it.
pub(super) fn lock_writer(dir: &Path) -> Result<WriterLock> {
    let path = dir.join(WRITER_LOCK);
    let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(|e| Error::io(&path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(WriterLock(file)),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::IndexBusy { path: dir.to_path_buf() }),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io(&path, e)),
    }
}

/// The number the next generation of `DIR` takes: one more than any generation there, finished,
/// named by `CURRENT` or being staged (so a crashed build's leftovers are never reused).
pub(super) fn next(dir: &Path, current: &Current) -> Result<u64> {
    let mut highest = current.generation;
    for entry in std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let bare = name.strip_prefix('.').and_then(|n| n.split_once(".staging-")).map_or(name.as_str(), |(n, _)| n);
        if let Some(n) = number(bare) {
            highest = highest.max(n);
        }
    }
    Ok(highest + 1)
}

/// Removes every generation of `DIR` but `keep` that no reader holds, and the staging folders of
/// builds that are gone (module doc). Best effort: what cannot be removed now is left for the
/// next build.
pub(super) fn collect(dir: &Path, keep: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        match number(&name) {
            Some(n) if n != keep => {
                let manifest = entry.path().join(MANIFEST);
                match File::open(&manifest) {
                    // Locked exclusively while it is removed: a reader pinning it meanwhile waits,
                    // then finds it gone and reads CURRENT again.
                    Ok(file) => {
                        if file.try_lock().is_ok() {
                            let _ = std::fs::remove_dir_all(entry.path());
                        }
                    }
                    // No manifest: a generation a crash left incomplete; nobody can pin it.
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        let _ = std::fs::remove_dir_all(entry.path());
                    }
                    Err(_) => {}
                }
            }
            Some(_) => {}
            None => {
                // `.gen-NNNNNN.staging-PID` of a build that is gone.
                if let Some((_, pid)) = name.strip_prefix('.').and_then(|n| n.split_once(".staging-")) {
                    let alive = pid.parse::<u32>().is_ok_and(|pid| Path::new(&format!("/proc/{pid}")).exists());
                    if !alive {
                        let _ = std::fs::remove_dir_all(entry.path());
                    }
                }
            }
        }
    }
}

/// Whether `DIR` holds a generation folder with a manifest: a quantir index whose `CURRENT` may
/// be damaged or missing, which a build may replace.
pub(super) fn holds_generations(dir: &Path) -> bool {
    list(dir).is_ok_and(|found| found.iter().any(|&n| dir.join(name(n)).join(MANIFEST).is_file()))
}

/// The numbers of the generations in `DIR`, ascending.
pub(super) fn list(dir: &Path) -> Result<Vec<u64>> {
    let mut found: Vec<u64> = std::fs::read_dir(dir).map_err(|e| Error::io(dir, e))?.flatten().filter_map(|e| number(&e.file_name().to_string_lossy())).collect();
    found.sort_unstable();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn current_round_trips_and_refuses_damage() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Current::read(dir.path()).unwrap(), None);
        // A file given as the index folder is no index, not an OS error.
        let file = dir.path().join("a-file");
        std::fs::write(&file, "hi").unwrap();
        assert!(matches!(pin(&file), Err(Error::NotAnIndex { .. })));
        let current = Current { generation: 12, manifest: "0123456789abcdef0123456789abcdef".into() };
        current.write(dir.path()).unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join(CURRENT)).unwrap(), "gen-000012 0123456789abcdef0123456789abcdef\n");
        assert_eq!(Current::read(dir.path()).unwrap(), Some(current));
        for bad in ["", "gen-000012\n", "gen-12 0123456789abcdef0123456789abcdef\n", "gen-000012 0123456789abcdef0123456789abcdeX\n", "gen-000012 0123456789abcdef0123456789abcdef", "gen-000012 0123456789ABCDEF0123456789abcdef\n", "gen-000012 0123456789abcdef0123456789abcdef x\n"] {
            std::fs::write(dir.path().join(CURRENT), bad).unwrap();
            let err = Current::read(dir.path()).unwrap_err();
            assert!(matches!(err, Error::IndexDamaged { .. }), "{bad:?}: {err}");
        }
    }

    #[test]
    fn names_and_numbers() {
        assert_eq!(name(7), "gen-000007");
        assert_eq!(number("gen-000007"), Some(7));
        assert_eq!(number("gen-1234567"), Some(1_234_567));
        for bad in ["gen-7", "gen-00000x", "gen-000007.tmp", "CURRENT", "gen--00007"] {
            assert_eq!(number(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_pinned_generation_survives_collection_and_a_free_one_does_not() {
        let dir = tempfile::tempdir().unwrap();
        for n in [1, 2, 3] {
            let g = dir.path().join(name(n));
            std::fs::create_dir(&g).unwrap();
            std::fs::write(g.join(MANIFEST), format!("{n}")).unwrap();
        }
        Current { generation: 1, manifest: Digest::of_bytes(b"1").xxh3 }.write(dir.path()).unwrap();
        let pinned = pin(dir.path()).unwrap();
        assert_eq!(pinned.generation, 1);
        Current { generation: 3, manifest: Digest::of_bytes(b"3").xxh3 }.write(dir.path()).unwrap();
        collect(dir.path(), 3);
        assert_eq!(list(dir.path()).unwrap(), vec![1, 3], "1 is pinned, 2 is free");
        drop(pinned);
        collect(dir.path(), 3);
        assert_eq!(list(dir.path()).unwrap(), vec![3]);
        assert_eq!(next(dir.path(), &Current::read(dir.path()).unwrap().unwrap()).unwrap(), 4);
        // A manifest that does not match CURRENT's hash is damage, named.
        std::fs::write(dir.path().join(name(3)).join(MANIFEST), "4").unwrap();
        assert!(matches!(pin(dir.path()).unwrap_err(), Error::IndexDamaged { damage: Damage::Inconsistent { .. }, .. }));
    }
}
