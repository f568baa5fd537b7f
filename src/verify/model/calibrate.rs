//! Confidence that means what it says: temperature scaling, expected calibration error, the
//! reliability diagram's bins and the risk–coverage curve.
//!
//! - **Temperature** T divides a verifier's logits before the softmax: p'ᵢ ∝ exp(ln pᵢ / T)
//!   (equal to softmax(z / T) for logits z). T is fitted by minimising the negative
//!   log-likelihood of the gold labels over out-of-fold probabilities (golden-section search on
//!   ln T in [ln 0.05, ln 20]), so it never sees the claims it is applied to. T > 1 softens an
//!   overconfident model; the verdict (the argmax) never changes.
//! - **Expected calibration error** (ECE): the verdicts' confidences in [`BINS`] equal-width bins
//!   over [0, 1], binned as scikit-learn's `calibration_curve(strategy="uniform")` does (bin b
//!   holds (b/15, (b+1)/15], the first also 0, the edges k · (1/15) as `np.linspace` computes
//!   them); ECE = Σ_b (n_b / n) · |accuracy_b − mean confidence_b| (Guo et al., 2017, 15 bins).
//! - **Risk–coverage**: the verdicts ordered by confidence, highest first (ties by position); at
//!   coverage c the first ⌈c · n⌉ are kept and scored ([`score`]), the rest withheld.

use crate::verify::{score, Label, Prediction, VerifyScores};

/// Bins of [`ece`] and of the reliability diagram.
pub const BINS: usize = 15;

/// A temperature (module doc).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Temperature(pub f64);

impl Temperature {
    /// `p` scaled by the temperature and renormalised.
    pub fn apply(self, p: &[f64; 3]) -> [f64; 3] {
        let z = p.map(|x| x.max(1e-300).ln() / self.0);
        let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e = z.map(|x| (x - m).exp());
        let s: f64 = e.iter().sum();
        e.map(|x| x / s)
    }

    /// The temperature minimising the negative log-likelihood of `gold` (indices into each `p`).
    pub fn fit(probabilities: &[[f64; 3]], gold: &[usize]) -> Temperature {
        let nll = |log_t: f64| -> f64 {
            let t = Temperature(log_t.exp());
            probabilities.iter().zip(gold).map(|(p, &g)| -t.apply(p)[g].max(1e-300).ln()).sum()
        };
        let (mut a, mut b) = (0.05f64.ln(), 20f64.ln());
        let ratio = (5f64.sqrt() - 1.0) / 2.0;
        let (mut c, mut d) = (b - ratio * (b - a), a + ratio * (b - a));
        let (mut fc, mut fd) = (nll(c), nll(d));
        for _ in 0..80 {
            if fc <= fd {
                (b, d, fd) = (d, c, fc);
                c = b - ratio * (b - a);
                fc = nll(c);
            } else {
                (a, c, fc) = (c, d, fd);
                d = a + ratio * (b - a);
                fd = nll(d);
            }
        }
        Temperature(((a + b) / 2.0).exp())
    }
}

/// One bin of the reliability diagram.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Bin {
    /// Its lower edge.
    pub low: f64,
    /// Its upper edge.
    pub high: f64,
    /// Verdicts in it.
    pub count: usize,
    /// Their mean confidence (0 when empty).
    pub confidence: f64,
    /// Their accuracy (0 when empty).
    pub accuracy: f64,
}

/// The reliability diagram's bins of `(confidence, correct)` pairs (module doc).
pub fn reliability(items: &[(f64, bool)]) -> Vec<Bin> {
    let mut bins: Vec<Bin> = (0..BINS).map(|b| Bin { low: b as f64 / BINS as f64, high: (b + 1) as f64 / BINS as f64, count: 0, confidence: 0.0, accuracy: 0.0 }).collect();
    for &(confidence, correct) in items {
        let b = (1..BINS).filter(|&k| k as f64 * (1.0 / BINS as f64) < confidence).count();
        bins[b].count += 1;
        bins[b].confidence += confidence;
        bins[b].accuracy += f64::from(u8::from(correct));
    }
    for bin in bins.iter_mut().filter(|b| b.count > 0) {
        bin.confidence /= bin.count as f64;
        bin.accuracy /= bin.count as f64;
    }
    bins
}

/// Expected calibration error of `(confidence, correct)` pairs (module doc).
pub fn ece(items: &[(f64, bool)]) -> f64 {
    let n = items.len().max(1) as f64;
    reliability(items).iter().map(|b| b.count as f64 / n * (b.accuracy - b.confidence).abs()).sum()
}

/// One point of the risk–coverage curve.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CoveragePoint {
    /// The coverage asked for.
    pub target: f64,
    /// Share of claims given a verdict (⌈target · n⌉ / n).
    pub coverage: f64,
    /// Claims given one.
    pub kept: usize,
    /// The least confidence kept.
    pub threshold: f64,
    /// The kept verdicts' scores.
    pub scores: VerifyScores,
}

