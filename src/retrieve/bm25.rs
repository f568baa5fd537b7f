//! Exact BM25 for any k1 and b over tantivy's postings.
//!
//! Why not tantivy's own `BM25Weight`: it fixes k1 = 1.2 and b = 0.75, and its block-max WAND
//! skips documents using upper bounds computed for those values, so changing the parameters would
//! need a scorer of our own anyway — and the cutoff must be applied to *every* candidate, which
//! WAND's pruning (tuned to the unfiltered top-k) would have to be taught too. Instead this scorer
//! is exhaustive term-at-a-time: each query term's block postings are decoded once and added to a
//! dense per-segment accumulator, then one pass selects the top k among the documents the cutoff
//! admits (a pass that reads the whole accumulator first takes, for a small k, the k-th largest
//! of the maxima of a few dozen disjoint groups of documents as a floor: k different documents
//! score at least that, and only a few more than k are then offered). No admitted document is ever skipped, so the result is exact for any k1, b and cutoff.
//! In a date-ordered segment ([`crate::index::DocOrder`]) the admitted documents are one or two
//! ranges of document numbers ([`super::cutoff`]), and the postings are read only inside them;
//! other segments are read whole and every candidate's date checked. In a small one-segment
//! index the scorer reads the postings decoded once into arrays ([`crate::index::DecodedPostings`])
//! instead of tantivy's blocks, finds terms by hashing, and adds each posting's contribution as
//! computed once for its parameters (a term occurring once in the query), the same floats; a
//! term in many documents is added as a dense row of those contributions, one per document, in
//! order (adding 0 where it does not occur leaves a score's bits as they were), and the selection
//! then reads the accumulator in order.
//!
//! The score is Lucene's (and so Anserini's) BM25, term by term:
//!
//! ```text
//! idf(t)      = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
//! score(t, d) = qtf(t) · idf(t) · tf / (tf + k1 · (1 - b + b · len(d) / avglen))
//! ```
//!
//! with N the number of documents, qtf the times t occurs in the query (Anserini's bag-of-words
//! query boosts), len(d) the document's length after tantivy's one-byte field-norm quantisation
//! (the same table as Lucene's `SmallFloat.intToByte4`) and avglen the exact mean length. Scores
//! are summed in f32, as Lucene does, in the query's term order (first occurrences): the order of
//! a Lucene BooleanQuery's clauses, so that an OpenSearch node's scores are the same floats and
//! near-ties fall the same way (`python/tests/test_opensearch.py`). Every [`Strategy`] sums in
//! that order.

mod kernel;

use std::sync::OnceLock;

use tantivy::postings::{Postings, SegmentPostings, TermInfo};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocSet, Term, TERMINATED};

use super::cutoff::{CompiledCutoff, Cutoff};
use super::top_k::{Threshold, TopK};
use crate::analysis::{Analyzer, Emitted};
use crate::error::{Error, Result};
use crate::index::{Bm25Params, DecodedPostings, Index, TermKey, DELETED};

/// What term of weight `weight` (qtf · idf) adds to a document where it occurs `tf` times, with
/// `inverse` the document's 1 / (k1 · (1 − b + b · len / avglen)): weight · tf / (tf + norm),
/// written as Lucene's BM25Scorer does. Never 0: a contribution that would round to 0 (a length
/// so far beyond the mean that 1 + tf · inverse rounds to 1) is the smallest positive f32
/// instead, so a score of 0 in the accumulator means "not touched yet" and needs no flag of its own.
#[inline]
fn contribution(weight: f32, tf: u32, inverse: f32) -> f32 {
    (weight - weight / (1.0 + tf as f32 * inverse)).max(f32::from_bits(1))
}

/// [`Strategy::Pruned`]'s cost model, in about nanoseconds on the machine of the benchmarks:
/// adding one posting to the accumulator and later selecting its document, decoding one block of
/// 128 postings to seek in it, and carrying one candidate through one term (gathering, sorting,
/// seeking, selecting). The last two were tuned on the scale corpus's claims at k = 10 (a sweep
/// of 10 to 5,000: 200 and 200 ran fastest, 0.55 s against 0.76 s at 10 and 80).
const POSTING_COST: u64 = 4;
const BLOCK_COST: u64 = 200;
const CANDIDATE_COST: u64 = 200;
/// Documents of the accumulator cleared per unit of cost.
const CLEAR_DOCS_PER_COST: u64 = 8;
/// The first touched documents (or 2k, if more) whose k-th best partial score is the pruned
/// scorer's threshold; a sweep on the scale corpus at k = 10 ran fastest at 256 (0.46 s, against
/// 0.51 s at 1,024 and 0.66 s at 4,096).
const THETA_SAMPLE: usize = 256;

/// Touched documents gathered per step of the exhaustive scorer's selection.
const CHUNK: usize = 256;
/// The selection reads the accumulator in order, not the touched list, once at least one
/// document in this many of the span read is touched.
const SWEEP_WHEN_TOUCHED_OF: usize = 8;
/// A sweeping selection first finds a floor from the maxima of groups of the accumulator
/// ([`kernel::group_maxima`]) for a k of at most this many, in a span of at least this many
/// documents per k (fewer give a floor too low to leave much out). Measured (2026-12-03,
/// SciFact's claims listed 20 times over, k = 10, one thread, the CLI, fastest of 9
/// alternating): 85.0 ms instead of 92.9 ms, identical run files, with the k best of the maxima
/// of groups of sixteen consecutive documents kept in a heap; the heap was then an eighth of an
/// in-process search's time, and taking the few maxima of [`kernel::floor_groups`] instead made
/// `examples/bm25_search.rs` 8% faster (2026-12-04, Intel Xeon, medians of 5 alternating:
/// SciFact 38.0 to 35.2 ms, the NFCorpus-sized collection 33.5 to 30.4 ms, the same hits).
const GROUP_FLOOR_MOST: usize = 64;
const GROUP_FLOOR_DOCS_PER_K: usize = 64;
/// In a decoded index, a term in at least one document in this many is added as a dense row
/// ([`Contributions`]): a row is read and written in order, sixteen documents a step, where
/// postings are gathered and scattered, sixteen a step at a far higher cost; but a row is read
/// whole, its documents without the term too, and once any row is added the selection reads
/// the whole accumulator. Measured on an AMD Zen 4 (2026-12-03, SciFact's claims listed 200
/// times over, k = 10, one thread, the CLI, fastest of 5 alternating): one in 8 or 16, 0.68 s;
/// one in 32, 0.74 s; no rows, 0.78 s. Then on an Intel Xeon with twice the cache per core
/// (2026-12-04, `examples/bm25_search.rs`, SciFact's and the NFCorpus-sized collection's
/// claims listed 20 times over, k = 10, medians of 3): one in 1, 34 and 28 ms; 2, 34 and 28; 3,
/// 32 and 28; 4, 31 and 28; 6, 32 and 28; 8, 32 and 28; 16, 36 and 31; 32, 35 and 31; no rows,
/// 35 and 31 (at k = 1000, one in 4 took 184 and 150 ms, one in 16 186 and 154).
const DENSE_ROW_DF: usize = 4;
/// The dense rows hold at most this many values per decoded posting (the terms of the most
/// postings first): at most twice the memory of the contributions. SciFact's 0.51 million
/// postings make 26 rows of 5,183 documents (0.5 MB; in one in 16, 197 of 329, 4 MB); a
/// budget of 1 to 100 measured the same (in one in 16).
const DENSE_ROW_BUDGET: usize = 2;

