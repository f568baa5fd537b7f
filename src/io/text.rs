//! Reading text inputs so that every record knows its line (and column) in its file.

use std::path::Path;

use crate::error::{Error, Position, Result};

/// The UTF-8 byte order mark some editors write first; every reader drops it, so the first record
/// of a file saved by such an editor is read like any other.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a leading byte order mark: the one rule every reader applies.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// Reads a whole file as UTF-8 (a leading byte order mark dropped); invalid bytes are an error
/// naming their line and column.
pub fn read_utf8(path: &Path) -> Result<String> {
    Ok(read_utf8_digested(path)?.0)
}

/// The most read whole from a file that is not a regular file (a pipe, a device): its size is
/// not known beforehand, and `/dev/zero` never ends.
pub const MAX_STREAMED_BYTES: u64 = 256 << 20;

/// [`read_utf8`], with the [`Digest`](super::Digest) of the file's bytes as read (a byte order
/// mark included): what a file's provenance records, without reading it twice. A file that is
/// not a regular file is read up to [`MAX_STREAMED_BYTES`], and past that is an error.
pub fn read_utf8_digested(path: &Path) -> Result<(String, super::Digest)> {
    let bytes = read_bounded(path)?;
    let digest = super::Digest::of_bytes(&bytes);
    Ok((utf8(path, bytes)?, digest))
}

/// A file's bytes, whole; one that is not a regular file up to [`MAX_STREAMED_BYTES`], and past
/// that an error.
pub(crate) fn read_bounded(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let io = |e| Error::io(path, e);
    let file = std::fs::File::open(path).map_err(io)?;
    let regular = file.metadata().map_err(io)?.is_file();
    let mut bytes = Vec::new();
    if regular {
        (&file).read_to_end(&mut bytes).map_err(io)?;
    } else {
        file.take(MAX_STREAMED_BYTES + 1).read_to_end(&mut bytes).map_err(io)?;
        if bytes.len() as u64 > MAX_STREAMED_BYTES {
            return Err(Error::StreamTooLong { path: path.to_path_buf(), max_bytes: MAX_STREAMED_BYTES });
        }
    }
    Ok(bytes)
}

/// `bytes`, read from `path`, as text: a byte order mark dropped, anything not UTF-8 an
/// [`Error::NotUtf8`] naming where.
pub(crate) fn utf8(path: &Path, mut bytes: Vec<u8>) -> Result<String> {
    let bom = bytes.len() - strip_bom(&bytes).len();
    bytes.drain(..bom);
    String::from_utf8(bytes).map_err(|e| {
        let byte_offset = e.utf8_error().valid_up_to();
        let bytes = e.into_bytes();
        // The prefix up to the bad byte is valid, so positions can be counted on it.
        let valid = std::str::from_utf8(&bytes[..byte_offset]).expect("prefix checked by from_utf8");
        Error::NotUtf8 { path: path.to_path_buf(), at: position_at(valid, byte_offset), byte_offset }
    })
}

/// A file's bytes, memory-mapped, checked to be UTF-8: large inputs (a 2.5M-line run) are read
/// without copying them into the heap. A stream (a pipe, `/dev/stdin`) cannot be mapped: it is
/// read whole, as [`read_utf8`] reads it.
pub struct MappedText {
    map: Option<memmap2::Mmap>,
    /// A stream's text, read whole.
    read: Option<String>,
}

impl MappedText {
    /// Maps `path` and checks it is UTF-8 (an error names the line and column of a bad byte).
    pub fn open(path: &Path) -> Result<MappedText> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let meta = file.metadata().map_err(|e| Error::io(path, e))?;
        if !meta.is_file() {
            return Ok(MappedText { map: None, read: Some(read_utf8(path)?) });
        }
        let len = meta.len();
        // An empty file cannot be mapped; it is the empty text.
        let map = if len == 0 {
            None
        } else {
            // SAFETY: the map is read-only and lives no longer than this value; a file truncated
            // by another process meanwhile is the one case mmap cannot guard against, as for every
            // reader of a memory-mapped file.
            Some(unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?)
        };
        let mapped = MappedText { map, read: None };
        if let Err(e) = std::str::from_utf8(mapped.bytes()) {
            let byte_offset = e.valid_up_to();
            let valid = std::str::from_utf8(&mapped.bytes()[..byte_offset]).expect("prefix checked by from_utf8");
            return Err(Error::NotUtf8 { path: path.to_path_buf(), at: position_at(valid, byte_offset), byte_offset });
        }
        Ok(mapped)
    }

    /// The file's bytes, a leading byte order mark dropped.
    fn bytes(&self) -> &[u8] {
        strip_bom(self.map.as_deref().unwrap_or_default())
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        if let Some(read) = &self.read {
            return read;
        }
        // SAFETY: checked by `open`, and the map is read-only.
        unsafe { std::str::from_utf8_unchecked(self.bytes()) }
    }
}

