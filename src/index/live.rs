//! An index that follows its folder's `CURRENT`: what a server or a Python `Index` holds, so a
//! rebuild (`quantir index` into the same folder) is picked up without a restart.
//!
//! [`Live::get`] reads `CURRENT` (a few microseconds) and, when it names a newer generation,
//! opens it — fully checked, like any open — and swaps it in; the caller gets the generation to
//! use for its whole request, so a request in flight finishes on the generation it started on
//! while the next one sees the new. Only one caller opens a new generation at a time; the others
//! keep answering from the one held meanwhile. A generation that cannot be opened (damaged, or
//! refused by the holder's own check — a server whose encoder does not match new vectors) is
//! not served: the one held stays, and [`Live::reload_error`] says why until `CURRENT` changes
//! again. Generations only move forward.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use super::generation::CURRENT;
use super::open::Index;
use crate::error::Result;

/// A check a holder makes of a new generation before serving it.
pub type Accept = Box<dyn Fn(&Index) -> Result<()> + Send + Sync>;

/// An index folder's served generation, followed as it is rebuilt (module doc).
pub struct Live {
    dir: PathBuf,
    held: RwLock<Arc<Index>>,
    /// Held while a new generation is being opened.
    opening: Mutex<()>,
    /// `CURRENT`'s text that last failed to open, and why.
    failed: Mutex<Option<(Vec<u8>, String)>>,
    accept: Option<Accept>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live").field("dir", &self.dir).field("held", &self.held().generation()).finish()
    }
}

impl Live {
    /// Opens the index at `dir` ([`Index::open`]), then follows it.
    pub fn open(dir: &Path) -> Result<Live> {
        Ok(Live::new(Index::open(dir)?, None))
    }

    /// Follows `index`'s folder from the generation it holds; `accept`, when given, must agree to
    /// every newer generation before it is served (it is not asked about `index`).
    pub fn new(index: Index, accept: Option<Accept>) -> Live {
        Live { dir: index.path().to_path_buf(), held: RwLock::new(Arc::new(index)), opening: Mutex::new(()), failed: Mutex::new(None), accept }
    }

    /// The index folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The generation held now, without looking for a newer one.
    pub fn held(&self) -> Arc<Index> {
        self.held.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The generation to answer a request from: the newest one `CURRENT` names that opens, or
    /// the one held (module doc). Never an error: a folder that cannot be read or a generation
    /// that cannot be opened leaves the one held in service.
    pub fn get(&self) -> Arc<Index> {
        let held = self.held();
        let Ok(line) = std::fs::read(self.dir.join(CURRENT)) else { return held };
        if line == held.current_line().as_bytes() || self.failed.lock().unwrap_or_else(|e| e.into_inner()).as_ref().is_some_and(|(failed, _)| *failed == line) {
            return held;
        }
        // Another caller is opening it: answer from the one held meanwhile.
        let Ok(_opening) = self.opening.try_lock() else { return held };
        match self.open_next() {
            Ok(index) => index,
            Err(e) => {
                *self.failed.lock().unwrap_or_else(|e| e.into_inner()) = Some((line, e.to_string()));
                self.held()
            }
        }
    }

    /// Opens the generation `CURRENT` names now and serves it if it is newer, or says why not.
    pub fn reload(&self) -> Result<Arc<Index>> {
        let _opening = self.opening.lock().unwrap_or_else(|e| e.into_inner());
        self.open_next()
    }

    fn open_next(&self) -> Result<Arc<Index>> {
        let index = Index::open(&self.dir)?;
        if let Some(accept) = &self.accept {
            accept(&index)?;
        }
        let mut held = self.held.write().unwrap_or_else(|e| e.into_inner());
        if index.generation() > held.generation() {
            *held = Arc::new(index);
        }
        *self.failed.lock().unwrap_or_else(|e| e.into_inner()) = None;
        Ok(held.clone())
    }

    /// Why the generation `CURRENT` names is not the one served, when it is not.
    pub fn reload_error(&self) -> Option<String> {
        self.failed.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|(_, why)| why.clone())
    }
}
