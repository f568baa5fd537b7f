//! Reading a file a record at a time, in bounded memory: JSON lines, or the entries of one
//! top-level JSON object (QuanTemp++'s `corpus.json`, a single line of up to gigabytes).
//!
//! Each record comes with its position in the file (line and column, for error messages), its
//! byte offset and length (so a reader can read it again later), and the file's digest grows as
//! the file is read, so a caller has its provenance without a second pass. Memory is one read
//! chunk plus the record being read: a record longer than the reader's maximum
//! ([`DEFAULT_MAX_RECORD_BYTES`], raised by `--max-record-mib`) is an error naming where it starts,
//! so an input that never ends a record (`/dev/zero`) costs that much and no more.
//!
//! What a reader checks is only the shape that delimits records (lines; an object's keys,
//! colons, commas and the nesting of its values) and UTF-8; each record's own JSON is parsed by
//! its caller, with the record's position as the base of the error's.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{Digest, Hasher};
use crate::error::{Error, Position, Result};

/// The longest record a reader takes by default: 64 MiB, far beyond any document of the
/// collections quantir reads (QuanTemp++'s snippets are under a kilobyte, full articles tens of
/// kilobytes).
pub const DEFAULT_MAX_RECORD_BYTES: usize = 64 << 20;

/// Bytes read from the file at a time.
const CHUNK_BYTES: usize = 1 << 20;

/// How records are laid out in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One JSON value a line; blank lines skipped, a trailing `\r` dropped.
    Lines,
    /// One JSON object whose entries are the records, keyed.
    Object,
}

/// One record read from a file, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnedRecord {
    /// The entry's key ([`Layout::Object`]), unescaped.
    pub key: Option<String>,
    /// The record's text (a line, or an entry's value).
    pub text: String,
    /// Where the text starts.
    pub at: Position,
    /// The byte offset of the text in the file.
    pub offset: u64,
}

/// Where the reader is in the object ([`Layout::Object`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    FirstKey,
    NextKey,
    Done,
}

/// Records read one at a time from a byte stream (module doc).
pub struct RecordReader<R> {
    path: PathBuf,
    inner: R,
    layout: Layout,
    max_record: usize,
    /// Bytes read and not yet consumed are `buf[start..]`.
    buf: Vec<u8>,
    start: usize,
    /// The file offset of `buf[start]`.
    offset: u64,
    /// The position of `buf[start]`.
    line: usize,
    column: usize,
    eof: bool,
    hasher: Hasher,
    state: State,
    bom_checked: bool,
}

impl RecordReader<std::fs::File> {
    /// A reader of the file at `path`.
    pub fn open(path: &Path, layout: Layout, max_record: usize) -> Result<Self> {
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        Ok(RecordReader::new(path, file, layout, max_record))
    }
}

impl<R: Read> RecordReader<R> {
    /// A reader of `inner`, which is the file `path` (named in errors).
    pub fn new(path: &Path, inner: R, layout: Layout, max_record: usize) -> Self {
        RecordReader { path: path.to_path_buf(), inner, layout, max_record, buf: Vec::new(), start: 0, offset: 0, line: 1, column: 1, eof: false, hasher: Hasher::default(), state: State::Start, bom_checked: false }
    }

    /// The digest of the bytes read so far: the whole file's once the reader is exhausted.
    pub fn digest(&self) -> Digest {
        self.hasher.finish()
    }

    /// The unconsumed bytes.
    fn bytes(&self) -> &[u8] {
        &self.buf[self.start..]
    }

    fn here(&self) -> Position {
        Position { line: self.line, column: Some(self.column) }
    }

