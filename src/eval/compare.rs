//! Comparing runs on the same queries: paired significance tests against a baseline.
//!
//! For each measure and each run after the first, the per-query differences
//! `d_q = run(q) − baseline(q)` over the queries every run was evaluated on are tested:
//!
//! - **paired t-test** (two-sided): `t = mean(d) / (sd(d) / √n)` with `sd` the sample standard
//!   deviation (n − 1), `p = I_{ν/(ν+t²)}(ν/2, 1/2)` with ν = n − 1 and I the regularised
//!   incomplete beta function — the value `scipy.stats.ttest_rel` returns. When every difference
//!   is 0, p = 1 (scipy returns NaN); when they are equal but not 0, p = 0.
//! - **paired randomisation (permutation) test** (two-sided): the signs of the differences are
//!   flipped at random `permutations` times by a ChaCha8 generator seeded with `seed` (so a rerun
//!   gives the same p), and `p = (1 + #{|mean(±d)| ≥ |mean(d)|}) / (1 + permutations)`, the
//!   estimate that never reports 0 (Smucker, Allan & Carterette 2007; ranx's "Fisher" test).
//!
//! p-values are then corrected across the compared runs, per measure: Bonferroni multiplies by
//! the number of runs compared (capped at 1); Holm's step-down multiplies the i-th smallest by
//! (m − i + 1) and keeps the sequence monotone. A difference is significant when the corrected p is
//! below `alpha`; the CLI marks it with †, as the QuanTemp++ paper does.

use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::evaluate::Evaluation;
use super::measure::Measure;

/// The paired test.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Test {
    /// Paired two-sided Student's t-test.
    #[default]
    T,
    /// Paired randomisation test (sign flips), two-sided.
    Permutation,
}

/// Correction for comparing several runs with one baseline.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Correction {
    /// Holm's step-down procedure.
    #[default]
    Holm,
    /// Bonferroni.
    Bonferroni,
    /// No correction.
    None,
}

/// How runs are compared.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompareConfig {
    /// The test.
    pub test: Test,
    /// Significance level.
    pub alpha: f64,
    /// Correction across runs.
    pub correction: Correction,
    /// Sign-flip samples for the permutation test.
    pub permutations: usize,
    /// Seed of the permutation test's generator.
    pub seed: u64,
}

impl Default for CompareConfig {
    fn default() -> Self {
        CompareConfig { test: Test::T, alpha: 0.05, correction: Correction::Holm, permutations: 10_000, seed: 42 }
    }
}

/// One run's row: its means and, for runs after the baseline, the tests' outcome per measure.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunRow {
    /// The run's name (its file name).
    pub name: String,
    /// Mean per measure over the compared queries.
    pub means: Vec<f64>,
    /// Uncorrected p-value per measure (`None` for the baseline).
    pub p_values: Vec<Option<f64>>,
    /// Corrected p-value per measure (`None` for the baseline).
    pub corrected: Vec<Option<f64>>,
    /// Whether the corrected p-value is below alpha.
    pub significant: Vec<bool>,
}

/// The comparison table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Comparison {
    /// The measures (columns).
    #[serde(serialize_with = "measure_names")]
    pub measures: Vec<Measure>,
    /// One row per run, the baseline first.
    pub runs: Vec<RunRow>,
    /// Number of queries compared (those every run was evaluated on).
    pub queries: usize,
}

fn measure_names<S: serde::Serializer>(measures: &[Measure], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(measures.iter().map(|m| m.to_string()))
}

impl Comparison {
    /// The table as JSON, what `quantir compare --json` prints and the Python API returns:
    /// `{"queries", "test", "correction", "alpha", "runs": [{"run", "measures": {"ndcg_cut_10":
    /// {"mean", "p", "p_corrected", "significant"}}}]}`, the baseline first (its p-values null).
    pub fn to_json(&self, config: &CompareConfig) -> serde_json::Value {
        let runs: Vec<serde_json::Value> = self
            .runs
            .iter()
            .map(|row| {
                let per_measure: serde_json::Map<String, serde_json::Value> = self
                    .measures
                    .iter()
                    .enumerate()
                    .map(|(i, m)| (m.key(), serde_json::json!({ "mean": row.means[i], "p": row.p_values[i], "p_corrected": row.corrected[i], "significant": row.significant[i] })))
                    .collect();
                serde_json::json!({ "run": row.name, "measures": per_measure })
            })
            .collect();
        serde_json::json!({ "queries": self.queries, "test": config.test, "correction": config.correction, "alpha": config.alpha, "runs": runs })
    }
}

