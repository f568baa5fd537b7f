//! The exhaustive scorer's innermost loops, where most of a search's time goes, one document
//! after another: [`add`] adds one block of a term's postings to the accumulator ([`add_values`]
//! their contributions computed before, [`add_row`] a dense row of them), [`take`] takes
//! the touched documents' scores back out for selection, and [`sweep`] does the same for a whole
//! span of the accumulator, in order, when much of it is touched, with a floor that
//! [`group_maxima`] takes from the span first. On CPUs with AVX-512 all three
//! go sixteen documents at a time. `add` gathers the sixteen lengths' inverse norms and scores,
//! computes the contributions side by side, scatters the sums back and appends the first touches
//! to the touched list; a block's documents are strictly increasing, so no two lanes write the
//! same score. `take` gathers sixteen scores, scatters zeros and keeps those not below the
//! floor; `sweep` loads sixteen consecutive scores, stores zeros and keeps those not below the
//! floor. All keep lanes by compressing them in a register and storing all sixteen (the next
//! step overwrites those past the kept ones), never with the compressing store to memory: on AMD
//! Zen 4 that instruction is microcoded and slow, and replacing it made whole runs 1.6 to 1.7
//! times faster (2026-12-02, scale corpus, 2,495 claims, one thread: 1.66 s to 1.01 s at
//! k = 10). Every lane does the operations of [`contribution`] in its order, so both paths give
//! the same bits (the property tests below); the scalar path takes what is left of a block and
//! every CPU without AVX-512.
use super::contribution;

/// Adds the contribution of a term of weight `weight` to each `docs[i]` occurring `freqs[i]`
/// times: `scores[doc] += contribution(…)`, and a document whose score was 0 (untouched) is
/// appended to `list` at `*listed`. `docs` is strictly increasing; `norm_ids` holds each
/// document's length code and `norm_inverse` each code's 1 / (k1 · (1 − b + b · len / avglen)).
#[inline]
#[allow(clippy::too_many_arguments)]
pub(super) fn add(docs: &[u32], freqs: &[u32], weight: f32, norm_ids: &[u8], norm_inverse: &[f32; 256], scores: &mut [f32], list: &mut [u32], listed: &mut usize) {
    #[allow(unused_mut)]
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if docs.len() >= avx512::LANES && std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F; `avx512::add` checks every bound it relies on.
        done = unsafe { avx512::add(docs, freqs, weight, norm_ids, norm_inverse, scores, list, listed) };
    }
    scalar(&docs[done..], &freqs[done..], weight, norm_ids, norm_inverse, scores, list, listed);
}

/// [`add`] with each posting's contribution already computed: `scores[docs[i]] += values[i]`,
/// a first touch appended to `list` at `*listed` ([`crate::index::DecodedPostings`], whose
/// values are [`contribution`]s for the term's weight). `docs` is strictly increasing.
#[inline]
pub(super) fn add_values(docs: &[u32], values: &[f32], scores: &mut [f32], list: &mut [u32], listed: &mut usize) {
    #[allow(unused_mut)]
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if !docs.is_empty() && std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F; `avx512::add_values` checks every bound it relies on.
        done = unsafe { avx512::add_values(docs, values, scores, list, listed) };
    }
    scalar_values(&docs[done..], &values[done..], scores, list, listed);
}

/// Adds a dense row of contributions to the accumulator's span of the same documents:
/// `scores[i] += row[i]`, in order (0 where the term does not occur leaves a score's bits as
/// they were). Touched documents are not listed: the selection sweeps the span.
#[inline]
pub(super) fn add_row(row: &[f32], scores: &mut [f32]) {
    #[allow(unused_mut)]
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F; `avx512::add_row` checks every bound it relies on.
        done = unsafe { avx512::add_row(row, scores) };
    }
    for (score, &value) in scores.iter_mut().zip(row).skip(done) {
        *score += value;
    }
}

