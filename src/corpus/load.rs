//! The one loader behind every format: positions, ids, dates, empty records and errors.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde_json::value::RawValue;

use super::fields::{describe, Fields};
use super::{beir, detect, jsonl, quantemp, Claim, Corpus, Document, Format, LoadSummary, PubDate};
use crate::error::{Error, Position, Result};
use crate::io::{json_error, read_utf8, JsonlLines, Layout, OwnedRecord, Positions, Record, RecordReader};

/// How many undated records a [`LoadSummary`] shows.
const UNDATED_EXAMPLES: usize = 5;

/// A document as a format reader maps it, before the shared checks.
pub(super) struct RawDocument {
    pub id: String,
    pub title: String,
    pub text: String,
    pub url: Option<String>,
    pub date: Option<String>,
}

/// A claim as a format reader maps it, before the shared checks.
pub(super) struct RawClaim<'a> {
    pub id: String,
    pub text: Cow<'a, str>,
    /// The date field's name in this format and its value.
    pub date: Option<(&'static str, Cow<'a, str>)>,
}

/// The records of a file, each with its position, and the key it was stored under (QuanTemp++
/// objects) or its index (QuanTemp++ lists).
struct Records<'a> {
    items: Vec<(Option<String>, Record<'a>)>,
}

/// How a corpus is read ([`scan_corpus`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// The longest record read (`--max-record-mib`): a longer one is an error naming where it
    /// starts, so an input that never ends a record costs this much memory and no more.
    pub max_record_bytes: usize,
    /// A corpus file of at most this many bytes is held in memory while it is indexed; a larger
    /// one is read twice — streamed and checked, then each document read again by its offset as
    /// the index needs it — so memory does not grow with its text ([`IN_MEMORY_BYTES`]).
    pub in_memory_bytes: u64,
}

/// The largest corpus file held in memory while indexing: 256 MiB. Holding the documents costs
/// about their text again (the replica's 81 MB `corpus.json`: 235 MB peak); reading a larger file
/// twice keeps the memory to its ids, dates and offsets (about 50 bytes a document).
pub const IN_MEMORY_BYTES: u64 = 256 << 20;

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions { max_record_bytes: crate::io::DEFAULT_MAX_RECORD_BYTES, in_memory_bytes: IN_MEMORY_BYTES }
    }
}

/// Records parsed at a time, on every core.
const BATCH_RECORDS: usize = 8192;

/// A corpus as one streaming pass read it ([`scan_corpus`]): every record checked as
/// [`load_corpus`] checks it, the documents kept in memory when the file is small
/// ([`LoadOptions::in_memory_bytes`]) or, for a larger file, only their ids, dates and offsets,
/// each read again from the file when asked for ([`Documents::for_each_in`]).
pub struct CorpusScan {
    file: PathBuf,
    format: Format,
    summary: LoadSummary,
    docs: Scanned,
    /// The documents' indices by id, found when checking that ids are unique.
    by_id: Vec<usize>,
}

enum Scanned {
    Kept(Vec<Document>),
    OnDisk { file: std::fs::File, ids: IdBuffer, entries: Vec<Entry> },
}

/// Where a document's record is in the file, and what identifies it.
struct Entry {
    offset: u64,
    len: u32,
    /// xxh3-64 of the record's bytes: a record read again must be the one read first.
    hash: u64,
    date: Option<PubDate>,
}

/// Every id, packed into one buffer (millions of ids, one allocation).
#[derive(Default)]
struct IdBuffer {
    text: String,
    ends: Vec<usize>,
}

impl IdBuffer {
    fn push(&mut self, id: &str) {
        self.text.push_str(id);
        self.ends.push(self.text.len());
    }

    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }
}