/// One retrieved document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Its tantivy segment.
    pub segment: u32,
    /// Its document number in the segment.
    pub doc: u32,
    /// Its id's rank (see [`Index::id`]).
    pub rank: u32,
    /// BM25 score.
    pub score: f32,
}

/// Per-thread working memory for [`Bm25::search`]; reuse one per thread.
///
/// Invariant between searches: every score is 0 and the touched list is empty — kept on every
/// path, errors included, so a failed read never leaves scores behind for the thread's next query.
#[derive(Default)]
pub struct Scratch {
    scores: Vec<f32>,
    /// The documents touched so far in this segment, in first-touch order: `list[..listed]`.
    /// One slot longer than the segment, so that every posting writes its document at
    /// `list[listed]` and only a first touch (a score still 0, [`contribution`]) counts it, with
    /// no branch to mispredict: about half of all postings are first touches.
    list: Vec<u32>,
    listed: usize,
    /// Whether documents were touched without being listed (a dense row was added,
    /// [`Contributions`]): the selection then reads the whole span read.
    unlisted: bool,
    /// MaxScore's contributions of the candidate being scored, by query-term order.
    contributions: Vec<Option<f32>>,
    /// [`Strategy::Pruned`]'s candidates (document, partial score), in document order.
    candidates: Vec<(u32, f32)>,
    /// Scores' bits copied for a selection of the k-th best.
    partials: Vec<u32>,
    /// The maxima of groups of the accumulator, for a sweep's floor ([`kernel::group_maxima`]).
    maxima: Vec<u32>,
}

impl Scratch {
    /// Back to the invariant after a search of `max_doc` documents stopped part-way.
    fn reset(&mut self) {
        if std::mem::take(&mut self.unlisted) {
            self.scores.fill(0.0);
        }
        for &doc in &self.list[..self.listed] {
            self.scores[doc as usize] = 0.0;
        }
        self.listed = 0;
    }
}

/// How [`Bm25::search`] finds the top k. Both give the same documents with the same scores,
/// bit for bit, for every query, k1, b, k and cutoff (`tests/integration/bm25.rs`): the choice is
/// speed only.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// Term at a time: every posting of every term (inside the cutoff's ranges, in a
    /// date-ordered segment) into an accumulator, then one selection. The default: measured
    /// faster than [`Strategy::MaxScore`] and [`Strategy::Pruned`] at every k, and since 2026-12-02 (a branch-free
    /// touched list and selection) about 1.7 times faster than in the figures below.
    #[default]
    #[value(help = "every posting into an accumulator, then one selection (the fastest measured)")]
    Exhaustive,
    /// Document at a time with MaxScore pruning (Turtle and Flood, 1995), bounding each term by
    /// its weight, the one bound valid for every k1 and b without index-time statistics. Measured
    /// on one thread (2026-12-01, 2 cores): SciFact's 1,109 queries 7,453 q/s against the
    /// exhaustive scorer's 16,012 at k = 10, 2,717 against 8,879 at k = 1000; the QuanTemp++
    /// replica's 2,495 test claims over 165,700 snippets 438 against 880 at k = 10. The weight
    /// bound is too loose to make enough terms non-essential, and walking postings a document at
    /// a time costs more than the accumulator's tight loop: it needs per-term or per-block bounds
    /// stored at index time (maximum tf, shortest length) before it can win. How much such bounds
    /// could leave out was measured (2026-12-02, scale corpus, 2,495 claims of 14.1 terms and
    /// 86,851 postings on average): with each term bounded by its best posting's contribution,
    /// the terms whose bounds sum below the final k-th score hold 60% of the postings at
    /// k = 1000, 72% at k = 100 and 82% at k = 10.
    #[value(name = "maxscore", help = "document at a time with MaxScore over term weights")]
    #[serde(rename = "maxscore")]
    MaxScore,
    /// Term at a time with exact pruning, MaxScore's idea in the exhaustive scorer's loops. Terms
    /// go in query order (the order every strategy sums in), each bounded by the best
    /// contribution over its postings ([`crate::index::TermBounds`], exact for the k1 and b in
    /// use; its weight in an index without `bounds.bin`). Whole terms are added to the
    /// accumulator until the k-th best partial score so far exceeds what the remaining terms
    /// could add together — then no document untouched by then can enter the top k — and a cost
    /// model says that seeking the remaining terms at the touched documents that can still reach
    /// it is cheaper than adding them whole. Those candidates then take each remaining term's
    /// postings by seeking (blocks between candidates are skipped undecoded) and are dropped as
    /// soon as they fall out of reach. A candidate's score is the same sum in the same order as
    /// the exhaustive scorer's, so the hits are the same bits (`tests/integration/bm25.rs`).
    ///
    /// Not the default: slower (2026-12-02, scale corpus, its 2,495 claims with their cutoffs,
    /// one thread, whole runs): 1.53 s against the exhaustive scorer's 0.48 s at k = 10, 1.71 s
    /// against 0.52 s at k = 100, 2.10 s against 0.84 s at k = 1000. Adding the heaviest terms
    /// first made it as fast as the exhaustive scorer at k = 10 (0.44 s against 0.47 s), but
    /// summing in another order than the query's broke the equality of scores with an OpenSearch
    /// node; and even then term bounds leave thousands of touched documents within reach of the
    /// k-th score until the last few terms. What it needs next: heaviest terms first with each
    /// final candidate re-summed in query order, and per-block bounds (block-max).
    #[value(help = "term at a time with exact pruning over the index's term bounds")]
    Pruned,
}

/// A query term: its weight qtf · idf and where its postings are: per segment (none when the
/// segment lacks it), one term-dictionary lookup per term and segment serving both the document
/// frequency and the postings; or, in an index whose postings are decoded
/// ([`crate::index::DecodedPostings`]), the term's number there, found by hashing (`infos` is
/// then empty).
struct QueryTerm {
    /// The analysed text (empty for a decoded term, found by its number).
    text: String,
    weight: f32,
    /// Times the term occurs in the query.
    count: u32,
    infos: Vec<Option<TermInfo>>,
    number: Option<u32>,
}

/// A small collection's decoded postings ([`crate::index::DecodedPostings`]) and, when they
/// were computed for this searcher's parameters, every posting's contribution for a term
/// occurring once in the query (weight = idf).
struct Decoded<'a> {
    postings: &'a DecodedPostings,
    contributions: Option<&'a Contributions>,
}

/// Every decoded posting's [`contribution`] for its term occurring once in a query (weight =
/// idf), for one k1 and b; and the same for the terms of the most postings as dense rows, one
/// value per document (0 where the term does not occur), which the accumulator adds in order
/// instead of by gathering and scattering ([`DENSE_ROW_DF`]).
struct Contributions {
    values: Vec<f32>,
    /// The terms that have a row, by increasing number: term `row_terms[r]`'s row is
    /// `rows[r * max_doc..(r + 1) * max_doc]`.
    row_terms: Vec<u32>,
    rows: Vec<f32>,
    max_doc: usize,
}

impl Contributions {
    /// Term `number`'s dense row, if it has one.
    fn row(&self, number: u32) -> Option<&[f32]> {
        let r = self.row_terms.binary_search(&number).ok()?;
        Some(&self.rows[r * self.max_doc..(r + 1) * self.max_doc])
    }
}

