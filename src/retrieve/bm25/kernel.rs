//! The exhaustive scorer's innermost loops, where most of a search's time goes, one document
//! after another: [`add`] adds one block of a term's postings to the accumulator ([`add_values`]
//! their contributions computed before, [`add_row`] a dense row of them), [`take`] takes
//! the touched documents' scores back out for selection, and [`sweep`] does the same for a whole
//! span of the accumulator, in order, when much of it is touched, with a floor that
//! [`keep_group_maxima`] takes from the span first. On CPUs with AVX-512 all three
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

/// Documents per group of [`keep_group_maxima`]: a group is sixteen documents `LANES` apart in
/// a stretch of `GROUP_DOCS · LANES`, so that sixteen groups' maxima are taken side by side, one
/// vector maximum per sixteen documents and no maximum across lanes.
pub(super) const GROUP_DOCS: usize = 16;
const GROUP_LANES: usize = 16;

/// Keeps in `best` (at most `kth` values) the `kth` largest of the maxima of groups of
/// [`GROUP_DOCS`] documents of `scores`, a span of the accumulator (scores are never negative,
/// so their bits order as they do), adding to what `best` holds from earlier spans. Each maximum
/// is the score of a document of its group and the groups are disjoint, so once `best` holds
/// `kth` values, `kth` different documents score at least its least: no document below it can be
/// among the best `kth`. A sweep ([`sweep`]) given it as its floor then gathers a few documents
/// more than k instead of every touched one of its first chunks.
pub(super) fn keep_group_maxima(scores: &[f32], kth: usize, best: &mut Best) {
    #[allow(unused_mut)]
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F; `avx512::keep_group_maxima` checks every bound it relies on.
        done = unsafe { avx512::keep_group_maxima(scores, kth, best) };
    }
    scalar_keep_group_maxima(&scores[done..], kth, best);
}

/// [`keep_group_maxima`] without vector instructions (the same groups).
fn scalar_keep_group_maxima(scores: &[f32], kth: usize, best: &mut Best) {
    let stretches = scores.chunks_exact(GROUP_DOCS * GROUP_LANES);
    let rest = stretches.remainder();
    for stretch in stretches {
        let mut maxima = [0u32; GROUP_LANES];
        for step in stretch.chunks_exact(GROUP_LANES) {
            for (max, score) in maxima.iter_mut().zip(step) {
                *max = (*max).max(score.to_bits());
            }
        }
        keep_above(maxima, kth, best);
    }
    for group in rest.chunks(GROUP_DOCS) {
        keep_above([group.iter().fold(0, |max, score| max.max(score.to_bits()))], kth, best);
    }
}

/// The `kth` largest group maxima so far ([`keep_group_maxima`]): a min-heap of their bits.
pub(super) type Best = std::collections::BinaryHeap<std::cmp::Reverse<u32>>;

/// The least of `best` once it holds `kth` values (a maximum not above it is not kept), else 0.
#[inline]
fn kept_floor(kth: usize, best: &Best) -> u32 {
    match best.len() >= kth {
        true => best.peek().map_or(u32::MAX, |least| least.0),
        false => 0,
    }
}

/// Keeps those of `maxima` above [`kept_floor`] (0 never is: an untouched group) among the
/// `kth` largest in `best`.
#[inline]
fn keep_above<const N: usize>(maxima: [u32; N], kth: usize, best: &mut Best) {
    for max in maxima {
        if max > kept_floor(kth, best) {
            keep_max(max, kth, best);
        }
    }
}