/// A collection of documents a build reads: in memory ([`Corpus`]) or on disk ([`CorpusScan`]).
pub trait Documents: Sync {
    /// Number of documents.
    fn len(&self) -> usize;
    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The id of document `i` (in file order).
    fn id(&self, i: usize) -> &str;
    /// The date of document `i`.
    fn date(&self, i: usize) -> Option<PubDate>;
    /// Calls `each` with the documents `indices`, in that order.
    fn for_each_in(&self, indices: &[usize], each: &mut dyn FnMut(&Document) -> Result<()>) -> Result<()>;
    /// What loading counted.
    fn summary(&self) -> &LoadSummary;
    /// What identifies the content in provenance records ([`Corpus::digest`]).
    fn digest(&self) -> crate::io::Digest;
    /// The documents' indices sorted by id (bytes), ties in file order.
    fn by_id(&self) -> std::borrow::Cow<'_, [usize]> {
        std::borrow::Cow::Owned(sorted_by_id(self))
    }
}

/// The indices of `documents` sorted by id (bytes), ties in file order: the one rule of
/// [`Documents::by_id`].
fn sorted_by_id<D: Documents + ?Sized>(documents: &D) -> Vec<usize> {
    let mut order: Vec<usize> = (0..documents.len()).collect();
    order.par_sort_unstable_by(|&a, &b| documents.id(a).cmp(documents.id(b)).then(a.cmp(&b)));
    order
}

impl Documents for Corpus {
    fn len(&self) -> usize {
        self.documents.len()
    }
    fn id(&self, i: usize) -> &str {
        &self.documents[i].id
    }
    fn date(&self, i: usize) -> Option<PubDate> {
        self.documents[i].date
    }
    fn for_each_in(&self, indices: &[usize], each: &mut dyn FnMut(&Document) -> Result<()>) -> Result<()> {
        indices.iter().try_for_each(|&i| each(&self.documents[i]))
    }
    fn summary(&self) -> &LoadSummary {
        &self.summary
    }
    fn digest(&self) -> crate::io::Digest {
        Corpus::digest(self)
    }
}

impl Documents for CorpusScan {
    fn len(&self) -> usize {
        match &self.docs {
            Scanned::Kept(documents) => documents.len(),
            Scanned::OnDisk { entries, .. } => entries.len(),
        }
    }
    fn id(&self, i: usize) -> &str {
        match &self.docs {
            Scanned::Kept(documents) => &documents[i].id,
            Scanned::OnDisk { ids, .. } => ids.get(i),
        }
    }
    fn date(&self, i: usize) -> Option<PubDate> {
        match &self.docs {
            Scanned::Kept(documents) => documents[i].date,
            Scanned::OnDisk { entries, .. } => entries[i].date,
        }
    }
    fn for_each_in(&self, indices: &[usize], each: &mut dyn FnMut(&Document) -> Result<()>) -> Result<()> {
        let (file, ids, entries) = match &self.docs {
            Scanned::Kept(documents) => return indices.iter().try_for_each(|&i| each(&documents[i])),
            Scanned::OnDisk { file, ids, entries } => (file, ids, entries),
        };
        // Read and parsed a batch at a time on every core, handed over in order.
        for batch in indices.chunks(BATCH_RECORDS) {
            let documents: Vec<Result<Document>> = batch
                .par_iter()
                .map(|&i| {
                    let entry = &entries[i];
                    let text = crate::io::read_at(file, &self.file, entry.offset, entry.len as usize)?;
                    if xxhash_rust::xxh3::xxh3_64(text.as_bytes()) != entry.hash {
                        return Err(Error::io(&self.file, std::io::Error::other(format!("the file changed while it was being read: the record of document {:?} is no longer the one read first", ids.get(i)))));
                    }
                    let at = Position { line: 1, column: None };
                    let (raw, date) = parse_document(&self.file, self.format, Some(ids.get(i)), at, &text)?;
                    Ok(Document { id: raw.id, title: raw.title, text: raw.text, url: raw.url, date })
                })
                .collect();
            for document in documents {
                each(&document?)?;
            }
        }
        Ok(())
    }
    fn summary(&self) -> &LoadSummary {
        &self.summary
    }
    fn digest(&self) -> crate::io::Digest {
        self.summary.digest.clone().expect("a scanned file has its digest")
    }
    fn by_id(&self) -> std::borrow::Cow<'_, [usize]> {
        std::borrow::Cow::Borrowed(&self.by_id)
    }
}