/// Takes the scores of the touched documents `docs` out of the accumulator (leaving 0, the
/// untouched state) and writes those not below `floor` to `out_docs` and `out_scores` in their
/// order, returning how many; the outputs hold at least `docs.len()` values.
#[inline]
pub(super) fn take(docs: &[u32], scores: &mut [f32], floor: f32, out_docs: &mut [u32], out_scores: &mut [f32]) -> usize {
    #[allow(unused_mut)]
    let (mut done, mut n) = (0, 0);
    #[cfg(target_arch = "x86_64")]
    if docs.len() >= avx512::LANES && std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F; `avx512::take` checks every bound it relies on.
        (done, n) = unsafe { avx512::take(docs, scores, floor, out_docs, out_scores) };
    }
    for &doc in &docs[done..] {
        let score = std::mem::take(&mut scores[doc as usize]);
        (out_docs[n], out_scores[n]) = (doc, score);
        n += usize::from(score >= floor);
    }
    n
}

/// [`take`] for a whole span of the accumulator instead of a list of touched documents: the
/// touched documents (a score above 0) of `scores`, the accumulator's documents `base..` in
/// order, not below `floor` go to `out_docs` (as `base + i`) and `out_scores` in document order,
/// and the span is left all 0. Reads and writes the accumulator in order, without gathers or
/// scatters: cheaper than [`take`] once a good share of the span is touched. The outputs hold at
/// least `scores.len()` values.
#[inline]
pub(super) fn sweep(scores: &mut [f32], base: u32, floor: f32, out_docs: &mut [u32], out_scores: &mut [f32]) -> usize {
    #[allow(unused_mut)]
    let (mut done, mut n) = (0, 0);
    #[cfg(target_arch = "x86_64")]
    if scores.len() >= avx512::LANES && std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F; `avx512::sweep` checks every bound it relies on.
        (done, n) = unsafe { avx512::sweep(scores, base, floor, out_docs, out_scores) };
    }
    for (i, slot) in scores.iter_mut().enumerate().skip(done) {
        let score = std::mem::take(slot);
        (out_docs[n], out_scores[n]) = (base + i as u32, score);
        n += usize::from(score > 0.0 && score >= floor);
    }
    n
}

/// How many groups [`group_maxima`] takes maxima of for a floor under the `kth` best score:
/// sixteen (a vector's lanes) times a power of two, at least twice `kth` where `kth` is at most
/// 64 (more groups than k leave fewer documents between the floor and the k-th score: with
/// twice k, a few more than k are above it, in a span of a few thousand documents).
pub(super) fn floor_groups(kth: usize) -> usize {
    GROUP_LANES * (2 * kth).div_ceil(GROUP_LANES).next_power_of_two().min(MOST_GROUP_VECTORS)
}

const GROUP_LANES: usize = 16;
/// At most this many vectors of group maxima (128 groups).
const MOST_GROUP_VECTORS: usize = 8;

/// Raises `maxima[g]` to the largest score's bits in group g of `scores`, a span of the
/// accumulator (scores are never negative, so their bits order as they do), for as many groups
/// as `maxima` holds ([`floor_groups`]: sixteen times a power of two; `maxima` of another
/// length is left as it is). Document i of the span is in group
/// `((i / 16) % (groups / 16)) · 16 + i % 16`: sixteen consecutive documents are one vector's
/// lanes, and the vectors take turns, so every group's maximum is a vector maximum, with no
/// maximum across lanes. The groups are disjoint and each maximum is the score
/// of a document of its group, so `kth` different documents score at least the `kth` largest
/// maximum; spans read one after another into the same `maxima` keep that true (every
/// document still in one group). A sweep ([`sweep`]) given it as its floor then offers a few
/// documents more than k instead of every touched one of its first chunks.
pub(super) fn group_maxima(scores: &[f32], maxima: &mut [u32]) {
    #[allow(unused_mut)]
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F; `avx512::group_maxima` checks every bound it relies on.
        done = unsafe { avx512::group_maxima(scores, maxima) };
    }
    scalar_group_maxima(scores, done, maxima);
}

/// [`group_maxima`] without vector instructions, from document `from` of the span on.
fn scalar_group_maxima(scores: &[f32], from: usize, maxima: &mut [u32]) {
    let vectors = maxima.len() / GROUP_LANES;
    if !vectors.is_power_of_two() {
        return;
    }
    for (i, score) in scores.iter().enumerate().skip(from) {
        // `vectors` is a power of two: a mask, not a division.
        let group = ((i / GROUP_LANES) & (vectors - 1)) * GROUP_LANES + i % GROUP_LANES;
        maxima[group] = maxima[group].max(score.to_bits());
    }
}