/// The 1-based line and column (in characters) of `byte_offset` in `text`.
pub fn position_at(text: &str, byte_offset: usize) -> Position {
    let before = &text[..byte_offset.min(text.len())];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Position { line, column: Some(before[line_start..].chars().count() + 1) }
}

/// Positions of increasing byte offsets in one text, each counted on from the last one, so the
/// positions of all of a file's records cost one pass over the file. ([`position_at`] per record
/// counts from the start every time: quadratic, 50 minutes for QuanTemp++'s 165.7k-record
/// `corpus.json`, which is a single line.) An offset before the last one starts again from the
/// beginning.
pub struct Positions<'a> {
    text: &'a str,
    offset: usize,
    line: usize,
    /// The column (1-based, in characters) of `offset`.
    column: usize,
}

impl<'a> Positions<'a> {
    /// Positions in `text`.
    pub fn new(text: &'a str) -> Positions<'a> {
        Positions { text, offset: 0, line: 1, column: 1 }
    }

    /// The 1-based line and column (in characters) of `byte_offset`, as [`position_at`] gives.
    pub fn at(&mut self, byte_offset: usize) -> Position {
        let target = byte_offset.min(self.text.len());
        if target < self.offset {
            *self = Positions::new(self.text);
        }
        let between = &self.text[self.offset..target];
        match between.rfind('\n') {
            Some(last) => {
                self.line += between.bytes().filter(|&b| b == b'\n').count();
                self.column = between[last + 1..].chars().count() + 1;
            }
            None => self.column += between.chars().count(),
        }
        self.offset = target;
        Position { line: self.line, column: Some(self.column) }
    }
}

/// Turns a serde_json error on a record that starts at `base` (the record's own position in the
/// file) into [`Error::Malformed`] with the position in the file.
pub fn json_error(path: &Path, base: Position, err: &serde_json::Error) -> Error {
    let at = if err.line() <= 1 {
        Position { line: base.line, column: Some(base.column.unwrap_or(1) + err.column().saturating_sub(1)) }
    } else {
        Position { line: base.line + err.line() - 1, column: Some(err.column()) }
    };
    // serde_json appends " at line L column C" relative to the record; the position is ours.
    let message = err.to_string();
    let message = match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    Error::Malformed { path: path.to_path_buf(), at, message }
}

/// One record of a line- or JSON-structured file: its raw text and where it starts.
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    /// The record's text (one JSONL line, or one JSON value inside a larger document).
    pub text: &'a str,
    /// Where the record starts in its file.
    pub at: Position,
}

/// The non-blank lines of a JSONL text, each with its 1-based line number.
///
/// A trailing `\r` is dropped (files written on Windows), blank lines are skipped.
pub struct JsonlLines<'a> {
    lines: std::iter::Enumerate<std::str::Split<'a, char>>,
}

impl<'a> JsonlLines<'a> {
    /// Iterates over the lines of `text`.
    pub fn new(text: &'a str) -> Self {
        JsonlLines { lines: text.split('\n').enumerate() }
    }
}

impl<'a> Iterator for JsonlLines<'a> {
    type Item = Record<'a>;

    fn next(&mut self) -> Option<Record<'a>> {
        for (index, line) in self.lines.by_ref() {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if !line.trim().is_empty() {
                return Some(Record { text: line, at: Position { line: index + 1, column: Some(1) } });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters_not_bytes() {
        let text = "ab\nçé{x";
        assert_eq!(position_at(text, text.find('{').unwrap()), Position { line: 2, column: Some(3) });
    }

    #[test]
    fn invalid_utf8_names_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.jsonl");
        std::fs::write(&path, b"{\"id\":\"1\"}\n{\"id\":\"\xff\"}\n").unwrap();
        let err = read_utf8(&path).unwrap_err();
        assert!(err.to_string().ends_with("bad.jsonl:2:8: invalid UTF-8 (byte offset 18 in the file)"), "{err}");
    }

    #[test]
    fn jsonl_lines_skip_blanks_and_keep_numbers() {
        let lines: Vec<_> = JsonlLines::new("a\r\n\n  \nb\n").map(|r| (r.text, r.at.line)).collect();
        assert_eq!(lines, vec![("a", 1), ("b", 4)]);
    }

    #[test]
    fn positions_counted_on_equal_positions_from_the_start() {
        let text = "{\"a\": 1,\n  \"é\": [2, 3],\n\n\"c\": 4}";
        let mut positions = Positions::new(text);
        let offsets: Vec<usize> = (0..=text.len()).filter(|&i| text.is_char_boundary(i)).collect();
        for &i in offsets.iter().step_by(3).chain([5, 2, text.len()].iter()) {
            assert_eq!(positions.at(i), position_at(text, i), "offset {i}");
        }
    }
}