impl CorpusScan {
    /// The documents, when the scan kept them in memory (or read them all again), as a
    /// [`Corpus`].
    pub fn into_corpus(self) -> Result<Corpus> {
        let documents = match self.docs {
            Scanned::Kept(documents) => documents,
            Scanned::OnDisk { .. } => {
                let mut documents = Vec::with_capacity(self.len());
                let all: Vec<usize> = (0..self.len()).collect();
                self.for_each_in(&all, &mut |d| {
                    documents.push(d.clone());
                    Ok(())
                })?;
                documents
            }
        };
        Ok(Corpus { documents, summary: self.summary })
    }

    /// Whether the documents are held in memory.
    pub fn in_memory(&self) -> bool {
        matches!(self.docs, Scanned::Kept(_))
    }
}

/// One record of a corpus parsed into a document's fields and date.
fn parse_document(file: &Path, format: Format, key: Option<&str>, at: Position, text: &str) -> Result<(RawDocument, Option<PubDate>)> {
    let fields = Fields::parse(file, at, text)?;
    let raw = match format {
        Format::Beir => beir::document(&fields)?,
        Format::Quantemp => quantemp::document(key.unwrap_or_default(), &fields)?,
        Format::Jsonl | Format::Auto => jsonl::document(&fields)?,
    };
    let date = raw.date.as_deref().and_then(PubDate::parse);
    Ok((raw, date))
}

/// Reads the evidence collection at `path`, holding every document in memory.
pub fn load_corpus(path: &Path, format: Format) -> Result<Corpus> {
    scan_corpus(path, format, &LoadOptions { in_memory_bytes: u64::MAX, ..LoadOptions::default() }, &crate::io::NoProgress)?.into_corpus()
}

/// A corpus file ready to be read by [`read_batches`]: what [`scan_corpus`] and [`stream_corpus`]
/// both do first.
struct Opened {
    format: Format,
    file: PathBuf,
    layout: Layout,
    /// The size of a regular file; `None` for one that cannot be read twice (a pipe).
    size: Option<u64>,
    summary: LoadSummary,
}

/// Checks the record limit against its range, detects the format, and starts the "reading"
/// progress over the file's size.
fn open_corpus(path: &Path, format: Format, options: &LoadOptions, progress: &dyn crate::io::Progress) -> Result<Opened> {
    crate::ranges::MAX_RECORD_MIB.check((options.max_record_bytes as u64).div_ceil(1 << 20))?;
    let (format, file) = detect::corpus(path, format, options.max_record_bytes)?;
    let layout = if format == Format::Quantemp { Layout::Object } else { Layout::Lines };
    let size = std::fs::metadata(&file).ok().filter(|m| m.is_file()).map(|m| m.len());
    progress.start("reading", size);
    let summary = LoadSummary { file: file.clone(), ..LoadSummary::default() };
    Ok(Opened { format, file, layout, size, summary })
}

/// Reads the evidence collection at `path` in one streaming pass (module doc): every record is
/// checked, empty ones counted and skipped, undated ones counted with examples, ids checked to be
/// unique (a repeat names both lines, once every record was read); memory holds one batch of
/// records and, past [`LoadOptions::in_memory_bytes`], no document text.
/// `progress` counts the bytes read.
pub fn scan_corpus(path: &Path, format: Format, options: &LoadOptions, progress: &dyn crate::io::Progress) -> Result<CorpusScan> {
    let Opened { format, file, layout, size, mut summary } = open_corpus(path, format, options, progress)?;
    // A file that cannot be read twice (a pipe) is held in memory whatever its size.
    let on_disk = size.is_some_and(|len| len > options.in_memory_bytes);
    let (mut kept, mut ids, mut entries, mut lines) = (Vec::new(), IdBuffer::default(), Vec::new(), Vec::new());
    let digest = read_batches(&file, layout, options.max_record_bytes, progress, &mut |batch| {
        for (record, parsed) in batch.iter().zip(parse_batch(&file, format, &batch)) {
            let (raw, date) = parsed?;
            let Some(document) = admit(&file, &mut summary, record.at.line, raw, date)? else { continue };
            lines.push(record.at.line);
            if on_disk {
                ids.push(&document.id);
                let len = u32::try_from(record.text.len()).expect("records are at most the maximum record size");
                entries.push(Entry { offset: record.offset, len, hash: xxhash_rust::xxh3::xxh3_64(record.text.as_bytes()), date: document.date });
            } else {
                kept.push(document);
            }
        }
        Ok(())
    })?;
    progress.finish();
    summary.digest = Some(digest);
    let docs = if on_disk {
        let handle = std::fs::File::open(&file).map_err(|e| Error::io(&file, e))?;
        Scanned::OnDisk { file: handle, ids, entries }
    } else {
        Scanned::Kept(kept)
    };
    let mut scan = CorpusScan { file: file.clone(), format, summary, docs, by_id: Vec::new() };
    scan.by_id = scan.check_unique(&lines)?;
    if scan.is_empty() {
        return Err(no_documents(&file, scan.summary.records));
    }
    scan.summary.documents = scan.len();
    Ok(scan)
}