/// A term's idf from its document frequency `df` among `n` documents: Lucene's,
/// ln(1 + (N − df + 0.5) / (df + 0.5)), in f64 and then f32.
fn idf(n: f64, df: f64) -> f32 {
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln() as f32
}

/// A BM25 searcher over an opened index.
pub struct Bm25<'a> {
    index: &'a Index,
    analyzer: Analyzer,
    params: Bm25Params,
    /// 1 / (k1 · (1 - b + b · len / avglen)) for each of the 256 field-norm codes.
    norm_inverse: [f32; 256],
    /// How [`Bm25::search`] finds the top k.
    strategy: Strategy,
    /// The postings as arrays, in a small one-segment index ([`Index::decoded`]): read by the
    /// first exhaustive search ([`Bm25::decoded`]), so a run that never searches BM25 (dense
    /// only) or that prunes does not decode them.
    decoded: OnceLock<Option<Decoded<'a>>>,
}

impl<'a> Bm25<'a> {
    /// A searcher with `params` (the index's own defaults when `None`).
    pub fn new(index: &'a Index, params: Option<Bm25Params>) -> Result<Self> {
        let params = params.unwrap_or(index.manifest().bm25);
        params.validate()?;
        let average = index.average_length().max(f32::MIN_POSITIVE);
        let mut norm_inverse = [0f32; 256];
        for (code, slot) in norm_inverse.iter_mut().enumerate() {
            let length = tantivy::fieldnorm::FieldNormReader::id_to_fieldnorm(code as u8) as f32;
            let norm = params.k1 * ((1.0 - params.b) + params.b * length / average);
            // k1 = 0 makes tf irrelevant: every matching term scores its idf (norm 0 → ∞ inverse).
            *slot = if norm > 0.0 { 1.0 / norm } else { f32::INFINITY };
        }
        Ok(Bm25 { index, analyzer: Analyzer::default(), params, norm_inverse, strategy: Strategy::default(), decoded: OnceLock::new() })
    }

