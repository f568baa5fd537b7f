//! Replacing a folder all at once, so readers see either the old contents or the new, never a mix.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// A folder being built beside its final place (`.NAME.staging-PID` in the same parent, hence on
/// the same file system) and moved into place by [`AtomicDir::commit`].
///
/// Invariants:
/// - until `commit`, the target is untouched: a crash or a `kill -9` mid-build leaves the old
///   folder as it was (the staging folder is left behind and removed by the next build);
/// - dropping an uncommitted `AtomicDir` (an error while building) removes the staging folder;
/// - on Linux, `commit` swaps old and new with `renameat2(RENAME_EXCHANGE)`, so the target path
///   always names a complete folder; elsewhere the old folder is moved aside first, leaving a
///   moment with no folder at the target (never a half-written one).
#[derive(Debug)]
pub struct AtomicDir {
    target: PathBuf,
    staging: PathBuf,
    committed: bool,
}

/// Writes `bytes` to `path` and flushes them to the disk (fsync) before returning, so a file the
/// commit point depends on is never found empty or partial after a power cut.
pub fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    file.write_all(bytes).and_then(|()| file.sync_all()).map_err(|e| Error::io(path, e))
}

/// Asks the kernel to start writing bytes `from..from + len` of `file` to the disk, without
/// waiting for them (Linux `sync_file_range(SYNC_FILE_RANGE_WRITE)`; nothing elsewhere). A
/// writer of a large file calls it as each chunk is written, so the disk writes while the next
/// chunks are made and [`write_replacing_with`]'s closing fsync finds little left to wait for: a
/// 286 MB run file (SciFact's claims listed 20 times over, k = 1000) spent a third of its run
/// in that fsync. A file that is not on a disk (a pipe) refuses it, and that is harmless.
pub fn start_writeback(file: &std::fs::File, from: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let (Ok(from), Ok(len)) = (i64::try_from(from), i64::try_from(len)) else { return };
        // SAFETY: `file` is an open descriptor for the whole call; the call only schedules
        // writes of its own pages. Its result is not needed: the fsync that follows writes
        // whatever was not started here.
        unsafe { libc::sync_file_range(file.as_raw_fd(), from, len, libc::SYNC_FILE_RANGE_WRITE) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, from, len);
}

/// Replaces the file `path` with `bytes` ([`write_replacing_with`]).
pub fn write_replacing(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    write_replacing_with(path, |file| file.write_all(bytes))
}

/// Writes the file `path` as `write` fills it, whole or not at all: into `.NAME.tmp-quantir`
/// beside it, flushed to the disk (fsync) and renamed over `path`, so an interrupted or failed
/// write leaves the previous file as it was and a reader never finds half a file.
///
/// A path that names no regular file but something to stream into — `/dev/stdout`, a named
/// pipe, a process substitution — is written in place: a rename would put a regular file where
/// the device or the link to it was (as root, `--output /dev/stdout` replaced the system's link).
/// A symbolic link to a regular file stays a link: the file it points to is replaced.
pub fn write_replacing_with(path: &Path, write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>) -> Result<()> {
    let io = |e| Error::io(path, e);
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() && !meta.is_dir() => {
            let mut file = std::fs::OpenOptions::new().write(true).open(path).map_err(io)?;
            return write(&mut file).map_err(io);
        }
        _ => {}
    }
    let target = match std::fs::symlink_metadata(path) {
        // A dangling link has nothing to point into: it is replaced like a file.
        Ok(meta) if meta.file_type().is_symlink() => std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    };
    let name = target.file_name().map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let tmp = target.with_file_name(format!(".{name}.tmp-quantir"));
    let written = std::fs::File::create(&tmp).and_then(|mut file| {
        write(&mut file)?;
        file.sync_all()
    });
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, &target)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(io(e));
    }
    Ok(())
}

impl AtomicDir {
    /// Starts a new staging folder for `target`, clearing staging folders that crashed builds left.
    pub fn create(target: &Path) -> Result<Self> {
        let name = target
            .file_name()
            .ok_or_else(|| Error::InvalidArgument {
                name: "index",
                message: format!("{} has no folder name", target.display()),
            })?
            .to_string_lossy()
            .into_owned();
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(|e| Error::io(&parent, e))?;
        remove_stale_staging(&parent, &name);
        let staging = parent.join(format!(".{name}.staging-{}", std::process::id()));
        if staging.exists() {
            std::fs::remove_dir_all(&staging).map_err(|e| Error::io(&staging, e))?;
        }
        std::fs::create_dir(&staging).map_err(|e| Error::io(&staging, e))?;
        Ok(AtomicDir { target: target.to_path_buf(), staging, committed: false })
    }

    /// The staging folder to write into.
    pub fn path(&self) -> &Path {
        &self.staging
    }

    /// Moves the staging folder into place, replacing any previous folder at the target.
    pub fn commit(mut self) -> Result<()> {
        if self.target.exists() {
            exchange(&self.staging, &self.target)?;
            // The old folder now sits at the staging path.
            std::fs::remove_dir_all(&self.staging).map_err(|e| Error::io(&self.staging, e))?;
        } else {
            std::fs::rename(&self.staging, &self.target).map_err(|e| Error::io(&self.target, e))?;
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for AtomicDir {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// Removes `.NAME.staging-PID` folders whose process is gone (left by a crash or `kill -9`).
fn remove_stale_staging(parent: &Path, name: &str) {
    let prefix = format!(".{name}.staging-");
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = file_name.strip_prefix(&prefix) else { continue };
        let alive = pid.parse::<u32>().is_ok_and(|pid| Path::new(&format!("/proc/{pid}")).exists());
        if !alive || pid == std::process::id().to_string() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(|e| Error::io(p, e.into()));
    let (ca, cb) = (c(a)?, c(b)?);
    // SAFETY: both pointers are valid NUL-terminated paths for the duration of the call.
    let rc = unsafe {
        libc::renameat2(libc::AT_FDCWD, ca.as_ptr(), libc::AT_FDCWD, cb.as_ptr(), libc::RENAME_EXCHANGE)
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(Error::io(b, std::io::Error::last_os_error()))
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(staging: &Path, target: &Path) -> Result<()> {
    let aside = staging.with_extension("old");
    std::fs::rename(target, &aside).map_err(|e| Error::io(target, e))?;
    std::fs::rename(staging, target).map_err(|e| Error::io(target, e))?;
    std::fs::rename(&aside, staging).map_err(|e| Error::io(staging, e))
}

/// Writes `items` as JSON lines to `path`, whole or not at all ([`write_replacing_with`]).
pub fn write_jsonl<T: serde::Serialize>(path: &Path, items: &[T]) -> Result<()> {
    use std::io::Write;
    write_replacing_with(path, |file| {
        let mut out = std::io::BufWriter::new(file);
        for item in items {
            serde_json::to_writer(&mut out, item)?;
            out.write_all(b"\n")?;
        }
        out.flush()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_replaces_and_drop_discards() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("idx");
        let first = AtomicDir::create(&target).unwrap();
        std::fs::write(first.path().join("v"), "1").unwrap();
        first.commit().unwrap();
        let second = AtomicDir::create(&target).unwrap();
        std::fs::write(second.path().join("v"), "2").unwrap();
        drop(second);
        assert_eq!(std::fs::read_to_string(target.join("v")).unwrap(), "1");
        let third = AtomicDir::create(&target).unwrap();
        std::fs::write(third.path().join("v"), "3").unwrap();
        third.commit().unwrap();
        assert_eq!(std::fs::read_to_string(target.join("v")).unwrap(), "3");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("idx")]);
    }
}