/// Documents handed over in file order from any position: what a load that sends each document
/// once, in order, needs (the OpenSearch loader). A [`CorpusStream`] holds nothing per document;
/// any [`Documents`] is one too.
pub trait InOrder: Sync {
    /// Number of documents.
    fn count(&self) -> usize;
    /// What loading counted.
    fn load_summary(&self) -> &LoadSummary;
    /// Calls `each` with the documents from position `start` on, in order, each with where its
    /// record is when its id was not checked to be unique ([`CorpusStream`], whose user checks
    /// it: [`Error::DuplicateId`] names both lines), `None` when it was.
    fn for_each_from(&self, start: usize, each: &mut dyn FnMut(&Document, Option<Origin>) -> Result<()>) -> Result<()>;
}

/// Where a document's record is in its file: what tells two records apart (a one-line
/// corpus.json has every record on line 1) and what an error names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    /// The line the record starts on.
    pub line: usize,
    /// The byte offset it starts at.
    pub offset: u64,
}

/// Documents handed to [`InOrder::for_each_from`] at a time by a [`Documents`].
const IN_ORDER_CHUNK: usize = 4096;

impl<T: Documents + ?Sized> InOrder for T {
    fn count(&self) -> usize {
        self.len()
    }
    fn load_summary(&self) -> &LoadSummary {
        self.summary()
    }
    fn for_each_from(&self, start: usize, each: &mut dyn FnMut(&Document, Option<Origin>) -> Result<()>) -> Result<()> {
        let all: Vec<usize> = (start.min(Documents::len(self))..Documents::len(self)).collect();
        all.chunks(IN_ORDER_CHUNK).try_for_each(|chunk| self.for_each_in(chunk, &mut |d| each(d, None)))
    }
}

/// A corpus read as a stream ([`stream_corpus`]): a first pass checked and counted every record
/// and kept, for each batch of [`BATCH_RECORDS`] records, a hash of its bytes and its number of
/// documents; [`InOrder::for_each_from`] reads the file again, checks each batch against the
/// first pass's, and skips whole batches before the start without parsing them. Memory is a few
/// batches of records, whatever the corpus's size (12 bytes a batch: 147 KB at 100M records).
/// Ids are not checked to be unique (that needs every id): the user checks them.
pub struct CorpusStream {
    file: PathBuf,
    format: Format,
    layout: Layout,
    max_record_bytes: usize,
    summary: LoadSummary,
    source: Streamed,
}

enum Streamed {
    /// A regular file, read again from its start on every pass.
    File(Vec<BatchMark>),
    /// A file that cannot be read twice (a pipe): its documents, each with its line.
    Kept(Vec<(Origin, Document)>),
}

/// What the first pass saw of one batch of records.
struct BatchMark {
    /// xxh3-64 of the batch's records' bytes.
    hash: u64,
    /// The documents among them (records that were not empty).
    documents: u32,
}

fn batch_hash(batch: &[OwnedRecord]) -> u64 {
    let mut hash = xxhash_rust::xxh3::Xxh3::new();
    for record in batch {
        hash.update(record.text.as_bytes());
        hash.update(&record.offset.to_le_bytes());
    }
    hash.digest()
}