/// The risk–coverage curve of `(gold, verdict, confidence)` at each of `coverages` (module doc).
pub fn risk_coverage(items: &[(Label, Label, f64)], coverages: &[f64]) -> Vec<CoveragePoint> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| items[b].2.total_cmp(&items[a].2).then(a.cmp(&b)));
    coverages
        .iter()
        .filter_map(|&coverage| {
            let kept = ((coverage * items.len() as f64).ceil() as usize).min(items.len());
            (kept > 0).then(|| {
                let pairs: Vec<(Label, Label)> = order[..kept].iter().map(|&i| (items[i].0, items[i].1)).collect();
                CoveragePoint { target: coverage, coverage: kept as f64 / items.len() as f64, kept, threshold: items[order[kept - 1]].2, scores: score(&pairs) }
            })
        })
        .collect()
}

/// The coverages the risk–coverage curve is reported at.
pub const COVERAGES: [f64; 10] = [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1];

/// How a verifier's confidence and abstentions hold up against gold labels.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SelectiveReport {
    /// The verdicts at full coverage (withheld verdicts given), scored.
    pub verdicts: VerifyScores,
    /// Share of claims not withheld.
    pub coverage: f64,
    /// Claims withheld (Not Enough Info by abstention).
    pub withheld: usize,
    /// The verdicts not withheld, scored (none when all were).
    pub answered: Option<VerifyScores>,
    /// Expected calibration error of the verdicts' confidences (module doc).
    pub ece: f64,
    /// The reliability diagram's bins.
    pub reliability: Vec<Bin>,
    /// The risk–coverage curve at [`COVERAGES`].
    pub curve: Vec<CoveragePoint>,
}

/// The report for `(gold, prediction)` pairs (failed runs left out by the caller).
pub fn selective(items: &[(Label, &Prediction)]) -> SelectiveReport {
    let verdicts: Vec<(Label, Label, f64)> = items.iter().map(|(g, p)| (*g, p.full_verdict(), p.confidence)).collect();
    let answered: Vec<(Label, Label)> = items.iter().filter(|(_, p)| p.abstained.is_none()).map(|(g, p)| (*g, p.label)).collect();
    let calibration: Vec<(f64, bool)> = verdicts.iter().map(|&(g, v, c)| (c, g == v)).collect();
    SelectiveReport {
        verdicts: score(&verdicts.iter().map(|&(g, v, _)| (g, v)).collect::<Vec<_>>()),
        coverage: answered.len() as f64 / items.len().max(1) as f64,
        withheld: items.len() - answered.len(),
        answered: (!answered.is_empty()).then(|| score(&answered)),
        ece: ece(&calibration),
        reliability: reliability(&calibration),
        curve: risk_coverage(&verdicts, &COVERAGES),
    }
}

/// Words for a confidence, as the page shows it: low below 0.5, moderate below 0.75, high from
/// 0.75 (of a calibrated verifier: right about that often).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ConfidenceLevel {
    /// Below 0.5.
    Low,
    /// 0.5 to 0.75.
    Moderate,
    /// 0.75 and above.
    High,
}

impl ConfidenceLevel {
    /// The level of `confidence`.
    pub fn of(confidence: f64) -> ConfidenceLevel {
        if confidence < 0.5 {
            ConfidenceLevel::Low
        } else if confidence < 0.75 {
            ConfidenceLevel::Moderate
        } else {
            ConfidenceLevel::High
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temperature_softens_an_overconfident_model() {
        // Always 0.9 sure, right 60% of the time: the fitted temperature brings 0.9 down to 0.6.
        let probabilities: Vec<[f64; 3]> = (0..100).map(|_| [0.9, 0.05, 0.05]).collect();
        let gold: Vec<usize> = (0..100).map(|i| if i < 60 { 0 } else { 1 + i % 2 }).collect();
        let t = Temperature::fit(&probabilities, &gold);
        assert!(t.0 > 1.0);
        assert!((t.apply(&probabilities[0])[0] - 0.6).abs() < 1e-3, "{:?}", t.apply(&probabilities[0]));
        assert_eq!(Temperature(1.0).apply(&[0.5, 0.3, 0.2]).map(|x| (x * 1e9).round()), [0.5e9, 0.3e9, 0.2e9]);
    }

    #[test]
    fn ece_by_hand() {
        // Bin of 0.9 (14th of 15): 2 items, 1 right: |0.5 − 0.9| · 2/4; bin of 0.3: 2 items, both
        // wrong: |0 − 0.3| · 2/4. An edge value goes to the bin below it, 0 to the first.
        let items = [(0.9, true), (0.9, false), (0.3, false), (0.3, false)];
        assert!((ece(&items) - (0.4 * 0.5 + 0.3 * 0.5)).abs() < 1e-12);
        assert_eq!(reliability(&[(1.0, true)])[BINS - 1].count, 1);
        assert_eq!(reliability(&[(0.0, true)])[0].count, 1);
        assert_eq!(reliability(&[(0.2, true)])[2].count, 1, "0.2 is 3/15, the third bin's upper edge");
    }

    #[test]
    fn coverage_keeps_the_most_confident() {
        use Label::*;
        let items = [(True, True, 0.9), (False, True, 0.2), (False, False, 0.8), (True, False, 0.5)];
        let curve = risk_coverage(&items, &[0.5, 1.0]);
        assert_eq!((curve[0].kept, curve[0].scores.accuracy, curve[0].threshold), (2, 1.0, 0.8));
        assert_eq!((curve[1].kept, curve[1].scores.accuracy), (4, 0.5));
    }
}