    /// Reads one more chunk; `false` at the end of the file.
    fn fill(&mut self) -> Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        let old = self.buf.len();
        // Grown a chunk at a time, not doubled: a record near the maximum costs the maximum.
        self.buf.reserve_exact(CHUNK_BYTES);
        self.buf.resize(old + CHUNK_BYTES, 0);
        let n = loop {
            match self.inner.read(&mut self.buf[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(&self.path, e)),
            }
        };
        self.buf.truncate(old + n);
        self.hasher.update(&self.buf[old..]);
        if n == 0 {
            self.eof = true;
        }
        if !self.bom_checked && (self.buf.len() >= 3 || self.eof) {
            self.bom_checked = true;
            let bom = self.buf.len() - super::strip_bom(&self.buf).len();
            self.start += bom;
            self.offset += bom as u64;
        }
        Ok(n > 0)
    }

    /// Consumes `n` bytes, counting lines and characters over them.
    fn advance(&mut self, n: usize) {
        let consumed = &self.buf[self.start..self.start + n];
        let newlines = consumed.iter().filter(|&&b| b == b'\n').count();
        let tail = match consumed.iter().rposition(|&b| b == b'\n') {
            Some(last) => {
                self.line += newlines;
                self.column = 1;
                &consumed[last + 1..]
            }
            None => consumed,
        };
        // Characters, not bytes: every byte but a UTF-8 continuation byte starts one.
        self.column += tail.iter().filter(|&&b| (b as i8) >= -0x40).count();
        self.start += n;
        self.offset += n as u64;
    }

    /// Makes sure at least one byte is buffered, unless the file has ended.
    fn peek(&mut self) -> Result<Option<u8>> {
        while self.bytes().is_empty() {
            if !self.fill()? {
                return Ok(None);
            }
        }
        Ok(Some(self.bytes()[0]))
    }

    /// Skips JSON whitespace; the next byte, if any.
    fn skip_space(&mut self) -> Result<Option<u8>> {
        loop {
            let Some(b) = self.peek()? else { return Ok(None) };
            let n = self.bytes().iter().position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')).unwrap_or(self.bytes().len());
            if n == 0 {
                return Ok(Some(b));
            }
            self.advance(n);
        }
    }

    fn malformed(&self, at: Position, message: impl Into<String>) -> Error {
        Error::Malformed { path: self.path.clone(), at, message: message.into() }
    }

    fn too_long(&self, at: Position) -> Error {
        Error::RecordTooLong { path: self.path.clone(), at, max_bytes: self.max_record as u64 }
    }

    /// The record `len` bytes long at the front of the buffer, consumed, its UTF-8 checked.
    fn take(&mut self, len: usize, key: Option<String>) -> Result<OwnedRecord> {
        let (at, offset) = (self.here(), self.offset);
        let bytes = self.bytes()[..len].to_vec();
        let text = String::from_utf8(bytes).map_err(|e| {
            let valid = e.utf8_error().valid_up_to();
            let prefix = std::str::from_utf8(&e.as_bytes()[..valid]).expect("checked prefix");
            let inner = super::position_at(prefix, valid);
            let column = if inner.line == 1 { at.column.unwrap_or(1) + inner.column.unwrap_or(1) - 1 } else { inner.column.unwrap_or(1) };
            Error::NotUtf8 { path: self.path.clone(), at: Position { line: at.line + inner.line - 1, column: Some(column) }, byte_offset: (offset as usize).saturating_add(valid) }
        })?;
        self.advance(len);
        Ok(OwnedRecord { key, text, at, offset })
    }

    /// The next line that is not blank.
    fn next_line(&mut self) -> Result<Option<OwnedRecord>> {
        loop {
            if self.peek()?.is_none() {
                return Ok(None);
            }
            let mut searched = 0;
            let end = loop {
                if let Some(i) = self.bytes()[searched..].iter().position(|&b| b == b'\n') {
                    break Some(searched + i);
                }
                searched = self.bytes().len();
                if searched > self.max_record {
                    return Err(self.too_long(self.here()));
                }
                if !self.fill()? {
                    break None;
                }
            };
            let (len, consumed) = match end {
                Some(i) => (i, i + 1),
                None => (self.bytes().len(), self.bytes().len()),
            };
            if len > self.max_record {
                return Err(self.too_long(self.here()));
            }
            let text_len = if len > 0 && self.bytes()[len - 1] == b'\r' { len - 1 } else { len };
            if self.bytes()[..text_len].iter().all(u8::is_ascii_whitespace) {
                self.advance(consumed);
                continue;
            }
            let record = self.take(text_len, None)?;
            self.advance(consumed - text_len);
            return Ok(Some(record));
        }
    }

    /// The length of the JSON string at the front of the buffer (quotes included), reading more
    /// as needed.
    fn string_len(&mut self, at: Position) -> Result<usize> {
        let mut i = 1;
        loop {
            let bytes = self.bytes();
            while i < bytes.len() {
                match bytes[i] {
                    b'"' => return Ok(i + 1),
                    b'\\' => i += 2,
                    _ => i += 1,
                }
            }
            if i > self.max_record {
                return Err(self.too_long(at));
            }
            if !self.fill()? {
                return Err(self.malformed(at, "a string that never ends"));
            }
        }
    }

    /// The length of the JSON value at the front of the buffer: an object or array by its
    /// nesting (strings skipped), a string to its closing quote, a scalar to the next delimiter.
    fn value_len(&mut self, at: Position) -> Result<usize> {
        let first = self.peek()?.ok_or_else(|| self.malformed(at, "the file ends where a value was expected"))?;
        if first == b'"' {
            return self.string_len(at);
        }
        let (mut i, mut depth, mut in_string) = (0usize, 0u32, false);
        loop {
            let bytes = self.bytes();
            while i < bytes.len() {
                let b = bytes[i];
                if in_string {
                    match b {
                        b'"' => in_string = false,
                        b'\\' => i += 1,
                        _ => {}
                    }
                } else {
                    match b {
                        b'"' if depth > 0 => in_string = true,
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' if depth > 0 => {
                            depth -= 1;
                            if depth == 0 {
                                return Ok(i + 1);
                            }
                        }
                        b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r' if depth == 0 => return Ok(i),
                        _ => {}
                    }
                }
                i += 1;
            }
            if i > self.max_record {
                return Err(self.too_long(at));
            }
            if !self.fill()? {
                return if depth == 0 && !in_string && i > 0 { Ok(i) } else { Err(self.malformed(at, "the file ends inside this value")) };
            }
        }
    }

    /// The next entry of the object.
    fn next_entry(&mut self) -> Result<Option<OwnedRecord>> {
        loop {
            match self.state {
                State::Done => {
                    return match self.skip_space()? {
                        None => Ok(None),
                        Some(_) => Err(self.malformed(self.here(), "more after the object's closing brace")),
                    };
                }
                State::Start => match self.skip_space()? {
                    Some(b'{') => {
                        self.advance(1);
                        self.state = State::FirstKey;
                    }
                    Some(_) => return Err(self.malformed(self.here(), "expected a JSON object of records keyed by id")),
                    None => return Ok(None),
                },
                State::FirstKey | State::NextKey => {
                    let at = self.here();
                    match self.skip_space()? {
                        Some(b'}') if self.state == State::FirstKey => {
                            self.advance(1);
                            self.state = State::Done;
                            continue;
                        }
                        Some(b'"') => {}
                        Some(_) => return Err(self.malformed(self.here(), "expected a key (a string in quotes)")),
                        None => return Err(self.malformed(at, "the file ends inside the object")),
                    }
                    let key_at = self.here();
                    let len = self.string_len(key_at)?;
                    let key: String = serde_json::from_slice(&self.bytes()[..len]).map_err(|e| self.malformed(key_at, format!("a key that is not a JSON string ({e})")))?;
                    self.advance(len);
                    match self.skip_space()? {
                        Some(b':') => self.advance(1),
                        _ => return Err(self.malformed(self.here(), "expected `:` after the key")),
                    }
                    if self.skip_space()?.is_none() {
                        return Err(self.malformed(self.here(), "the file ends where a value was expected"));
                    }
                    let value_at = self.here();
                    let len = self.value_len(value_at)?;
                    if len > self.max_record {
                        return Err(self.too_long(value_at));
                    }
                    let record = self.take(len, Some(key))?;
                    match self.skip_space()? {
                        Some(b',') => {
                            self.advance(1);
                            self.state = State::NextKey;
                        }
                        Some(b'}') => {
                            self.advance(1);
                            self.state = State::Done;
                        }
                        _ => return Err(self.malformed(self.here(), "expected `,` or `}` after a value")),
                    }
                    return Ok(Some(record));
                }
            }
        }
    }
}