/// Reads the evidence collection at `path` in one streaming pass, checking every record as
/// [`scan_corpus`] does except the uniqueness of ids, and keeping no document (a file that
/// cannot be read twice excepted). `progress` counts the bytes read.
pub fn stream_corpus(path: &Path, format: Format, options: &LoadOptions, progress: &dyn crate::io::Progress) -> Result<CorpusStream> {
    let Opened { format, file, layout, size, mut summary } = open_corpus(path, format, options, progress)?;
    let regular = size.is_some();
    let (mut marks, mut kept) = (Vec::new(), Vec::new());
    let digest = read_batches(&file, layout, options.max_record_bytes, progress, &mut |batch| {
        let mut documents = 0u32;
        for (record, parsed) in batch.iter().zip(parse_batch(&file, format, &batch)) {
            let (raw, date) = parsed?;
            if let Some(document) = admit(&file, &mut summary, record.at.line, raw, date)? {
                documents += 1;
                if !regular {
                    kept.push((Origin { line: record.at.line, offset: record.offset }, document));
                }
            }
        }
        marks.push(BatchMark { hash: batch_hash(&batch), documents });
        Ok(())
    })?;
    progress.finish();
    summary.digest = Some(digest);
    summary.documents = marks.iter().map(|m| m.documents as usize).sum();
    if summary.documents == 0 {
        return Err(no_documents(&file, summary.records));
    }
    let source = if regular { Streamed::File(marks) } else { Streamed::Kept(kept) };
    Ok(CorpusStream { file, format, layout, max_record_bytes: options.max_record_bytes, summary, source })
}

impl CorpusStream {
    /// The file the documents are read from.
    pub fn file(&self) -> &Path {
        &self.file
    }

    fn changed(&self, what: String) -> Error {
        Error::io(&self.file, std::io::Error::other(format!("the file changed while it was being read: {what}; nothing after the change was used (read it again)")))
    }
}

impl InOrder for CorpusStream {
    fn count(&self) -> usize {
        self.summary.documents
    }
    fn load_summary(&self) -> &LoadSummary {
        &self.summary
    }
    fn for_each_from(&self, start: usize, each: &mut dyn FnMut(&Document, Option<Origin>) -> Result<()>) -> Result<()> {
        let marks = match &self.source {
            Streamed::Kept(documents) => return documents.iter().skip(start).try_for_each(|(origin, d)| each(d, Some(*origin))),
            Streamed::File(marks) => marks,
        };
        let mut at = 0usize;
        let mut seen = 0usize;
        let mut scratch = LoadSummary::default();
        read_batches(&self.file, self.layout, self.max_record_bytes, &crate::io::NoProgress, &mut |batch| {
            let Some(mark) = marks.get(seen) else {
                return Err(self.changed(format!("it holds more than the {} batches of records read first", marks.len())));
            };
            seen += 1;
            if batch_hash(&batch) != mark.hash {
                return Err(self.changed(format!("records {}..{} are not the ones read first", (seen - 1) * BATCH_RECORDS + 1, (seen - 1) * BATCH_RECORDS + batch.len())));
            }
            let documents = mark.documents as usize;
            if at + documents <= start {
                at += documents;
                return Ok(());
            }
            for (record, parsed) in batch.iter().zip(parse_batch(&self.file, self.format, &batch)) {
                let (raw, date) = parsed?;
                if let Some(document) = admit(&self.file, &mut scratch, record.at.line, raw, date)? {
                    if at >= start {
                        each(&document, Some(Origin { line: record.at.line, offset: record.offset }))?;
                    }
                    at += 1;
                }
            }
            Ok(())
        })?;
        if seen != marks.len() {
            return Err(self.changed(format!("it holds {seen} batches of records, {} were read first", marks.len())));
        }
        Ok(())
    }
}