    /// The index's decoded postings with this searcher's contributions, read on first use
    /// ([`Index::decoded`]; `None` where the index has none).
    fn decoded(&self) -> Result<Option<&Decoded<'a>>> {
        if let Some(decoded) = self.decoded.get() {
            return Ok(decoded.as_ref());
        }
        let (index, params) = (self.index, self.params);
        let read = index.decoded()?.map(|postings| {
            let key = u64::from(params.k1.to_bits()) << 32 | u64::from(params.b.to_bits());
            let contributions = postings.derived(key, |postings| Self::contributions(index, postings, &self.norm_inverse));
            Decoded { postings, contributions }
        });
        // Another thread may have read them meanwhile: either is the same.
        Ok(self.decoded.get_or_init(|| read).as_ref())
    }

    /// Every decoded posting's contribution for its term occurring once in a query: weight idf,
    /// the [`contribution`] the accumulator would add (the same bits); and the dense rows of the
    /// terms in at least one document in [`DENSE_ROW_DF`], as many as [`DENSE_ROW_BUDGET`] allows.
    fn contributions(index: &Index, postings: &DecodedPostings, norm_inverse: &[f32; 256]) -> Contributions {
        let norm_ids = &index.segments()[0].norm_ids;
        let max_doc = norm_ids.len();
        let n = index.num_docs() as f64;
        let (docs, freqs) = (postings.docs(), postings.freqs());
        let mut values = Vec::with_capacity(docs.len());
        for number in 0..postings.num_terms() as u32 {
            let span = postings.span(number);
            let weight = 1.0 * idf(n, span.len() as f64);
            values.extend(docs[span.clone()].iter().zip(&freqs[span]).map(|(&doc, &tf)| contribution(weight, tf, norm_inverse[norm_ids[doc as usize] as usize])));
        }
        let mut row_terms: Vec<u32> = (0..postings.num_terms() as u32).filter(|&t| postings.span(t).len() * DENSE_ROW_DF >= max_doc.max(1)).collect();
        // The most postings first, while the rows fit the budget.
        let most = DENSE_ROW_BUDGET * docs.len() / max_doc.max(1);
        if row_terms.len() > most {
            row_terms.sort_unstable_by_key(|&t| std::cmp::Reverse(postings.span(t).len()));
            row_terms.truncate(most);
            row_terms.sort_unstable();
        }
        let mut rows = vec![0f32; row_terms.len() * max_doc];
        for (row, &number) in rows.chunks_exact_mut(max_doc.max(1)).zip(&row_terms) {
            let span = postings.span(number);
            for (&doc, &value) in docs[span.clone()].iter().zip(&values[span]) {
                row[doc as usize] = value;
            }
        }
        Contributions { values, row_terms, rows, max_doc }
    }

    /// The same searcher with another [`Strategy`] for [`Bm25::search`] (`--bm25-strategy`).
    pub fn with_strategy(self, strategy: Strategy) -> Self {
        Bm25 { strategy, ..self }
    }

    /// The same searcher reading tantivy's postings even where the index has decoded ones.
    #[cfg(test)]
    fn without_decoded(self) -> Self {
        Bm25 { decoded: OnceLock::from(None), ..self }
    }

    /// The parameters in use.
    pub fn params(&self) -> Bm25Params {
        self.params
    }

    /// The analysed query terms with their weights qtf · idf, in first-occurrence order;
    /// terms absent from the index are left out.
    pub fn weighted_terms(&self, query: &str) -> Result<Vec<(Term, f32)>> {
        Ok(self.query_terms(query, false)?.into_iter().map(|t| (self.index.term(&t.text), t.weight)).collect())
    }

    /// The query's terms, found by their numbers in the decoded postings when `decoded` (and
    /// the index has them), else in each segment's term dictionary.
    fn query_terms(&self, query: &str, decoded: bool) -> Result<Vec<QueryTerm>> {
        let n = self.index.num_docs() as f64;
        let decoded = if decoded { self.decoded()? } else { None };
        if let Some(Decoded { postings, .. }) = decoded {
            // Each term keyed as the analyzer emits it, without a copy of its text (a long
            // one, rare, looked up at once), then all looked up together ([`TermKey`]); terms
            // absent from the index are left out, as below.
            let mut keyed: Vec<Result<TermKey, Option<u32>>> = Vec::with_capacity(32);
            self.analyzer.analyze_emitted(query, &mut |term| {
                keyed.push(match term {
                    Emitted::Packed(packed) => Ok(TermKey::packed(packed)),
                    Emitted::Text(text) => TermKey::of(text).ok_or_else(|| postings.number(text)),
                })
            });
            let numbers: Vec<Option<u32>> = keyed.iter().map(|key| key.map_or_else(|number| number, |key| postings.number_of(key))).collect();
            let mut counted: Vec<(u32, u32)> = Vec::with_capacity(numbers.len());
            for number in numbers.into_iter().flatten() {
                match counted.iter_mut().find(|(t, _)| *t == number) {
                    Some((_, count)) => *count += 1,
                    None => counted.push((number, 1)),
                }
            }
            return Ok(counted
                .into_iter()
                .map(|(number, count)| {
                    let weight = count as f32 * idf(n, postings.span(number).len() as f64);
                    QueryTerm { text: String::new(), weight, count, infos: Vec::new(), number: Some(number) }
                })
                .collect());
        }
        let mut counted: Vec<(String, u32)> = Vec::new();
        self.analyzer.analyze(query, &mut |term| match counted.iter_mut().find(|(t, _)| t == term) {
            Some((_, count)) => *count += 1,
            None => counted.push((term.to_string(), 1)),
        });
        let mut terms = Vec::with_capacity(counted.len());
        for (text, count) in counted {
            let (infos, df) = self.look_up(&text)?;
            if df > 0 {
                terms.push(QueryTerm { text, weight: count as f32 * idf(n, df as f64), count, infos, number: None });
            }
        }
        Ok(terms)
    }

    /// A term's postings in each segment and its document frequency among the live documents
    /// (documents deleted by an update are still in the postings but count nowhere).
    fn look_up(&self, text: &str) -> Result<(Vec<Option<TermInfo>>, u64)> {
        let term = self.index.term(text);
        let infos = self
            .index
            .segments()
            .iter()
            .map(|segment| segment.inverted.get_term_info(&term))
            .collect::<std::io::Result<Vec<_>>>()
            .map_err(|e| Error::io(self.index.path(), e))?;
        let df = infos.iter().flatten().map(|info| u64::from(info.doc_freq)).sum::<u64>() - self.index.deletions().doc_freq(text);
        Ok((infos, df))
    }

    /// The number of live documents holding the analysed term `text`.
    pub fn doc_freq(&self, text: &str) -> Result<u64> {
        Ok(self.look_up(text)?.1)
    }

    /// The index searched.
    pub fn index(&self) -> &'a Index {
        self.index
    }

    /// The analyser the index was built with.
    pub fn analyzer(&self) -> &Analyzer {
        &self.analyzer
    }

    /// The top `k` documents for a query given as analysed terms with weights (an expanded
    /// query: [`crate::retrieve::feedback`]): each document scores Σ weight · BM25(term), as
    /// [`Bm25::search`] scores a term occurring `weight` times. Terms absent from the index, or
    /// with a weight that is not positive, are left out.
    pub fn search_weighted(&self, weighted: &[(String, f32)], cutoff: &Cutoff, k: usize, exclude_rank: Option<u32>, scratch: &mut Scratch) -> Result<Vec<Hit>> {
        let n = self.index.num_docs() as f64;
        let mut terms = Vec::with_capacity(weighted.len());
        for (text, weight) in weighted.iter().filter(|(_, w)| *w > 0.0) {
            let (infos, df) = self.look_up(text)?;
            if df > 0 {
                // Not 1: a term occurring once would be scored from contributions computed for
                // weight = idf (they are not used for terms without a number anyway).
                terms.push(QueryTerm { text: text.clone(), weight: weight * idf(n, df as f64), count: 0, infos, number: None });
            }
        }
        // Without decoded postings: the exhaustive scorer reads these terms from tantivy's.
        self.search_terms(self.strategy, &terms, cutoff, k, exclude_rank, scratch)
    }

    /// The top `k` documents for `query` among those `cutoff` admits, best first (module doc of
    /// [`crate::retrieve`] for the tie rule), found by the searcher's [`Strategy`]. `exclude_rank` drops one document (BEIR's
    /// `--remove-query`).
    pub fn search(&self, query: &str, cutoff: &Cutoff, k: usize, exclude_rank: Option<u32>, scratch: &mut Scratch) -> Result<Vec<Hit>> {
        self.search_with(self.strategy, query, cutoff, k, exclude_rank, scratch)
    }

    /// [`Bm25::search`] with a chosen [`Strategy`] (the strategies' equality is tested).
    pub fn search_with(&self, strategy: Strategy, query: &str, cutoff: &Cutoff, k: usize, exclude_rank: Option<u32>, scratch: &mut Scratch) -> Result<Vec<Hit>> {
        // The decoded postings serve the exhaustive scorer; the others seek in tantivy's.
        let terms = self.query_terms(query, strategy == Strategy::Exhaustive)?;
        self.search_terms(strategy, &terms, cutoff, k, exclude_rank, scratch)
    }

    fn search_terms(&self, strategy: Strategy, terms: &[QueryTerm], cutoff: &Cutoff, k: usize, exclude_rank: Option<u32>, scratch: &mut Scratch) -> Result<Vec<Hit>> {
        if k == 0 || terms.is_empty() {
            return Ok(Vec::new());
        }
        let hits = match strategy {
            Strategy::MaxScore => self.maxscore(terms, cutoff, k, exclude_rank, scratch)?,
            Strategy::Exhaustive => self.exhaustive(terms, cutoff, k, exclude_rank, scratch)?,
            Strategy::Pruned => self.pruned(terms, cutoff, k, exclude_rank, scratch)?,
        };
        Ok(hits
            .into_iter()
            .map(|(score, rank)| {
                let (segment, doc) = self.index.address(rank);
                Hit { segment, doc, rank, score }
            })
            .collect())
    }

    /// Grows the scratch for a segment of `max_doc` documents.
    fn fit(scratch: &mut Scratch, max_doc: usize) {
        if scratch.scores.len() < max_doc {
            scratch.scores.resize(max_doc, 0.0);
            // One slot more than documents: every posting writes at `list[listed]`, also once
            // every document is listed.
            scratch.list.resize(max_doc + 1, 0);
        }
    }

    /// Where a segment is read and whether its candidates need a check ([`admitted`]): a
    /// date-sorted segment only where the cutoff admits documents, with no check unless some of
    /// its documents are deleted; any other whole, checked.
    fn ranges(segment: &crate::index::SegmentData, cutoff: &CompiledCutoff) -> ([std::ops::Range<u32>; 2], bool) {
        let max_doc = segment.ranks.len() as u32;
        match segment.date_sorted {
            true => (cutoff.ranges(&segment.date_keys), segment.deleted > 0),
            false => ([0..max_doc, max_doc..max_doc], true),
        }
    }

    /// Term at a time into the accumulator (module doc).
    fn exhaustive(&self, terms: &[QueryTerm], cutoff: &Cutoff, k: usize, exclude_rank: Option<u32>, scratch: &mut Scratch) -> Result<Vec<(f32, u32)>> {
        let cutoff = cutoff.compile();
        let mut top = TopK::new(k);
        for (segment_ord, segment) in self.index.segments().iter().enumerate() {
            Self::fit(scratch, segment.ranks.len());
            let (ranges, check) = Self::ranges(segment, &cutoff);
            for term in terms {
                if let Err(e) = self.accumulate(segment_ord, term, &ranges, scratch) {
                    scratch.reset();
                    return Err(e);
                }
            }
            self.select(segment, &ranges, &cutoff, check, exclude_rank, scratch, &mut top);
        }
        Ok(top.into_sorted())
    }

    /// Offers every touched document of `segment` to `top`, clearing the accumulator; `ranges`
    /// are where the segment was read (every touched document is inside them).
    #[allow(clippy::too_many_arguments)]
    fn select(&self, segment: &crate::index::SegmentData, ranges: &[std::ops::Range<u32>], cutoff: &CompiledCutoff, check: bool, exclude_rank: Option<u32>, scratch: &mut Scratch, top: &mut TopK) {
        let Scratch { scores, list, listed, unlisted, maxima, .. } = scratch;
        let touched = std::mem::take(listed);
        let unlisted = std::mem::take(unlisted);
        let span: usize = ranges.iter().map(|r| r.len()).sum();
        // Touched documents in chunks: each chunk's scores are taken (clearing the accumulator)
        // and those not below the floor gathered without a branch, then only these few are
        // checked against the cutoff and offered. The chunks are the touched list's, or, once
        // so many documents are touched that reading the accumulator in order is cheaper than
        // gathering from it, the ranges' (the same documents offered, so the same top k).
        let (mut docs, mut values) = ([0u32; CHUNK], [0f32; CHUNK]);
        let offer = |n: usize, docs: &[u32; CHUNK], values: &[f32; CHUNK], top: &mut TopK| {
            for (&doc, &score) in docs[..n].iter().zip(&values[..n]) {
                if admitted(segment, cutoff, check, exclude_rank, doc) {
                    top.push(score, segment.ranks[doc as usize]);
                }
            }
        };
        if unlisted || touched * SWEEP_WHEN_TOUCHED_OF >= span {
            // Where every document of the ranges is admitted, a floor from the groups' maxima
            // ([`kernel::group_maxima`]), one document more when one is left out: the
            // sweep then gathers and offers a few more than k, not every touched one until the
            // top k's own floor has risen.
            let kth = top.k() + usize::from(exclude_rank.is_some());
            let mut floor = f32::NEG_INFINITY;
            if !check && kth <= GROUP_FLOOR_MOST && kth * GROUP_FLOOR_DOCS_PER_K <= span {
                maxima.clear();
                maxima.resize(kernel::floor_groups(kth), 0);
                for range in ranges {
                    kernel::group_maxima(&scores[range.start as usize..range.end as usize], maxima);
                }
                // The kth largest maximum (0, no floor, where fewer groups were touched; there
                // are at least twice kth groups).
                floor = kth_largest_bits(maxima, kth).map_or(0.0, f32::from_bits);
            }
            for range in ranges {
                for start in range.clone().step_by(CHUNK) {
                    let end = (start + CHUNK as u32).min(range.end);
                    let n = kernel::sweep(&mut scores[start as usize..end as usize], start, top.floor().max(floor), &mut docs, &mut values);
                    offer(n, &docs, &values, top);
                }
            }
        } else {
            for chunk in list[..touched].chunks(CHUNK) {
                let n = kernel::take(chunk, scores, top.floor(), &mut docs, &mut values);
                offer(n, &docs, &values, top);
            }
        }
    }

    /// The most the term at `term` can add to a document of segment `segment_ord`: the best
    /// contribution over its frontier ([`crate::index::TermBounds`]), or its weight (a bound
    /// for any k1 and b, tf / (tf + norm) < 1) in an index without bounds.
    fn bound(&self, segment_ord: usize, term: &QueryTerm) -> f32 {
        let segment = &self.index.segments()[segment_ord];
        match (&segment.bounds, &term.infos[segment_ord]) {
            (_, None) => 0.0,
            (None, Some(_)) => term.weight,
            (Some(bounds), Some(info)) => bounds
                .frontier(info)
                .map(|(code, tf)| contribution(term.weight, tf, self.norm_inverse[code as usize]))
                .reduce(f32::max)
                .unwrap_or(term.weight),
        }
    }

    /// Term at a time with exact pruning (see [`Strategy::Pruned`]).
    fn pruned(&self, terms: &[QueryTerm], cutoff: &Cutoff, k: usize, exclude_rank: Option<u32>, scratch: &mut Scratch) -> Result<Vec<(f32, u32)>> {
        let cutoff = cutoff.compile();
        let mut top = TopK::new(k);
        // The f32 sum of n contributions differs from their exact sum by less than n units in
        // the last place of each partial sum; bounds are scaled up by more than that.
        let margin = 1.0 + 4.0 * (terms.len() as f64 + 2.0) * f64::from(f32::EPSILON);
        let below = |partial: f32, rest: f64, theta: f32| (f64::from(partial) + rest) * margin < f64::from(theta);
        for (segment_ord, segment) in self.index.segments().iter().enumerate() {
            let max_doc = segment.ranks.len();
            Self::fit(scratch, max_doc);
            let (ranges, check) = Self::ranges(segment, &cutoff);
            let admitted = |doc: u32| admitted(segment, &cutoff, check, exclude_rank, doc);
            let span: u64 = ranges.iter().map(|r| u64::from(r.end - r.start)).sum();
            // rest[i]: the most terms[i..] can add together; postings[i]: how many they hold.
            let (mut rest, mut postings) = (vec![0f64; terms.len() + 1], vec![0u64; terms.len() + 1]);
            for i in (0..terms.len()).rev() {
                rest[i] = rest[i + 1] + f64::from(self.bound(segment_ord, &terms[i]));
                postings[i] = postings[i + 1] + terms[i].infos[segment_ord].as_ref().map_or(0, |info| u64::from(info.doc_freq));
            }
            // The k-th best score is at least theta: from earlier segments' hits, then from
            // this one's partial scores, which only grow.
            let mut theta = top.floor();
            // Phase 1: whole terms into the accumulator, until no document untouched so far can
            // reach theta with the terms left and seeking the rest at the touched documents
            // that still can is estimated cheaper than adding them whole.
            //
            // The touched list is in first-touch order, and a document first touched by term j
            // scores at most rest[j] in the end. So once theta exceeds rest[j], the candidates
            // are all among the documents touched before term j: a short prefix of the list,
            // read without scanning the accumulator. theta itself comes from the documents
            // touched first (any subset's k-th best partial score is a lower bound).
            let mut next = 0;
            let mut switch = false;
            let mut touched_before = Vec::with_capacity(terms.len());
            while next < terms.len() && !switch {
                touched_before.push(scratch.listed);
                if let Err(e) = self.accumulate(segment_ord, &terms[next], &ranges, scratch) {
                    scratch.reset();
                    return Err(e);
                }
                next += 1;
                // theta is at most the best partial score, at most the added terms' bounds.
                if next == terms.len() || rest[next] >= rest[0] - rest[next] {
                    continue;
                }
                let Scratch { scores, list, listed, candidates, partials, .. } = &mut *scratch;
                let touched = &list[..*listed];
                let first = &touched[..touched.len().min(THETA_SAMPLE.max(2 * k))];
                theta = theta.max(match check || exclude_rank.is_some() {
                    true => kth_score(first.iter().filter(|&&doc| admitted(doc)).map(|&doc| scores[doc as usize]), k, partials),
                    false => kth_score(first.iter().map(|&doc| scores[doc as usize]), k, partials),
                });
                if !below(0.0, rest[next], theta) {
                    continue;
                }
                let prefix = (0..next).find(|&j| below(0.0, rest[j], theta)).map_or(touched.len(), |j| touched_before[j]);
                // Below this partial score a document cannot reach theta: counted without a
                // branch, gathered only when phase 2 starts.
                let floor = ((f64::from(theta) / margin - rest[next]) as f32).next_down();
                // Counting stops where so many candidates could not pay.
                let most = postings[next] * POSTING_COST / CANDIDATE_COST;
                let mut count = 0;
                for chunk in touched[..prefix].chunks(CHUNK) {
                    count += chunk.iter().map(|&doc| u64::from(scores[doc as usize] >= floor)).sum::<u64>();
                    if count > most {
                        break;
                    }
                }
                let seeking: u64 = terms[next..]
                    .iter()
                    .filter_map(|t| t.infos[segment_ord].as_ref())
                    .map(|info| count.min(u64::from(info.doc_freq).div_ceil(128)) * BLOCK_COST + count * CANDIDATE_COST)
                    .sum();
                switch = seeking + span / CLEAR_DOCS_PER_COST < (postings[next] + *listed as u64) * POSTING_COST;
                if switch {
                    candidates.clear();
                    for &doc in &touched[..prefix] {
                        let score = scores[doc as usize];
                        if score >= floor {
                            candidates.push((doc, score));
                        }
                    }
                    candidates.retain(|&(doc, score)| !below(score, rest[next], theta) && admitted(doc));
                }
            }
            if !switch {
                self.select(segment, &ranges, &cutoff, check, exclude_rank, scratch, &mut top);
                continue;
            }
            // Phase 2: the candidates, in document order, take the remaining terms'
            // contributions by seeking in their postings; the accumulator is cleared.
            let Scratch { scores, listed, candidates, partials, .. } = &mut *scratch;
            candidates.sort_unstable_by_key(|&(doc, _)| doc);
            for range in &ranges {
                scores[range.start as usize..range.end as usize].fill(0.0);
            }
            *listed = 0;
            for (i, term) in terms.iter().enumerate().skip(next) {
                let Some(info) = &term.infos[segment_ord] else { continue };
                let mut block = self.block_postings(segment, info)?;
                for (doc, score) in candidates.iter_mut() {
                    if block.docs().last().is_some_and(|&last| last < *doc) {
                        block.seek(*doc);
                    }
                    let docs = block.docs();
                    if docs.is_empty() {
                        break;
                    }
                    let at = docs.partition_point(|&d| d < *doc);
                    if docs.get(at) == Some(doc) {
                        let inverse = self.norm_inverse[segment.norm_ids[*doc as usize] as usize];
                        *score += contribution(term.weight, block.freqs()[at], inverse);
                    }
                }
                if i + 1 < terms.len() {
                    theta = theta.max(kth_score(candidates.iter().map(|&(_, score)| score), k, partials));
                }
                candidates.retain(|&(_, score)| !below(score, rest[i + 1], theta));
            }
            for &(doc, score) in candidates.iter() {
                top.push(score, segment.ranks[doc as usize]);
            }
        }
        Ok(top.into_sorted())
    }

    /// Document at a time with MaxScore: terms sorted by their upper bound (a term adds less
    /// than its weight to any document, tf / (tf + norm) < 1, for every k1 and b); the
    /// lowest-bound terms whose bounds sum below the k-th best score so far are non-essential —
    /// a document they alone match cannot be kept — so only the essential terms' postings are
    /// walked, and a candidate's non-essential terms are looked up (seek) only while its bound
    /// can still reach the threshold. Documents the cutoff does not admit are dropped before
    /// any lookup. A kept document's score is the sum of its terms' contributions in
    /// query-term order, the exhaustive scorer's order of f32 additions, so both give
    /// identical scores.
    fn maxscore(&self, terms: &[QueryTerm], cutoff: &Cutoff, k: usize, exclude_rank: Option<u32>, scratch: &mut Scratch) -> Result<Vec<(f32, u32)>> {
        let cutoff = cutoff.compile();
        let mut top = Threshold::new(k);
        let io = |e: std::io::Error| Error::io(self.index.path(), e);
        // A term's contribution, by query-term order, for the candidate being scored.
        let contributions = &mut scratch.contributions;
        contributions.clear();
        contributions.resize(terms.len(), None);
        for (segment_ord, segment) in self.index.segments().iter().enumerate() {
            struct Cursor {
                postings: SegmentPostings,
                weight: f32,
                order: usize,
            }
            let mut cursors = Vec::with_capacity(terms.len());
            for (order, term) in terms.iter().enumerate() {
                if let Some(info) = &term.infos[segment_ord] {
                    cursors.push(Cursor { postings: segment.inverted.read_postings_from_terminfo(info, IndexRecordOption::WithFreqs).map_err(io)?, weight: term.weight, order });
                }
            }
            if cursors.is_empty() {
                continue;
            }
            cursors.sort_by(|a, b| a.weight.total_cmp(&b.weight).then(a.order.cmp(&b.order)));
            // bound[i]: the most cursors[..i] can add together, in f64 and rounded up, so that
            // float rounding never makes a bound fall below a score it must cover.
            let mut bound = vec![0f64; cursors.len() + 1];
            for (i, c) in cursors.iter().enumerate() {
                bound[i + 1] = bound[i] + f64::from(c.weight);
            }
            let safe = |b: f64| b * (1.0 + 1e-5) + 1e-6;
            let below = |b: f64, threshold: f32| safe(b) < f64::from(threshold);
            // cursors[essential..] are essential: bound[essential] is the largest prefix below
            // the threshold.
            let mut essential = 0;
            loop {
                while essential < cursors.len() && below(bound[essential + 1], top.threshold()) {
                    essential += 1;
                }
                if essential == cursors.len() {
                    break;
                }
                let doc = cursors[essential..].iter().map(|c| c.postings.doc()).min().unwrap_or(TERMINATED);
                if doc == TERMINATED {
                    break;
                }
                let d = doc as usize;
                let rank = segment.ranks[d];
                let admitted = cutoff.admits(segment.date_keys[d]) && rank != DELETED && Some(rank) != exclude_rank;
                let inverse = self.norm_inverse[segment.norm_ids[d] as usize];
                let contribution = |weight: f32, tf: u32| contribution(weight, tf, inverse);
                let mut partial = 0f64;
                for c in &mut cursors[essential..] {
                    if c.postings.doc() == doc {
                        if admitted {
                            let x = contribution(c.weight, c.postings.term_freq());
                            contributions[c.order] = Some(x);
                            partial += f64::from(x);
                        }
                        c.postings.advance();
                    }
                }
                if !admitted {
                    continue;
                }
                let mut pruned = false;
                for i in (0..essential).rev() {
                    if below(partial + bound[i + 1], top.threshold()) {
                        pruned = true;
                        break;
                    }
                    let c = &mut cursors[i];
                    if c.postings.doc() < doc {
                        c.postings.seek(doc);
                    }
                    if c.postings.doc() == doc {
                        let x = contribution(c.weight, c.postings.term_freq());
                        contributions[c.order] = Some(x);
                        partial += f64::from(x);
                    }
                }
                // The exhaustive scorer's sum: 0 plus each matching term's contribution, in
                // query-term order, in f32.
                let mut score = 0f32;
                for slot in contributions.iter_mut() {
                    if let Some(x) = slot.take() {
                        score += x;
                    }
                }
                if !pruned {
                    top.push(score, rank);
                }
            }
        }
        Ok(top.into_sorted())
    }

    /// A term's block postings in `segment`, with frequencies.
    fn block_postings(&self, segment: &crate::index::SegmentData, info: &TermInfo) -> Result<tantivy::postings::BlockSegmentPostings> {
        #[cfg(test)]
        tests::injected_read_error().map_err(|e| Error::io(self.index.path(), e))?;
        segment.inverted.read_block_postings_from_terminfo(info, IndexRecordOption::WithFreqs).map_err(|e| Error::io(self.index.path(), e))
    }

    /// Adds the scores of `term` in segment `segment_ord` to the accumulator, for the documents
    /// inside `ranges` (ascending, disjoint) alone: the postings are read from the block holding
    /// a range's start (blocks before it are skipped undecoded) and left at the range's end.
    fn accumulate(&self, segment_ord: usize, term: &QueryTerm, ranges: &[std::ops::Range<u32>], scratch: &mut Scratch) -> Result<()> {
        let segment = &self.index.segments()[segment_ord];
        // A term has a number only once the decoded postings were read.
        if let (Some(number), Some(Some(decoded))) = (term.number, self.decoded.get()) {
            self.accumulate_decoded(segment, decoded, number, term, ranges, scratch);
            return Ok(());
        }
        let Scratch { scores, list, listed, .. } = scratch;
        let Some(info) = &term.infos[segment_ord] else { return Ok(()) };
        let weight = term.weight;
        let mut block = self.block_postings(segment, info)?;
        let mut n = *listed;
        for range in ranges.iter().filter(|r| !r.is_empty()) {
            if range.start > 0 {
                block.seek(range.start);
            }
            loop {
                let docs = block.docs();
                let (Some(&first), Some(&last)) = (docs.first(), docs.last()) else { break };
                let from = if first >= range.start { 0 } else { docs.partition_point(|&d| d < range.start) };
                let to = if last < range.end { docs.len() } else { docs.partition_point(|&d| d < range.end) };
                kernel::add(&docs[from..to], &block.freqs()[from..to], weight, &segment.norm_ids, &self.norm_inverse, scores, list, &mut n);
                if to < docs.len() {
                    break;
                }
                block.advance();
            }
        }
        *listed = n;
        Ok(())
    }

    /// [`Bm25::accumulate`] from the decoded postings of the index's one segment: the term's
    /// postings inside `ranges`, found by binary search, and for a term occurring once in the
    /// query their contributions as computed once ([`Decoded`]).
    fn accumulate_decoded(&self, segment: &crate::index::SegmentData, decoded: &Decoded<'_>, number: u32, term: &QueryTerm, ranges: &[std::ops::Range<u32>], scratch: &mut Scratch) {
        let Scratch { scores, list, listed, unlisted, .. } = scratch;
        // A dense row is added over the ranges whole, without reading the postings (a first
        // read of them mostly misses the core's caches).
        let contributions = decoded.contributions.filter(|_| term.count == 1);
        if let Some(row) = contributions.and_then(|contributions| contributions.row(number)) {
            for range in ranges.iter().filter(|r| !r.is_empty()) {
                let whole = range.start as usize..range.end as usize;
                kernel::add_row(&row[whole.clone()], &mut scores[whole]);
                *unlisted = true;
            }
            return;
        }
        let span = decoded.postings.span(number);
        let docs = &decoded.postings.docs()[span.clone()];
        let (Some(&first), Some(&last)) = (docs.first(), docs.last()) else { return };
        for range in ranges.iter().filter(|r| !r.is_empty()) {
            // A binary search only where the range cuts the postings (none without a cutoff).
            let from = if range.start <= first { 0 } else { docs.partition_point(|&d| d < range.start) };
            let to = if range.end > last { docs.len() } else { from + docs[from..].partition_point(|&d| d < range.end) };
            let at = span.start + from..span.start + to;
            match contributions {
                Some(contributions) => kernel::add_values(&docs[from..to], &contributions.values[at], scores, list, listed),
                None => kernel::add(&docs[from..to], &decoded.postings.freqs()[at], term.weight, &segment.norm_ids, &self.norm_inverse, scores, list, listed),
            }
        }
    }
}