impl<R: Read> Iterator for RecordReader<R> {
    type Item = Result<OwnedRecord>;

    fn next(&mut self) -> Option<Result<OwnedRecord>> {
        let next = match self.layout {
            Layout::Lines => self.next_line(),
            Layout::Object => self.next_entry(),
        };
        match next {
            Ok(Some(record)) => Some(Ok(record)),
            Ok(None) => None,
            Err(e) => {
                // Nothing is read after an error.
                self.state = State::Done;
                self.eof = true;
                self.buf.clear();
                self.start = 0;
                Some(Err(e))
            }
        }
    }
}

/// Reads `len` bytes at `offset` of `file` (the record a [`RecordReader`] found there), checking
/// they are UTF-8.
pub fn read_at(file: &std::fs::File, path: &Path, offset: u64, len: usize) -> Result<String> {
    let mut bytes = vec![0u8; len];
    #[cfg(unix)]
    std::os::unix::fs::FileExt::read_exact_at(file, &mut bytes, offset).map_err(|e| Error::io(path, e))?;
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek};
        let mut file = file.try_clone().map_err(|e| Error::io(path, e))?;
        file.seek(std::io::SeekFrom::Start(offset)).and_then(|_| file.read_exact(&mut bytes)).map_err(|e| Error::io(path, e))?;
    }
    String::from_utf8(bytes).map_err(|_| Error::io(path, std::io::Error::other("the file changed while it was read: a record is no longer UTF-8")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(bytes: &[u8], layout: Layout, max: usize) -> Vec<Result<OwnedRecord>> {
        RecordReader::new(Path::new("f"), bytes, layout, max).collect()
    }

    /// The reader against a whole-file parse: the same records, keys and positions, whatever the
    /// chunk boundaries (records span chunks here: the chunk is 1 MiB, the text longer).
    #[test]
    fn objects_read_as_a_whole_file_parse_reads_them() {
        let mut text = String::from("\u{feff} {\n");
        let (mut expected, mut offsets) = (Vec::new(), Vec::new());
        for i in 0..3000 {
            let value = format!("{{\"title\": \"t{i} \\\"q\\\" {{[\", \"snippet\": \"{}é\", \"n\": [1, {{\"x\": \"}}\"}}]}}", "word ".repeat(i % 400));
            let key = format!("id\\u00e9{i}");
            if i > 0 {
                text.push_str(if i % 7 == 0 { ",\n  " } else { ", " });
            }
            text.push_str(&format!("\"{key}\": "));
            offsets.push(text.len() - 3);
            expected.push((format!("idé{i}"), value.clone()));
            text.push_str(&value);
        }
        text.push_str("\n}\n");
        let mut positions = crate::io::Positions::new(&text[3..]);
        let expected: Vec<(String, String, Position)> = expected.into_iter().zip(&offsets).map(|((k, v), &o)| (k, v, positions.at(o))).collect();
        let records: Vec<OwnedRecord> = read(text.as_bytes(), Layout::Object, 1 << 20).into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(records.len(), 3000);
        for (r, (key, value, at)) in records.iter().zip(&expected) {
            assert_eq!((r.key.as_deref(), r.text.as_str(), r.at), (Some(key.as_str()), value.as_str(), *at));
            assert_eq!(&text.as_bytes()[r.offset as usize..r.offset as usize + r.text.len()], r.text.as_bytes());
        }
        let mut reader = RecordReader::new(Path::new("f"), text.as_bytes(), Layout::Object, 1 << 20);
        reader.by_ref().for_each(drop);
        assert_eq!(reader.digest(), Digest::of_bytes(text.as_bytes()), "the digest covers every byte, the mark included");
    }

    #[test]
    fn lines_skip_blanks_and_keep_numbers() {
        let records: Vec<(String, usize, u64)> = read(b"a\r\n\n  \nb\nlast", Layout::Lines, 100).into_iter().map(|r| r.unwrap()).map(|r| (r.text, r.at.line, r.offset)).collect();
        assert_eq!(records, vec![("a".into(), 1, 0), ("b".into(), 4, 7), ("last".into(), 5, 9)]);
    }

    #[test]
    fn damage_is_named_where_it_is() {
        let err = |bytes: &[u8], layout| read(bytes, layout, 64).into_iter().find_map(|r| r.err()).map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(err(b"{\"a\": 1,}", Layout::Object), "f:1:9: expected a key (a string in quotes)");
        assert_eq!(err(b"{\"a\": {\"b\": 1}", Layout::Object), "f:1:15: expected `,` or `}` after a value");
        assert_eq!(err(b"{\"a\": {\"b\": 1}} x", Layout::Object), "f:1:17: more after the object's closing brace");
        assert_eq!(err(b"[1, 2]", Layout::Object), "f:1:1: expected a JSON object of records keyed by id");
        assert_eq!(err(b"{\"a\": \"never", Layout::Object), "f:1:7: a string that never ends");
        assert!(err(b"{\"a\": \"caf\xe9\"}", Layout::Object).starts_with("f:1:11: invalid UTF-8"));
        assert!(err(b"ok\n\xff\n", Layout::Lines).starts_with("f:2:1: invalid UTF-8 (byte offset 3"));
        // Longer than the maximum: named where it starts, whatever the layout.
        assert!(err(&[b'x'; 100], Layout::Lines).starts_with("f:1:1: a record of more than 64 bytes"));
        let long = format!("{{\"a\": 1, \"b\": \"{}\"}}", "y".repeat(100));
        assert!(err(long.as_bytes(), Layout::Object).starts_with("f:1:15: a record of more than 64 bytes"));
        assert!(read(b"{}", Layout::Object, 64).is_empty());
        assert!(read(b"  \n", Layout::Object, 64).is_empty(), "an empty file has no records; the caller says so");
    }

    /// A stream that never ends a record costs the maximum record and no more.
    #[test]
    fn an_endless_record_stops_at_the_maximum() {
        let endless = std::io::repeat(0);
        let mut reader = RecordReader::new(Path::new("/dev/zero"), endless, Layout::Lines, 4 << 20);
        assert!(matches!(reader.next(), Some(Err(Error::RecordTooLong { .. }))));
        assert!(reader.next().is_none());
        assert!(reader.buf.capacity() <= (4 << 20) + 2 * CHUNK_BYTES + 1, "{}", reader.buf.capacity());
    }
}