/// Reads `file`'s records [`BATCH_RECORDS`] at a time on one thread while `each` takes the batch
/// before (the reading is sequential, the parsing per record), and returns the file's digest.
/// The same bytes give the same batches on every read. A reader error comes after the records
/// before it: the first error in file order wins. `progress` counts the bytes read.
fn read_batches(file: &Path, layout: Layout, max_record_bytes: usize, progress: &dyn crate::io::Progress, each: &mut dyn FnMut(Vec<OwnedRecord>) -> Result<()>) -> Result<crate::io::Digest> {
    let reader = RecordReader::open(file, layout, max_record_bytes)?;
    let mut read_to = 0u64;
    std::thread::scope(|scope| -> Result<crate::io::Digest> {
        let (batches, received) = std::sync::mpsc::sync_channel::<(Vec<OwnedRecord>, Option<Error>)>(2);
        let reading = scope.spawn(move || {
            let mut reader = reader;
            loop {
                let mut batch = Vec::with_capacity(BATCH_RECORDS);
                let mut failure = None;
                for record in reader.by_ref().take(BATCH_RECORDS) {
                    match record {
                        Ok(record) => batch.push(record),
                        Err(e) => {
                            failure = Some(e);
                            break;
                        }
                    }
                }
                let last = batch.len() < BATCH_RECORDS || failure.is_some();
                // A receiver gone (an error in an earlier batch) ends the reading.
                if batches.send((batch, failure)).is_err() || last {
                    return reader.digest();
                }
            }
        });
        for (batch, failure) in received {
            if let Some(last) = batch.last() {
                let end = last.offset + last.text.len() as u64;
                progress.advance(end.saturating_sub(read_to));
                read_to = end;
            }
            if !batch.is_empty() {
                each(batch)?;
            }
            if let Some(e) = failure {
                return Err(e);
            }
        }
        Ok(reading.join().expect("the reading thread does not panic"))
    })
}

/// A batch of records parsed on every core, in order.
fn parse_batch(file: &Path, format: Format, batch: &[OwnedRecord]) -> Vec<Result<(RawDocument, Option<PubDate>)>> {
    batch.par_iter().map(|r| parse_document(file, format, r.key.as_deref(), r.at, &r.text)).collect()
}

/// The checks every corpus record passes, in one place: its id is clean, it is counted, an empty
/// one is skipped (`None`), an undated one is counted (with up to [`UNDATED_EXAMPLES`] examples).
fn admit(file: &Path, summary: &mut LoadSummary, line: usize, raw: RawDocument, date: Option<PubDate>) -> Result<Option<Document>> {
    summary.records += 1;
    check_id(file, &raw.id, line)?;
    if raw.title.trim().is_empty() && raw.text.trim().is_empty() {
        summary.skipped_empty += 1;
        return Ok(None);
    }
    if date.is_none() {
        summary.undated += 1;
        match &raw.date {
            None => summary.no_date_field += 1,
            Some(found) if summary.undated_examples.len() < UNDATED_EXAMPLES => summary.undated_examples.push((line, found.clone())),
            Some(_) => {}
        }
    }
    Ok(Some(Document { id: raw.id, title: raw.title, text: raw.text, url: raw.url, date }))
}

/// The error for an empty corpus (nothing was changed).
fn no_documents(file: &Path, records: usize) -> Error {
    let what = match records {
        0 => "no documents: the file holds no records".to_string(),
        n => format!("no documents: each of its {n} records has an empty title and text"),
    };
    Error::Empty { path: file.to_path_buf(), what, hint: "index a corpus that holds documents (nothing was changed)".into() }
}

impl CorpusScan {
    /// The documents' indices sorted by id, or a repeated id named with the lines of its first
    /// two records (`lines[i]`: document `i`'s). Found by sorting, which needs no map of every
    /// id, and which the build needs anyway ([`Documents::by_id`]).
    fn check_unique(&self, lines: &[usize]) -> Result<Vec<usize>> {
        let order = sorted_by_id(self);
        let repeat = order.windows(2).filter(|w| self.id(w[0]) == self.id(w[1])).min_by_key(|w| lines[w[1]]);
        match repeat {
            Some(w) => Err(Error::DuplicateId { path: self.file.clone(), id: self.id(w[0]).to_string(), first_line: lines[w[0]], line: lines[w[1]] }),
            None => Ok(order),
        }
    }
}