/// One posting at a time.
#[inline]
#[allow(clippy::too_many_arguments)]
fn scalar(docs: &[u32], freqs: &[u32], weight: f32, norm_ids: &[u8], norm_inverse: &[f32; 256], scores: &mut [f32], list: &mut [u32], listed: &mut usize) {
    let mut n = *listed;
    for (&doc, &tf) in docs.iter().zip(freqs) {
        let d = doc as usize;
        let before = scores[d];
        scores[d] = before + contribution(weight, tf, norm_inverse[norm_ids[d] as usize]);
        list[n] = doc;
        n += usize::from(before == 0.0);
    }
    *listed = n;
}

/// [`add_values`] one posting at a time.
#[inline]
fn scalar_values(docs: &[u32], values: &[f32], scores: &mut [f32], list: &mut [u32], listed: &mut usize) {
    let mut n = *listed;
    for (&doc, &value) in docs.iter().zip(values) {
        let d = doc as usize;
        let before = scores[d];
        scores[d] = before + value;
        list[n] = doc;
        n += usize::from(before == 0.0);
    }
    *listed = n;
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// Postings per step.
    pub const LANES: usize = 16;

    /// The postings of `docs` in steps of [`LANES`], while a whole step fits; returns how many
    /// were added (the caller adds the rest one by one).
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn add(docs: &[u32], freqs: &[u32], weight: f32, norm_ids: &[u8], norm_inverse: &[f32; 256], scores: &mut [f32], list: &mut [u32], listed: &mut usize) -> usize {
        let (w, one, tiny) = (_mm512_set1_ps(weight), _mm512_set1_ps(1.0), _mm512_set1_ps(f32::from_bits(1)));
        let low_byte = _mm512_set1_epi32(0xFF);
        // The length codes are gathered four bytes at a time (the low one kept), so three bytes
        // past a step's last code must exist too: the steps end before one holding any of the
        // segment's last three documents.
        let mut whole = docs.len().min(freqs.len()) / LANES * LANES;
        while whole > 0 && docs[whole - 1] as usize + 3 >= norm_ids.len() {
            whole -= LANES;
        }
        let contributions = |i: usize, d: __m512i| {
            // SAFETY: lanes i..i + LANES of freqs exist (i + LANES <= whole); every document is
            // three bytes short of the end of norm_ids (checked above); a code is below 256,
            // inside norm_inverse.
            let tf = _mm512_cvtepu32_ps(unsafe { _mm512_loadu_si512(freqs.as_ptr().add(i).cast()) });
            let codes = _mm512_and_si512(unsafe { _mm512_i32gather_epi32::<1>(d, norm_ids.as_ptr().cast()) }, low_byte);
            let inverse = unsafe { _mm512_i32gather_ps::<4>(codes, norm_inverse.as_ptr()) };
            // contribution(): (weight − weight / (1 + tf · inverse)).max(smallest positive f32).
            _mm512_max_ps(_mm512_sub_ps(w, _mm512_div_ps(w, _mm512_add_ps(one, _mm512_mul_ps(tf, inverse)))), tiny)
        };
        // SAFETY: whole is a multiple of LANES within docs and freqs; `contributions` reads
        // inside them for i + LANES <= whole.
        let (i, n) = unsafe { add_steps(docs, whole, contributions, scores, list, *listed) };
        *listed = n;
        i
    }

    /// Adds the steps of `docs[..whole]` (a multiple of [`LANES`], documents strictly
    /// increasing), step i's contributions being `contributions(i, documents)`, while the touched
    /// list has room for a step; returns how many postings were added and the touched count
    /// after them (from `n`). The next step's scores are gathered before this one's are
    /// scattered: the documents are distinct, so none of them is written by this step, and the
    /// gather need not wait for the scatter (2026-12-04, SciFact's claims ×20 in process, k = 10:
    /// 30.6 to 28.8 ms). No step is taken unless the last document (the largest) is inside
    /// scores and below 2³¹.
    ///
    /// # Safety
    /// The CPU must have AVX-512F; `whole <= docs.len()`, and `contributions(i, ..)` may be called
    /// for any step i with `i + LANES <= whole`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn add_steps(docs: &[u32], whole: usize, contributions: impl Fn(usize, __m512i) -> __m512, scores: &mut [f32], list: &mut [u32], mut n: usize) -> (usize, usize) {
        let last = if whole == 0 { return (0, n) } else { docs[whole - 1] as usize };
        if last > i32::MAX as usize || last >= scores.len() {
            return (0, n);
        }
        let at = scores.as_mut_ptr();
        // SAFETY: lanes i..i + LANES of docs exist (i + LANES <= whole, the caller's bound);
        // every document is at most `last`, inside scores; the caller's bound for contributions.
        let step = |i: usize| unsafe {
            let d = _mm512_loadu_si512(docs.as_ptr().add(i).cast());
            (d, contributions(i, d), _mm512_i32gather_ps::<4>(d, at.cast_const()))
        };
        let (mut i, (mut d, mut c, mut before)) = (0, step(0));
        while i + LANES <= whole && n + LANES <= list.len() {
            let next = if i + 2 * LANES <= whole { step(i + LANES) } else { (d, c, before) };
            // SAFETY: these lanes' documents are inside scores; the store writes LANES values
            // from list[n], inside list (loop condition).
            unsafe { _mm512_i32scatter_ps::<4>(at, d, _mm512_add_ps(before, c)) };
            let first = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(before, _mm512_setzero_ps());
            unsafe { _mm512_storeu_si512(list.as_mut_ptr().add(n).cast(), _mm512_maskz_compress_epi32(first, d)) };
            n += first.count_ones() as usize;
            (d, c, before) = next;
            i += LANES;
        }
        (i, n)
    }

    /// [`super::add_values`] in steps of [`LANES`], the last one masked; returns how many were
    /// added (the caller adds the rest one by one, where a bound stopped the steps).
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn add_values(docs: &[u32], values: &[f32], scores: &mut [f32], list: &mut [u32], listed: &mut usize) -> usize {
        let len = docs.len().min(values.len());
        let whole = len / LANES * LANES;
        // SAFETY: lanes i..i + LANES of values exist for i + LANES <= whole.
        let contributions = |i: usize, _| unsafe { _mm512_loadu_ps(values.as_ptr().add(i)) };
        // SAFETY: whole is a multiple of LANES within docs and values.
        let (mut i, mut n) = unsafe { add_steps(docs, whole, contributions, scores, list, *listed) };
        // The last few postings (a term's tail, or a rare term's all) in one masked step.
        let rest = len - i;
        if i == whole && rest > 0 && rest < LANES {
            let last = docs[i + rest - 1] as usize;
            if last <= i32::MAX as usize && last < scores.len() && n + LANES <= list.len() {
                let mask: __mmask16 = (1 << rest) - 1;
                // SAFETY: the masked loads read lanes i..i + rest of docs and values, which
                // exist; those lanes' documents are at most `last`, inside scores.
                let d = unsafe { _mm512_maskz_loadu_epi32(mask, docs.as_ptr().add(i).cast()) };
                let c = unsafe { _mm512_maskz_loadu_ps(mask, values.as_ptr().add(i)) };
                n = unsafe { add_step(mask, d, c, scores, list, n) };
                i += rest;
            }
        }
        *listed = n;
        i
    }

    /// [`super::add_row`] in steps of [`LANES`] while a whole step fits; returns how many
    /// scores were added to.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn add_row(row: &[f32], scores: &mut [f32]) -> usize {
        let len = row.len().min(scores.len());
        let mut i = 0;
        while i + LANES <= len {
            // SAFETY: lanes i..i + LANES of row and scores exist (loop condition).
            unsafe {
                let sum = _mm512_add_ps(_mm512_loadu_ps(scores.as_ptr().add(i)), _mm512_loadu_ps(row.as_ptr().add(i)));
                _mm512_storeu_ps(scores.as_mut_ptr().add(i), sum);
            }
            i += LANES;
        }
        i
    }

    /// [`super::group_maxima`] with 512-bit vector maxima, for 16, 32, 64 or 128 groups;
    /// returns how many scores were read (the caller reads the rest).
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn group_maxima(scores: &[f32], maxima: &mut [u32]) -> usize {
        // SAFETY (each): the CPU has AVX-512F.
        match maxima.len() / LANES {
            1 => unsafe { group_maxima_of::<1>(scores, maxima) },
            2 => unsafe { group_maxima_of::<2>(scores, maxima) },
            4 => unsafe { group_maxima_of::<4>(scores, maxima) },
            8 => unsafe { group_maxima_of::<8>(scores, maxima) },
            _ => 0,
        }
    }

    /// [`group_maxima`] for `V` vectors of groups, in registers: whole stretches of `V` steps.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    unsafe fn group_maxima_of<const V: usize>(scores: &[f32], maxima: &mut [u32]) -> usize {
        if maxima.len() != V * LANES {
            return 0;
        }
        // SAFETY: maxima holds V · LANES values (checked above).
        let mut vectors: [__m512i; V] = std::array::from_fn(|v| unsafe { _mm512_loadu_si512(maxima.as_ptr().add(v * LANES).cast()) });
        let mut i = 0;
        while i + V * LANES <= scores.len() {
            for (v, vector) in vectors.iter_mut().enumerate() {
                // SAFETY: lanes i + v · LANES.. of the stretch exist (loop condition).
                *vector = _mm512_max_epu32(*vector, unsafe { _mm512_loadu_si512(scores.as_ptr().add(i + v * LANES).cast()) });
            }
            i += V * LANES;
        }
        for (v, vector) in vectors.iter().enumerate() {
            // SAFETY: as the loads.
            unsafe { _mm512_storeu_si512(maxima.as_mut_ptr().add(v * LANES).cast(), *vector) };
        }
        i
    }

    /// Adds `c` to the scores of the distinct documents `d` in the lanes of `mask` and writes
    /// those touched first (a score that was 0) to `list` from `n`, returning the count after
    /// them: a masked step, a term's last few postings (whole steps go through [`add_steps`]).
    ///
    /// # Safety
    /// The CPU must have AVX-512F; every document of a lane in `mask` is inside `scores` and
    /// below 2³¹, and `n + LANES <= list.len()`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    unsafe fn add_step(mask: __mmask16, d: __m512i, c: __m512, scores: &mut [f32], list: &mut [u32], n: usize) -> usize {
        // SAFETY: the caller's bounds; lanes outside `mask` are neither read nor written.
        let before = unsafe { _mm512_mask_i32gather_ps::<4>(_mm512_setzero_ps(), mask, d, scores.as_ptr()) };
        unsafe { _mm512_mask_i32scatter_ps::<4>(scores.as_mut_ptr(), mask, d, _mm512_add_ps(before, c)) };
        let first = _mm512_mask_cmp_ps_mask::<_CMP_EQ_OQ>(mask, before, _mm512_setzero_ps());
        unsafe { _mm512_storeu_si512(list.as_mut_ptr().add(n).cast(), _mm512_maskz_compress_epi32(first, d)) };
        n + first.count_ones() as usize
    }

    /// [`super::take`] in steps of [`LANES`] while a whole step fits; returns how many documents
    /// were taken and how many of them were written out.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn take(docs: &[u32], scores: &mut [f32], floor: f32, out_docs: &mut [u32], out_scores: &mut [f32]) -> (usize, usize) {
        let (floor, zero) = (_mm512_set1_ps(floor), _mm512_setzero_ps());
        let (mut i, mut n) = (0, 0);
        while i + LANES <= docs.len() && n + LANES <= out_docs.len().min(out_scores.len()) {
            // SAFETY: lanes i..i + LANES of docs exist (loop condition).
            let d = unsafe { _mm512_loadu_si512(docs.as_ptr().add(i).cast()) };
            // The touched list is not sorted: its largest document bounds the step.
            let last = _mm512_reduce_max_epu32(d) as usize;
            if last > i32::MAX as usize || last >= scores.len() {
                break;
            }
            // SAFETY: every document is at most `last`, inside scores; the stores write LANES
            // values from n, inside both outputs (loop condition).
            let s = unsafe { _mm512_i32gather_ps::<4>(d, scores.as_ptr()) };
            unsafe { _mm512_i32scatter_ps::<4>(scores.as_mut_ptr(), d, zero) };
            let kept = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(s, floor);
            unsafe { _mm512_storeu_si512(out_docs.as_mut_ptr().add(n).cast(), _mm512_maskz_compress_epi32(kept, d)) };
            unsafe { _mm512_storeu_ps(out_scores.as_mut_ptr().add(n).cast(), _mm512_maskz_compress_ps(kept, s)) };
            n += kept.count_ones() as usize;
            i += LANES;
        }
        (i, n)
    }

    /// [`super::sweep`] in steps of [`LANES`] while a whole step fits; returns how many documents
    /// were swept and how many of them were written out.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn sweep(scores: &mut [f32], base: u32, floor: f32, out_docs: &mut [u32], out_scores: &mut [f32]) -> (usize, usize) {
        let (floor, zero) = (_mm512_set1_ps(floor), _mm512_setzero_ps());
        let steps = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let (mut i, mut n) = (0, 0);
        while i + LANES <= scores.len() && n + LANES <= out_docs.len().min(out_scores.len()) {
            // SAFETY: lanes i..i + LANES of scores exist (loop condition).
            let s = unsafe { _mm512_loadu_ps(scores.as_ptr().add(i)) };
            let kept = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(s, floor) & _mm512_cmp_ps_mask::<_CMP_GT_OQ>(s, zero);
            if kept != 0 {
                let d = _mm512_add_epi32(_mm512_set1_epi32(base.wrapping_add(i as u32) as i32), steps);
                // SAFETY: the stores write LANES values from n, inside both outputs (loop condition).
                unsafe { _mm512_storeu_si512(out_docs.as_mut_ptr().add(n).cast(), _mm512_maskz_compress_epi32(kept, d)) };
                unsafe { _mm512_storeu_ps(out_scores.as_mut_ptr().add(n), _mm512_maskz_compress_ps(kept, s)) };
                n += kept.count_ones() as usize;
            }
            // SAFETY: as the load.
            unsafe { _mm512_storeu_ps(scores.as_mut_ptr().add(i), zero) };
            i += LANES;
        }
        (i, n)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// An accumulator of `max_doc` documents where those of `touched` were touched by an
    /// earlier term: scores, touched list and count.
    fn touched_accumulator(max_doc: usize, touched: &[u16]) -> (Vec<f32>, Vec<u32>, usize) {
        let (mut scores, mut list, mut listed) = (vec![0f32; max_doc], vec![0u32; max_doc + 1], 0);
        for &t in touched {
            let d = usize::from(t) % max_doc;
            if scores[d] == 0.0 {
                scores[d] = 0.5 + d as f32;
                list[listed] = d as u32;
                listed += 1;
            }
        }
        (scores, list, listed)
    }

    proptest! {
        /// Whatever path the CPU takes gives the one-at-a-time path's scores, touched list and
        /// count, bit for bit: blocks of any length, weights, frequencies and length codes, over
        /// scores some of which are already touched, and documents up to the accumulator's end.
        #[test]
        fn the_vector_path_equals_one_posting_at_a_time(
            max_doc in 1usize..400,
            picks in proptest::collection::vec(any::<u16>(), 0..200),
            freqs in proptest::collection::vec(prop_oneof![1u32..4, 1u32..300, Just(u32::MAX)], 200),
            codes in proptest::collection::vec(any::<u8>(), 400),
            touched in proptest::collection::vec(any::<u16>(), 0..50),
            weight in prop_oneof![0.001f32..20.0, Just(1e-30f32)],
            inverse_scale in prop_oneof![0.001f32..10.0, Just(f32::INFINITY), Just(1e-12f32)],
        ) {
            let mut docs: Vec<u32> = picks.iter().map(|&p| u32::from(p) % max_doc as u32).collect();
            docs.sort_unstable();
            docs.dedup();
            let freqs = &freqs[..docs.len()];
            let norm_ids = &codes[..max_doc];
            let mut norm_inverse = [0f32; 256];
            for (code, slot) in norm_inverse.iter_mut().enumerate() {
                *slot = inverse_scale / (1.0 + code as f32);
            }
            let (mut scores, mut list, mut listed) = touched_accumulator(max_doc, &touched);
            let (mut want_scores, mut want_list, mut want_listed) = (scores.clone(), list.clone(), listed);
            scalar(&docs, freqs, weight, norm_ids, &norm_inverse, &mut want_scores, &mut want_list, &mut want_listed);
            add(&docs, freqs, weight, norm_ids, &norm_inverse, &mut scores, &mut list, &mut listed);
            prop_assert_eq!(listed, want_listed);
            prop_assert_eq!(&list[..listed], &want_list[..want_listed]);
            let bits = |s: &[f32]| s.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&scores), bits(&want_scores));
        }
    }

    proptest! {
        /// Adding precomputed contributions: the vector path gives the scalar path's scores,
        /// touched list and count, bit for bit, over scores some of which are already touched.
        #[test]
        fn adding_values_equals_one_posting_at_a_time(
            max_doc in 1usize..400,
            picks in proptest::collection::vec(any::<u16>(), 0..200),
            values in proptest::collection::vec(prop_oneof![0.001f32..20.0, Just(f32::from_bits(1))], 200),
            touched in proptest::collection::vec(any::<u16>(), 0..50),
        ) {
            let mut docs: Vec<u32> = picks.iter().map(|&p| u32::from(p) % max_doc as u32).collect();
            docs.sort_unstable();
            docs.dedup();
            let values = &values[..docs.len()];
            let (mut scores, mut list, mut listed) = touched_accumulator(max_doc, &touched);
            let (mut want_scores, mut want_list, mut want_listed) = (scores.clone(), list.clone(), listed);
            scalar_values(&docs, values, &mut want_scores, &mut want_list, &mut want_listed);
            add_values(&docs, values, &mut scores, &mut list, &mut listed);
            prop_assert_eq!(listed, want_listed);
            prop_assert_eq!(&list[..listed], &want_list[..want_listed]);
            let bits = |s: &[f32]| s.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&scores), bits(&want_scores));
        }
    }

    proptest! {
        /// Adding a dense row: the vector path gives the scalar sum's bits, over any length and
        /// rows with zeros (documents without the term), which leave a score's bits alone.
        #[test]
        fn adding_a_row_equals_one_score_at_a_time(
            scores in proptest::collection::vec(prop_oneof![0.0f32..20.0, Just(0.0f32)], 0..300),
            row in proptest::collection::vec(prop_oneof![0.001f32..20.0, Just(0.0f32), Just(f32::from_bits(1))], 300),
        ) {
            let row = &row[..scores.len()];
            let want: Vec<u32> = scores.iter().zip(row).map(|(s, r)| (s + r).to_bits()).collect();
            let mut got = scores.clone();
            add_row(row, &mut got);
            prop_assert_eq!(got.iter().map(|s| s.to_bits()).collect::<Vec<_>>(), want);
            prop_assert!(scores.iter().zip(row).all(|(s, r)| *r != 0.0 || (s + r).to_bits() == s.to_bits()));
        }
    }

    proptest! {
        /// The group maxima: each group's largest score by the grouping's definition, over one
        /// span or two, on the vector path and without it; and at least `kth` scores are not
        /// below the `kth` largest maximum, where that is above 0 (0: fewer groups touched, no
        /// floor).
        #[test]
        fn group_maxima_are_each_groups_largest_score(
            scores in proptest::collection::vec(prop_oneof![0.0f32..20.0, Just(0.0f32), Just(f32::from_bits(1))], 0..1200),
            kth in 1usize..70,
            split in any::<u16>(),
        ) {
            let split = usize::from(split) % (scores.len() + 1);
            let spans = [&scores[..split], &scores[split..]];
            let groups = floor_groups(kth);
            prop_assert!(groups >= 2 * kth.min(64) && groups.is_multiple_of(GROUP_LANES));
            let mut want = vec![0u32; groups];
            for span in spans {
                for (i, score) in span.iter().enumerate() {
                    let group = (i / GROUP_LANES) % (groups / GROUP_LANES) * GROUP_LANES + i % GROUP_LANES;
                    want[group] = want[group].max(score.to_bits());
                }
            }
            let (mut vector, mut scalar) = (vec![0u32; groups], vec![0u32; groups]);
            for span in spans {
                group_maxima(span, &mut vector);
                scalar_group_maxima(span, 0, &mut scalar);
            }
            prop_assert_eq!(&vector, &want);
            prop_assert_eq!(&scalar, &want);
            if kth <= groups {
                let mut sorted = want.clone();
                sorted.sort_unstable_by(|a, b| b.cmp(a));
                let floor = sorted[kth - 1];
                prop_assert!(floor == 0 || scores.iter().filter(|s| s.to_bits() >= floor).count() >= kth);
            }
        }
    }

    proptest! {
        /// Taking candidates out of the accumulator: the same documents and scores, in the same
        /// order, as one at a time, and the accumulator left all 0 where the documents were.
        #[test]
        fn taking_candidates_equals_one_at_a_time(
            max_doc in 1usize..400,
            picks in proptest::collection::vec(any::<u16>(), 0..300),
            values in proptest::collection::vec(prop_oneof![0.0f32..10.0, Just(0.0f32), Just(f32::NAN)], 400),
            floor in prop_oneof![Just(f32::NEG_INFINITY), 0.0f32..10.0],
        ) {
            let mut seen = std::collections::HashSet::new();
            let docs: Vec<u32> = picks.iter().map(|&p| u32::from(p) % max_doc as u32).filter(|d| seen.insert(*d)).collect();
            let scores: Vec<f32> = values[..max_doc].to_vec();
            let (mut want_scores, mut want_docs, mut want_values) = (scores.clone(), vec![0u32; docs.len()], vec![0f32; docs.len()]);
            let mut want = 0;
            for &doc in &docs {
                let score = std::mem::take(&mut want_scores[doc as usize]);
                (want_docs[want], want_values[want]) = (doc, score);
                want += usize::from(score >= floor);
            }
            let (mut got_scores, mut got_docs, mut got_values) = (scores.clone(), vec![0u32; docs.len()], vec![0f32; docs.len()]);
            let got = take(&docs, &mut got_scores, floor, &mut got_docs, &mut got_values);
            prop_assert_eq!(got, want);
            prop_assert_eq!(&got_docs[..got], &want_docs[..want]);
            let bits = |s: &[f32]| s.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&got_values[..got]), bits(&want_values[..want]));
            prop_assert_eq!(bits(&got_scores), bits(&want_scores));
        }
    }

    proptest! {
        /// Sweeping a span of the accumulator: the touched documents not below the floor, in
        /// document order, numbered from the span's base, with their scores; the span left all 0.
        #[test]
        fn sweeping_equals_one_at_a_time(
            values in proptest::collection::vec(prop_oneof![0.0f32..10.0, Just(0.0f32), Just(0.0f32), Just(f32::NAN)], 0..400),
            base in 0u32..1_000_000,
            floor in prop_oneof![Just(f32::NEG_INFINITY), 0.0f32..10.0],
        ) {
            let (mut want_docs, mut want_values) = (Vec::new(), Vec::new());
            for (i, &score) in values.iter().enumerate() {
                if score > 0.0 && score >= floor {
                    want_docs.push(base + i as u32);
                    want_values.push(score);
                }
            }
            let mut scores = values.clone();
            let (mut docs, mut got_values) = (vec![0u32; values.len()], vec![0f32; values.len()]);
            let n = sweep(&mut scores, base, floor, &mut docs, &mut got_values);
            prop_assert_eq!(&docs[..n], &want_docs[..]);
            let bits = |s: &[f32]| s.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            prop_assert_eq!(bits(&got_values[..n]), bits(&want_values));
            prop_assert!(scores.iter().all(|&s| s.to_bits() == 0));
        }
    }

    /// The property tests above compare the vector paths with the scalar ones only where the CPU
    /// has AVX-512; say so where it does not, instead of passing silently.
    #[test]
    fn reports_which_path_the_property_test_covers() {
        #[cfg(target_arch = "x86_64")]
        if !std::arch::is_x86_feature_detected!("avx512f") {
            eprintln!("no AVX-512F on this CPU: the_vector_path_equals_one_posting_at_a_time compare the scalar paths with themselves");
        }
    }
}