/// Keeps `max` among the `kth` largest in `best`.
#[inline]
fn keep_max(max: u32, kth: usize, best: &mut Best) {
    if best.len() < kth {
        best.push(std::cmp::Reverse(max));
    } else if let Some(mut least) = best.peek_mut() {
        if max > least.0 {
            *least = std::cmp::Reverse(max);
        }
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
        let mut n = *listed;
        let mut i = 0;
        while i + LANES <= docs.len().min(freqs.len()) {
            // The step's largest document is its last. The length codes are gathered four bytes
            // at a time (the low one kept), so three bytes past the last code must exist too.
            let last = docs[i + LANES - 1] as usize;
            if last > i32::MAX as usize || last + 3 >= norm_ids.len() || last >= scores.len() || n + LANES > list.len() {
                break;
            }
            // SAFETY (every access below): lanes i..i + LANES of docs and freqs exist (loop
            // condition); every document is at most `last`, inside scores and three bytes short of
            // the end of norm_ids; a code is below 256, inside norm_inverse; the store writes
            // LANES values from list[n], inside list.
            let d = unsafe { _mm512_loadu_si512(docs.as_ptr().add(i).cast()) };
            let tf = _mm512_cvtepu32_ps(unsafe { _mm512_loadu_si512(freqs.as_ptr().add(i).cast()) });
            let codes = _mm512_and_si512(unsafe { _mm512_i32gather_epi32::<1>(d, norm_ids.as_ptr().cast()) }, low_byte);
            let inverse = unsafe { _mm512_i32gather_ps::<4>(codes, norm_inverse.as_ptr()) };
            // contribution(): (weight − weight / (1 + tf · inverse)).max(smallest positive f32).
            let c = _mm512_max_ps(_mm512_sub_ps(w, _mm512_div_ps(w, _mm512_add_ps(one, _mm512_mul_ps(tf, inverse)))), tiny);
            n = unsafe { add_step(ALL, d, c, scores, list, n) };
            i += LANES;
        }
        *listed = n;
        i
    }

    /// [`super::add_values`] in steps of [`LANES`], the last one masked; returns how many were
    /// added (the caller adds the rest one by one, where a bound stopped the steps).
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub unsafe fn add_values(docs: &[u32], values: &[f32], scores: &mut [f32], list: &mut [u32], listed: &mut usize) -> usize {
        let mut n = *listed;
        let mut i = 0;
        while i + LANES <= docs.len().min(values.len()) {
            // The step's largest document is its last.
            let last = docs[i + LANES - 1] as usize;
            if last > i32::MAX as usize || last >= scores.len() || n + LANES > list.len() {
                break;
            }
            // SAFETY (every access below): lanes i..i + LANES of docs and values exist (loop
            // condition); every document is at most `last`, inside scores; the store writes
            // LANES values from list[n], inside list.
            let d = unsafe { _mm512_loadu_si512(docs.as_ptr().add(i).cast()) };
            let c = unsafe { _mm512_loadu_ps(values.as_ptr().add(i)) };
            n = unsafe { add_step(ALL, d, c, scores, list, n) };
            i += LANES;
        }
        // The last few postings (a term's tail, or a rare term's all) in one masked step.
        let rest = docs.len().min(values.len()) - i;
        if rest > 0 && rest < LANES {
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

    /// [`super::keep_group_maxima`] with 512-bit vector maxima.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    /// Whole stretches of [`super::GROUP_DOCS`] steps: each step's lanes are the sixteen groups,
    /// and a stretch's maxima are kept only when one is above the least kept. Returns how many
    /// scores were read (the caller reads the rest).
    #[target_feature(enable = "avx512f")]
    pub unsafe fn keep_group_maxima(scores: &[f32], kth: usize, best: &mut super::Best) -> usize {
        const STRETCH: usize = super::GROUP_DOCS * LANES;
        let mut i = 0;
        while i + STRETCH <= scores.len() {
            let mut maxima = _mm512_setzero_si512();
            for step in 0..super::GROUP_DOCS {
                // SAFETY: lanes i + step · LANES.. of the stretch exist (loop condition).
                maxima = _mm512_max_epu32(maxima, unsafe { _mm512_loadu_si512(scores.as_ptr().add(i + step * LANES).cast()) });
            }
            let floor = _mm512_set1_epi32(super::kept_floor(kth, best) as i32);
            let mut above = _mm512_cmpgt_epu32_mask(maxima, floor);
            if above != 0 {
                let mut lanes = [0u32; LANES];
                // SAFETY: `lanes` holds LANES values.
                unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), maxima) };
                // Only the lanes above the least kept (all of them while fewer are kept).
                while above != 0 {
                    super::keep_max(lanes[above.trailing_zeros() as usize], kth, best);
                    above &= above - 1;
                }
            }
            i += STRETCH;
        }
        i
    }

    /// Every lane of a step.
    const ALL: __mmask16 = 0xFFFF;

    /// Adds `c` to the scores of the distinct documents `d` in the lanes of `mask` and writes
    /// those touched first (a score that was 0) to `list` from `n`, returning the count after
    /// them. A full step passes [`ALL`]: the gather and scatter take a mask register either way.
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
        /// The floor from group maxima: once `kth` are kept, at least `kth` scores are not below
        /// it, and it is the `kth` largest of the groups' maxima (sixteen documents sixteen apart
        /// in each whole stretch of 256, then sixteen in a row), over one span or two, on the
        /// vector path and without it.
        #[test]
        fn the_group_floor_is_the_kth_largest_group_maximum(
            scores in proptest::collection::vec(prop_oneof![0.0f32..20.0, Just(0.0f32), Just(f32::from_bits(1))], 0..1200),
            kth in 1usize..70,
            split in any::<u16>(),
        ) {
            let split = usize::from(split) % (scores.len() + 1);
            let spans = [&scores[..split], &scores[split..]];
            let mut maxima: Vec<u32> = Vec::new();
            for span in spans {
                let stretches = span.chunks_exact(GROUP_DOCS * GROUP_LANES);
                let rest = stretches.remainder();
                for stretch in stretches {
                    maxima.extend((0..GROUP_LANES).map(|lane| (0..GROUP_DOCS).map(|step| stretch[step * GROUP_LANES + lane].to_bits()).max().unwrap()));
                }
                maxima.extend(rest.chunks(GROUP_DOCS).map(|group| group.iter().map(|s| s.to_bits()).max().unwrap()));
            }
            maxima.retain(|&max| max > 0);
            maxima.sort_unstable_by(|a, b| b.cmp(a));
            let want = (maxima.len() >= kth).then(|| maxima[kth - 1]);
            let (mut vector, mut scalar) = (Best::new(), Best::new());
            for span in spans {
                keep_group_maxima(span, kth, &mut vector);
                scalar_keep_group_maxima(span, kth, &mut scalar);
            }
            for best in [vector, scalar] {
                let got = (best.len() == kth).then(|| best.peek().unwrap().0);
                prop_assert_eq!(got, want);
                if let Some(floor) = got {
                    prop_assert!(scores.iter().filter(|s| s.to_bits() >= floor).count() >= kth);
                }
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