/// Reads the claims at `path`; with `only`, keeps just the claims whose ids it holds (the queries
/// judged in a qrels file), in file order.
pub fn load_claims(path: &Path, format: Format, only: Option<&HashSet<String>>) -> Result<Vec<Claim>> {
    let (format, file) = detect::claims(path, format)?;
    let text = read_utf8(&file)?;
    let records = match format {
        Format::Quantemp => list_records(&file, &text)?,
        _ => line_records(&text),
    };
    let mut claims = Vec::with_capacity(records.items.len());
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for (index, record) in &records.items {
        let fields = Fields::parse(&file, record.at, record.text)?;
        let raw = match format {
            Format::Beir => beir::claim(&fields)?,
            Format::Quantemp => quantemp::claim(index.as_deref().unwrap_or_default(), &fields)?,
            Format::Jsonl | Format::Auto => jsonl::claim(&fields)?,
        };
        check_unique(&file, &mut first_line, &raw.id, record.at.line)?;
        if only.is_some_and(|keep| !keep.contains(&raw.id)) {
            continue;
        }
        if raw.text.trim().is_empty() {
            return Err(fields.error(if format == Format::Quantemp { "claim" } else { "text" }, "the claim's text", "an empty string".into()));
        }
        let date = match raw.date {
            None => None,
            Some((field, value)) => Some(PubDate::parse(&value).ok_or_else(|| {
                fields.error(field, "a date like 2021-03-21 (see the date forms in the README)", describe(&value.as_ref().into()))
            })?),
        };
        claims.push(Claim { id: raw.id, text: raw.text.into_owned(), date });
    }
    if claims.is_empty() {
        let (what, hint) = match (records.items.len(), only) {
            (0, _) => ("no claims: the file holds no records".to_string(), "give it at least one claim".to_string()),
            (n, Some(judged)) => (format!("none of its {n} claims is among the {} queries the qrels judge", judged.len()), "check that the claims and the qrels use the same ids".to_string()),
            (n, None) => (format!("no claims among its {n} records"), "give it at least one claim".to_string()),
        };
        return Err(Error::Empty { path: file, what, hint });
    }
    Ok(claims)
}

/// What an id must be: one TREC files can carry (no whitespace, no control characters: runs and
/// qrels are whitespace-separated, so such an id would write a run that cannot be read back).
const CLEAN_ID: &str = "an id without spaces, tabs, newlines or control characters (TREC runs and qrels cannot carry them)";

fn is_clean_id(id: &str) -> bool {
    !id.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Checks an id is clean ([`CLEAN_ID`]).
fn check_id(path: &Path, id: &str, line: usize) -> Result<()> {
    if !is_clean_id(id) {
        return Err(Error::Parse { path: path.to_path_buf(), at: Position { line, column: None }, field: "id".into(), expected: CLEAN_ID.into(), found: format!("{id:?}") });
    }
    Ok(())
}

/// Checks an id: clean ([`CLEAN_ID`]) and not seen before in the file.
fn check_unique(path: &Path, first_line: &mut HashMap<String, usize>, id: &str, line: usize) -> Result<()> {
    check_id(path, id, line)?;
    if let Some(&first) = first_line.get(id) {
        return Err(Error::DuplicateId { path: path.to_path_buf(), id: id.to_string(), first_line: first, line });
    }
    first_line.insert(id.to_string(), line);
    Ok(())
}

/// A claim given in memory (the Python API's dicts and DataFrames), before the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimFields {
    /// The claim's id.
    pub id: String,
    /// Its text.
    pub text: String,
    /// Its date as written (`2023-08-29`, `2023-08`, `2023`, or any form [`PubDate`] reads).
    pub date: Option<String>,
}

/// A document given in memory (the Python API's `Index.add`), before the checks.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DocumentFields {
    /// The document's id.
    pub id: String,
    /// Its title (may be empty).
    pub title: String,
    /// Its text.
    pub text: String,
    /// Its source address.
    pub url: Option<String>,
    /// Its publication date as written (any form [`PubDate`] reads).
    pub date: Option<String>,
}

