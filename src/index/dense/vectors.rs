//! `vectors.f32`: the document vectors, one row per document in id-rank order.
//!
//! ```text
//! offset  size  field
//!      0     8  magic  b"QTRVEC\0\0"
//!      8     4  version (u32 LE) = 1
//!     12     4  dim     (u32 LE)
//!     16     8  count   (u64 LE)
//!     24     4  dtype   (u32 LE): 0 = f32, 1 = f16 (IEEE half)
//!     28     4  reserved, 0
//!     32     …  count × dim values, little-endian, row i = the document with id rank i
//! ```
//! The writer, the reader and this layout live in this one file. f32 files are memory-mapped and
//! read in place; f16 files (half the disk) are widened to f32 in memory when opened.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

const MAGIC: &[u8; 8] = b"QTRVEC\0\0";
const VERSION: u32 = 1;
const HEADER: usize = 32;

/// How values are stored on disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum VectorDtype {
    /// 32-bit floats, memory-mapped.
    #[default]
    F32,
    /// 16-bit floats, widened when opened.
    F16,
}

/// Writes `rows` (`count × dim` values) to `path`, through a temporary file renamed into place.
pub fn write(path: &Path, dim: usize, rows: &[f32], dtype: VectorDtype) -> Result<()> {
    let count = rows.len().checked_div(dim).unwrap_or(0);
    write_parts(path, dim, count, dtype, std::iter::once(Ok(rows)))
}

/// Writes `count` rows of `dim` values given in `parts` (each a whole number of rows, in order)
/// to `path`, through a temporary file renamed into place: the rows are never all in memory at
/// once. A part count other than `count` rows in all is an error.
pub fn write_parts<P: AsRef<[f32]>>(path: &Path, dim: usize, count: usize, dtype: VectorDtype, parts: impl Iterator<Item = Result<P>>) -> Result<()> {
    let tmp = path.with_extension("tmp");
    let mut written = 0usize;
    let result = (|| -> Result<()> {
        let io = |e| Error::io(&tmp, e);
        let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(io)?);
        let header = [&MAGIC[..], &VERSION.to_le_bytes(), &(dim as u32).to_le_bytes(), &(count as u64).to_le_bytes(), &(dtype as u32).to_le_bytes(), &0u32.to_le_bytes()].concat();
        out.write_all(&header).map_err(io)?;
        for part in parts {
            let part = part?;
            for &x in part.as_ref() {
                match dtype {
                    VectorDtype::F32 => out.write_all(&x.to_le_bytes()).map_err(io)?,
                    VectorDtype::F16 => out.write_all(&half::f16::from_f32(x).to_le_bytes()).map_err(io)?,
                }
            }
            written += part.as_ref().len();
        }
        if written != count * dim {
            return Err(Error::io(&tmp, std::io::Error::other(format!("{written} values written for {count} rows of {dim}"))));
        }
        out.into_inner().map_err(|e| io(e.into_error()))?.sync_all().map_err(io)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
}

enum Storage {
    Mapped(memmap2::Mmap),
    Owned(Vec<f32>),
}

/// Opened vectors.
pub struct Vectors {
    storage: Storage,
    dim: usize,
    count: usize,
}

impl std::fmt::Debug for Vectors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vectors").field("dim", &self.dim).field("count", &self.count).finish()
    }
}

impl Vectors {
    /// Opens and checks `path`.
    pub fn open(path: &Path) -> Result<Vectors> {
        let corrupt = |what: String| Error::Malformed { path: path.to_path_buf(), at: crate::error::Position { line: 1, column: None }, message: what };
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        // SAFETY: read-only map of a file quantir wrote and never modifies in place (indexes are
        // replaced by renaming whole folders).
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
        if map.len() < HEADER || &map[..8] != MAGIC {
            return Err(corrupt("not a quantir vector file (bad magic)".into()));
        }
        let u32_at = |o: usize| u32::from_le_bytes(map[o..o + 4].try_into().expect("4 bytes"));
        let version = u32_at(8);
        if version != VERSION {
            return Err(corrupt(format!("vector file version {version}, this quantir reads {VERSION}\n\nhint: rebuild the index")));
        }
        let dim = u32_at(12) as usize;
        let count = u64::from_le_bytes(map[16..24].try_into().expect("8 bytes")) as usize;
        let width = match u32_at(24) {
            0 => 4,
            1 => 2,
            other => return Err(corrupt(format!("unknown dtype {other}"))),
        };
        if map.len() != HEADER + count * dim * width {
            return Err(corrupt(format!("expected {} bytes for {count} vectors of {dim}, found {}", HEADER + count * dim * width, map.len())));
        }
        let storage = if width == 4 && cfg!(target_endian = "little") {
            Storage::Mapped(map)
        } else {
            let data = &map[HEADER..];
            Storage::Owned(if width == 4 {
                data.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes"))).collect()
            } else {
                data.chunks_exact(2).map(|b| half::f16::from_le_bytes(b.try_into().expect("2 bytes")).to_f32()).collect()
            })
        };
        Ok(Vectors { storage, dim, count })
    }

    /// Dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// All values, row after row.
    pub fn all(&self) -> &[f32] {
        match &self.storage {
            Storage::Owned(v) => v,
            Storage::Mapped(map) => {
                let bytes = &map[HEADER..];
                // The map is page-aligned and the header is 32 bytes, so the data is f32-aligned;
                // the length was checked in `open`.
                assert_eq!(bytes.as_ptr() as usize % std::mem::align_of::<f32>(), 0);
                // SAFETY: aligned, in bounds, any bit pattern is a valid f32, and the map is
                // read-only and lives as long as `self`.
                unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<f32>(), self.count * self.dim) }
            }
        }
    }

    /// Row `i` (the document with id rank `i`).
    pub fn row(&self, i: usize) -> &[f32] {
        &self.all()[i * self.dim..(i + 1) * self.dim]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_f32_and_f16() {
        let dir = tempfile::tempdir().unwrap();
        let rows = [0.5f32, -1.0, 0.25, 2.0, 0.0, 1.5];
        for dtype in [VectorDtype::F32, VectorDtype::F16] {
            let path = dir.path().join("v.f32");
            write(&path, 3, &rows, dtype).unwrap();
            let v = Vectors::open(&path).unwrap();
            assert_eq!((v.dim(), v.len()), (3, 2));
            assert_eq!(v.row(1), &[2.0, 0.0, 1.5]);
        }
        std::fs::write(dir.path().join("bad"), b"nonsense bytes here, not vectors at all").unwrap();
        assert!(Vectors::open(&dir.path().join("bad")).unwrap_err().to_string().contains("bad magic"));
    }
}