/// Whether document `doc` of `segment` may be returned: the cutoff admits it and it is not
/// deleted (both checked only where `check`: a date-sorted segment is read only inside the
/// cutoff's ranges, and one with deleted documents is always checked), and it is not the one
/// left out.
fn admitted(segment: &crate::index::SegmentData, cutoff: &CompiledCutoff, check: bool, exclude_rank: Option<u32>, doc: u32) -> bool {
    let rank = segment.ranks[doc as usize];
    (!check || (cutoff.admits(segment.date_keys[doc as usize]) && rank != DELETED)) && Some(rank) != exclude_rank
}

/// The `kth` largest of `scores` (never negative; −∞ when fewer), with `buffer` as working
/// memory: the scores' bits, which order as the scores do, select faster than the floats.
fn kth_score(scores: impl Iterator<Item = f32>, kth: usize, buffer: &mut Vec<u32>) -> f32 {
    buffer.clear();
    buffer.extend(scores.map(f32::to_bits));
    kth_largest_bits(buffer, kth).map_or(f32::NEG_INFINITY, f32::from_bits)
}

/// The `kth` largest of `bits` (reordered in place), `None` when there are fewer or `kth` is 0.
fn kth_largest_bits(bits: &mut [u32], kth: usize) -> Option<u32> {
    let at = bits.len().checked_sub(kth).filter(|_| kth > 0)?;
    Some(*bits.select_nth_unstable(at).1)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::path::Path;

    use super::*;
    use crate::corpus::{Corpus, Document, LoadSummary};
    use crate::index::{build, IndexConfig};
    use crate::io::NoProgress;

    thread_local! {
        /// Postings reads left before one fails (none: no failure).
        static READS_BEFORE_FAILURE: Cell<Option<usize>> = const { Cell::new(None) };
    }

    /// A read error where [`READS_BEFORE_FAILURE`] says one comes.
    pub(super) fn injected_read_error() -> std::io::Result<()> {
        READS_BEFORE_FAILURE.with(|left| match left.get() {
            Some(0) => {
                left.set(None);
                Err(std::io::Error::other("injected postings read error"))
            }
            Some(n) => {
                left.set(Some(n - 1));
                Ok(())
            }
            None => Ok(()),
        })
    }

    /// The accumulator's "score 0 = not touched yet" rule needs every contribution above 0,
    /// even where 1 + tf · inverse rounds to 1 (a document of 10⁸ times the mean length).
    #[test]
    fn a_contribution_is_never_zero() {
        assert!(contribution(1e-3, 1, 1e-9) > 0.0);
        assert_eq!(contribution(2.0, 3, f32::INFINITY), 2.0, "k1 = 0: every match scores its weight");
        assert_eq!(contribution(2.0, 1, 1.0), 1.0);
    }

    /// Every document of a segment touched, then touched again: the branchless touched list
    /// wrote one slot past its end (a panic, found by the page test on a two-document corpus).
    #[test]
    fn every_document_matching_every_term_stays_in_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let doc = |id: &str, text: &str| Document { id: id.into(), title: String::new(), text: text.into(), url: None, date: None };
        let documents = vec![doc("a", "inflation fell to 3 percent"), doc("b", "inflation was 3 percent in May")];
        let corpus = Corpus { summary: LoadSummary { documents: documents.len(), ..Default::default() }, documents };
        for threads in [1, 2] {
            let path = dir.path().join(format!("idx{threads}"));
            build(&corpus, Path::new("test"), &path, &IndexConfig { threads, ..IndexConfig::default() }, &NoProgress).unwrap();
            let index = Index::open(&path).unwrap();
            let hits = Bm25::new(&index, None).unwrap().search("inflation 3 percent", &Cutoff::none(), 10, None, &mut Scratch::default()).unwrap();
            assert_eq!(hits.len(), 2, "{threads} threads");
        }
    }

    /// The decoded index's terms (short ones keyed and looked up together, long ones at once)
    /// come in first-occurrence order with their counts, as the term dictionary's do.
    #[test]
    fn decoded_query_terms_keep_the_query_order() {
        let dir = tempfile::tempdir().unwrap();
        let doc = |id: &str, text: &str| Document { id: id.into(), title: String::new(), text: text.into(), url: None, date: None };
        let documents = vec![
            doc("a", "counterrevolutionaries raised inflation"),
            doc("b", "inflation rates and counterrevolutionaries"),
            doc("c", "rates fell"),
            doc("d", "inflation fell"),
        ];
        let corpus = Corpus { summary: LoadSummary { documents: documents.len(), ..Default::default() }, documents };
        let path = dir.path().join("idx");
        build(&corpus, Path::new("test"), &path, &IndexConfig { threads: 1, ..IndexConfig::default() }, &NoProgress).unwrap();
        let index = Index::open(&path).unwrap();
        let searcher = Bm25::new(&index, None).unwrap();
        assert!(searcher.decoded().unwrap().is_some(), "a small one-segment index is decoded");
        let query = "rates counterrevolutionaries inflation absent rates counterrevolutionaries rates";
        let terms = |decoded| searcher.query_terms(query, decoded).unwrap().iter().map(|t| (t.weight, t.count)).collect::<Vec<_>>();
        let (decoded, dictionary) = (terms(true), terms(false));
        assert_eq!(decoded.iter().map(|t| t.1).collect::<Vec<_>>(), [3, 2, 1]);
        assert_eq!(decoded, dictionary);
    }

    /// Dense rows ([`Contributions`]) give the bits of tantivy's postings read one block at a
    /// time, with and without cutoffs (date order: a row is added over the cutoff's ranges
    /// only), at any k, and leave the scratch clean for the next search.
    #[test]
    fn dense_rows_equal_the_postings() {
        use crate::corpus::PubDate;
        use crate::index::DocOrder;
        use crate::retrieve::UndatedPolicy;
        use rand_chacha::rand_core::{Rng, SeedableRng};

        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        // Words of every document frequency: word i in about one document in i + 1.
        let words: Vec<String> = (0..60).map(|i| format!("w{i}x")).collect();
        // Enough documents that a sweep's floor from group maxima (at least 64 documents per
        // k, `GROUP_FLOOR_DOCS_PER_K`) is taken at k = 1, 2 and 10.
        let documents: Vec<Document> = (0..1200)
            .map(|n| {
                let length = 3 + rng.next_u64() % 40;
                let text = (0..length).map(|_| words[(rng.next_u64() % 60) as usize % (1 + (rng.next_u64() % 60) as usize)].as_str()).collect::<Vec<_>>().join(" ");
                let date = (n % 7 != 0).then(|| PubDate::parse(&format!("20{:02}-{:02}-01", 10 + rng.next_u64() % 10, 1 + rng.next_u64() % 12)).unwrap());
                Document { id: format!("d{n}"), title: String::new(), text, url: None, date }
            })
            .collect();
        let corpus = Corpus { summary: LoadSummary { documents: documents.len(), ..Default::default() }, documents };
        let dir = tempfile::tempdir().unwrap();
        for doc_order in [DocOrder::Date, DocOrder::Corpus] {
            let path = dir.path().join(format!("{doc_order:?}"));
            build(&corpus, Path::new("test"), &path, &IndexConfig { threads: 1, doc_order, ..IndexConfig::default() }, &NoProgress).unwrap();
            let (mut scratch, mut rows_added) = (Scratch::default(), 0);
            for _ in 0..200 {
                // Opened for each search's parameters: an index keeps the contributions of the
                // first parameters it is searched with.
                let index = Index::open(&path).unwrap();
                let params = Bm25Params { k1: (rng.next_u64() % 300) as f32 / 100.0, b: (rng.next_u64() % 101) as f32 / 100.0 };
                let (dense, sparse) = (Bm25::new(&index, Some(params)).unwrap(), Bm25::new(&index, Some(params)).unwrap().without_decoded());
                let query = (0..1 + rng.next_u64() % 8).map(|_| words[(rng.next_u64() % 60) as usize].as_str()).collect::<Vec<_>>().join(" ");
                let k = [1, 2, 10, 100, 1000][(rng.next_u64() % 5) as usize];
                let cutoff = match rng.next_u64() % 2 {
                    0 => Cutoff::none(),
                    _ => Cutoff::before(PubDate::parse(&format!("20{:02}-06-15", 10 + rng.next_u64() % 11)).unwrap(), UndatedPolicy::Include),
                };
                // One search in three leaves out a document it would return (BEIR's query itself).
                let exclude_rank = match rng.next_u64() % 3 {
                    0 => sparse.search(&query, &cutoff, k, None, &mut scratch).unwrap().first().map(|hit| hit.rank),
                    _ => None,
                };
                let want = sparse.search(&query, &cutoff, k, exclude_rank, &mut scratch).unwrap();
                let got = dense.search(&query, &cutoff, k, exclude_rank, &mut scratch).unwrap();
                assert_eq!(got, want, "{query:?} k {k} {params:?} {cutoff:?} {exclude_rank:?}");
                // MaxScore keeps its own running k-th score, without the accumulator's selection
                // (and its floor from group maxima): the same hits.
                let oracle = sparse.search_with(Strategy::MaxScore, &query, &cutoff, k, exclude_rank, &mut scratch).unwrap();
                assert_eq!(oracle, want, "{query:?} k {k} {params:?} {cutoff:?} {exclude_rank:?}");
                // The scratch is clean: the postings' search again gives its first answer.
                assert_eq!(sparse.search(&query, &cutoff, k, exclude_rank, &mut scratch).unwrap(), want);
                let Some(Decoded { contributions: Some(contributions), .. }) = dense.decoded().unwrap() else { continue };
                rows_added += dense.query_terms(&query, true).unwrap().iter().filter(|t| t.count == 1 && contributions.row(t.number.unwrap()).is_some()).count();
            }
            assert!(rows_added > 100, "{doc_order:?}: dense rows were added {rows_added} times");
        }
    }

    /// Issue 12: a postings read error left the thread's scratch accumulator dirty, so the next
    /// query on that thread got the failed query's partial scores added to its own.
    #[test]
    fn issue_12_a_postings_read_error_leaves_the_scratch_clean() {
        let dir = tempfile::tempdir().unwrap();
        let doc = |id: &str, text: &str| Document { id: id.into(), title: String::new(), text: text.into(), url: None, date: None };
        let documents = vec![doc("a", "inflation rate fell"), doc("b", "the inflation rate rose to 3 percent"), doc("c", "rate of growth"), doc("d", "unrelated text")];
        let corpus = Corpus { summary: LoadSummary { documents: documents.len(), ..Default::default() }, documents };
        build(&corpus, Path::new("test"), &dir.path().join("idx"), &IndexConfig::default(), &NoProgress).unwrap();
        let index = Index::open(&dir.path().join("idx")).unwrap();
        // Tantivy's postings are read (a small index's decoded ones are read when it opens).
        assert!(index.decoded().unwrap().is_some());
        let searcher = Bm25::new(&index, None).unwrap().without_decoded();
        let mut scratch = Scratch::default();
        let baseline = searcher.search("inflation rate", &Cutoff::none(), 10, None, &mut scratch).unwrap();
        assert_eq!(baseline.len(), 3);
        // The first term's postings are added, the second's read fails.
        READS_BEFORE_FAILURE.with(|left| left.set(Some(1)));
        assert!(searcher.search("inflation rate", &Cutoff::none(), 10, None, &mut scratch).is_err());
        let again = searcher.search("inflation rate", &Cutoff::none(), 10, None, &mut scratch).unwrap();
        assert_eq!(again, baseline, "the failed query left nothing behind");
    }
}