/// The checks every record given in memory gets, the `i`th of `list`: an id clean and not given
/// before, a text that is not empty, a date that parses. `what` names the record ("claim").
fn checked_fields(list: &str, what: &str, i: usize, first: &mut HashMap<String, usize>, id: &str, text: &str, date: Option<&str>) -> Result<Option<PubDate>> {
    let at = |field: &str| format!("{list}[{i}][\"{field}\"]");
    if !is_clean_id(id) {
        return Err(Error::Value { at: at("id"), expected: CLEAN_ID.into(), found: format!("{id:?}") });
    }
    if let Some(j) = first.insert(id.to_string(), i) {
        return Err(Error::Value { at: at("id"), expected: format!("an id not given before (\"{id}\" is also {list}[{j}]'s)"), found: format!("{id:?}") });
    }
    if text.trim().is_empty() {
        return Err(Error::Value { at: at("text"), expected: format!("the {what}'s text"), found: "an empty string".into() });
    }
    match date {
        None => Ok(None),
        Some(text) => Ok(Some(PubDate::parse(text).ok_or_else(|| Error::Value {
            at: at("date"),
            expected: "a date like 2021-03-21 (see the date forms in the README)".into(),
            found: crate::error::shorten(text),
        })?)),
    }
}

/// Claims given in memory, with the checks [`load_claims`] makes on a file's: ids clean and
/// unique, text not empty, dates that parse. `list` names the collection in errors
/// (`claims[3]["date"]: expected …`).
pub fn claims_from(list: &str, items: Vec<ClaimFields>) -> Result<Vec<Claim>> {
    if items.is_empty() {
        return Err(Error::Value { at: list.to_string(), expected: "at least one claim".into(), found: "none".into() });
    }
    let mut first: HashMap<String, usize> = HashMap::with_capacity(items.len());
    let mut claims = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let date = checked_fields(list, "claim", i, &mut first, &item.id, &item.text, item.date.as_deref())?;
        claims.push(Claim { id: item.id, text: item.text, date });
    }
    Ok(claims)
}

/// Documents given in memory, with the same checks as [`claims_from`]'s: ids clean and unique,
/// text not empty, dates that parse (a date that does not is an error here, where a file's is
/// counted undated: a caller in memory can fix it on the spot).
pub fn documents_from(list: &str, items: Vec<DocumentFields>) -> Result<Corpus> {
    if items.is_empty() {
        return Err(Error::Value { at: list.to_string(), expected: "at least one document".into(), found: "none".into() });
    }
    let mut first: HashMap<String, usize> = HashMap::with_capacity(items.len());
    let mut documents = Vec::with_capacity(items.len());
    for (i, item) in items.into_iter().enumerate() {
        let date = checked_fields(list, "document", i, &mut first, &item.id, &item.text, item.date.as_deref())?;
        documents.push(Document { id: item.id, title: item.title, text: item.text, url: item.url, date });
    }
    let undated = documents.iter().filter(|d| d.date.is_none()).count();
    Ok(Corpus { summary: LoadSummary { records: documents.len(), documents: documents.len(), undated, no_date_field: undated, ..LoadSummary::default() }, documents })
}

fn line_records(text: &str) -> Records<'_> {
    Records { items: JsonlLines::new(text).map(|r| (None, r)).collect() }
}

/// The items of a top-level JSON array, each with its index and position.
fn list_records<'a>(path: &Path, text: &'a str) -> Result<Records<'a>> {
    let items: Vec<&RawValue> =
        serde_json::from_str(text).map_err(|e| json_error(path, Position { line: 1, column: Some(1) }, &e))?;
    let mut positions = Positions::new(text);
    Ok(Records { items: items.into_iter().enumerate().map(|(i, raw)| (Some(i.to_string()), record_in(text, &mut positions, raw))).collect() })
}

/// A raw value borrowed from `text`, with its position from where it lies in `text` (records come
/// in file order, so `positions` counts on from the previous one).
fn record_in<'a>(text: &'a str, positions: &mut Positions<'_>, raw: &'a RawValue) -> Record<'a> {
    let offset = raw.get().as_ptr() as usize - text.as_ptr() as usize;
    Record { text: raw.get(), at: positions.at(offset) }
}