/// Compares `evaluations` (named; the first is the baseline), all made with the same measures.
pub fn compare(evaluations: &[(String, Evaluation)], config: &CompareConfig) -> Comparison {
    let measures = evaluations.first().map(|(_, e)| e.measures.clone()).unwrap_or_default();
    let queries: Vec<&String> = match evaluations.first() {
        Some((_, first)) => first.per_query.keys().filter(|q| evaluations.iter().all(|(_, e)| e.per_query.contains_key(*q))).collect(),
        None => Vec::new(),
    };
    let column = |e: &Evaluation, m: usize| -> Vec<f64> { queries.iter().map(|q| e.per_query[*q][m]).collect() };
    let mut runs: Vec<RunRow> = evaluations
        .iter()
        .map(|(name, e)| RunRow {
            name: name.clone(),
            means: (0..measures.len()).map(|m| mean(&column(e, m))).collect(),
            p_values: vec![None; measures.len()],
            corrected: vec![None; measures.len()],
            significant: vec![false; measures.len()],
        })
        .collect();
    for m in 0..measures.len() {
        let baseline = column(&evaluations[0].1, m);
        let mut p: Vec<f64> = Vec::new();
        for (_, e) in &evaluations[1..] {
            let diffs: Vec<f64> = column(e, m).iter().zip(&baseline).map(|(x, b)| x - b).collect();
            p.push(match config.test {
                Test::T => paired_t_test(&diffs),
                Test::Permutation => permutation_test(&diffs, config.permutations, config.seed),
            });
        }
        let corrected = correct(&p, config.correction);
        for (i, row) in runs.iter_mut().skip(1).enumerate() {
            row.p_values[m] = Some(p[i]);
            row.corrected[m] = Some(corrected[i]);
            row.significant[m] = corrected[i] < config.alpha;
        }
    }
    Comparison { measures, runs, queries: queries.len() }
}

fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        0.0
    } else {
        xs.iter().sum::<f64>() / xs.len() as f64
    }
}

/// Two-sided p-value of the paired t-test on differences `d` (module doc).
pub fn paired_t_test(d: &[f64]) -> f64 {
    let n = d.len();
    if n < 2 {
        return 1.0;
    }
    let m = mean(d);
    let var = d.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1) as f64;
    if var == 0.0 {
        return if m == 0.0 { 1.0 } else { 0.0 };
    }
    let t = m / (var / n as f64).sqrt();
    let nu = (n - 1) as f64;
    statrs::function::beta::beta_reg(nu / 2.0, 0.5, nu / (nu + t * t))
}

/// Two-sided p-value of the paired randomisation test (module doc).
pub fn permutation_test(d: &[f64], permutations: usize, seed: u64) -> f64 {
    if d.is_empty() {
        return 1.0;
    }
    let observed = d.iter().sum::<f64>().abs();
    // Sums compared with a tolerance, so floating-point noise does not decide ties.
    let tolerance = 1e-12 * d.iter().map(|x| x.abs()).sum::<f64>().max(1.0);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut at_least = 0usize;
    for _ in 0..permutations {
        let mut sum = 0.0;
        let mut bits = 0u64;
        for (i, x) in d.iter().enumerate() {
            if i % 64 == 0 {
                bits = rng.next_u64();
            }
            sum += if bits & 1 == 1 { *x } else { -*x };
            bits >>= 1;
        }
        if sum.abs() >= observed - tolerance {
            at_least += 1;
        }
    }
    (1 + at_least) as f64 / (1 + permutations) as f64
}

/// Corrects p-values for comparing `p.len()` runs with one baseline.
pub fn correct(p: &[f64], correction: Correction) -> Vec<f64> {
    let m = p.len() as f64;
    match correction {
        Correction::None => p.to_vec(),
        Correction::Bonferroni => p.iter().map(|x| (x * m).min(1.0)).collect(),
        Correction::Holm => {
            let mut order: Vec<usize> = (0..p.len()).collect();
            order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
            let mut adjusted = vec![0.0; p.len()];
            let mut running: f64 = 0.0;
            for (rank, &i) in order.iter().enumerate() {
                running = running.max(((m - rank as f64) * p[i]).min(1.0));
                adjusted[i] = running;
            }
            adjusted
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holm_and_bonferroni_by_hand() {
        let p = [0.01, 0.04, 0.03];
        assert_eq!(correct(&p, Correction::Bonferroni), vec![0.03, 0.12, 0.09]);
        // Sorted: 0.01·3 = 0.03, 0.03·2 = 0.06, max(0.06, 0.04·1) = 0.06.
        let holm = correct(&p, Correction::Holm);
        assert!((holm[0] - 0.03).abs() < 1e-15 && (holm[2] - 0.06).abs() < 1e-15 && (holm[1] - 0.06).abs() < 1e-15);
    }

    #[test]
    fn t_test_edge_cases() {
        assert_eq!(paired_t_test(&[0.0, 0.0, 0.0]), 1.0);
        assert_eq!(paired_t_test(&[0.1, 0.1]), 0.0);
        // t = 1 with 1 degree of freedom: p = 0.5 exactly (Cauchy).
        assert!((paired_t_test(&[0.0, 2.0]) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn permutation_is_seeded_and_bounded() {
        let d: Vec<f64> = (0..40).map(|i| ((i * 37 % 11) as f64 - 4.0) / 10.0).collect();
        let a = permutation_test(&d, 2000, 7);
        assert_eq!(a, permutation_test(&d, 2000, 7));
        assert!(a > 0.0 && a <= 1.0);
        assert_eq!(permutation_test(&[0.0; 5], 100, 1), 1.0);
        // A large consistent improvement is rarely matched by random signs.
        assert!(permutation_test(&[0.3; 30], 2000, 1) < 0.01);
    }
}
