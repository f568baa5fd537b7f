//! Per-list score normalisations, as ranx 0.3.21 defines them (`ranx/normalization/`).
//!
//! With `s` a list's scores, n its length:
//!
//! | norm | formula | ranx name |
//! |---|---|---|
//! | `none` | s | — |
//! | `min-max` | (s − min) / max(max − min, 1e-9) | `min-max` |
//! | `max` | s / max(max, 1e-9) | `max` |
//! | `sum` | (s − min) / max(Σs − n·min, 1e-9) (shifted so the minimum is 0, then sum-normalised) | `sum` |
//! | `zmuv` | (s − mean) / max(σ, 1e-9), σ the population standard deviation | `zmuv` |
//! | `rank` | 1 − i / n, i the 0-based position in the list | `rank` |
//!
//! The 1e-9 floors are ranx's guard against dividing by zero. For min-max they make a constant
//! list (one result, or equal scores) all 0: that is [`ConstantPolicy::Zero`]; Pyserini gives
//! those lists 1 ([`ConstantPolicy::One`]) and the QuanTemp++ reference code keeps the raw scores
//! ([`ConstantPolicy::Raw`]).

/// A per-list normalisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Norm {
    /// Scores as they are.
    None,
    /// Min-max to [0, 1].
    MinMax,
    /// Divided by the maximum.
    Max,
    /// Shifted to a minimum of 0, then divided by the sum.
    Sum,
    /// Zero mean, unit variance.
    Zmuv,
    /// From ranks: 1 − i / n.
    Rank,
}

/// What min-max gives a list whose scores are all equal (including a list of one).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConstantPolicy {
    /// 0 for every document (ranx).
    #[default]
    Zero,
    /// 1 for every document (Pyserini).
    One,
    /// The raw scores (the QuanTemp++ reference code).
    Raw,
}

/// ranx's floor on denominators.
const FLOOR: f64 = 1e-9;

/// Normalises one list (best first); the order is kept.
pub fn normalize<K: Copy>(list: &[(K, f64)], norm: Norm, constant: ConstantPolicy) -> Vec<(K, f64)> {
    if list.is_empty() {
        return Vec::new();
    }
    let n = list.len() as f64;
    let min = list.iter().map(|x| x.1).fold(f64::INFINITY, f64::min);
    let max = list.iter().map(|x| x.1).fold(f64::NEG_INFINITY, f64::max);
    let map = |f: &dyn Fn(f64) -> f64| list.iter().map(|&(k, s)| (k, f(s))).collect();
    match norm {
        Norm::None => list.to_vec(),
        Norm::MinMax if max == min => match constant {
            ConstantPolicy::Zero => map(&|_| 0.0),
            ConstantPolicy::One => map(&|_| 1.0),
            ConstantPolicy::Raw => list.to_vec(),
        },
        Norm::MinMax => {
            let range = (max - min).max(FLOOR);
            map(&|s| (s - min) / range)
        }
        Norm::Max => {
            let d = max.max(FLOOR);
            map(&|s| s / d)
        }
        Norm::Sum => {
            let sum: f64 = list.iter().map(|x| x.1).sum();
            let d = (sum - min * n).max(FLOOR);
            map(&|s| (s - min) / d)
        }
        Norm::Zmuv => {
            let mean = list.iter().map(|x| x.1).sum::<f64>() / n;
            let sd = (list.iter().map(|x| (x.1 - mean).powi(2)).sum::<f64>() / n).sqrt().max(FLOOR);
            map(&|s| (s - mean) / sd)
        }
        Norm::Rank => list.iter().enumerate().map(|(i, &(k, _))| (k, 1.0 - i as f64 / n)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(list: &[(u32, f64)]) -> Vec<f64> {
        list.iter().map(|x| x.1).collect()
    }

    #[test]
    fn formulas_by_hand() {
        let l = [(1, 4.0), (2, 2.0), (3, 1.0)];
        assert_eq!(scores(&normalize(&l, Norm::MinMax, ConstantPolicy::Zero)), [1.0, 1.0 / 3.0, 0.0]);
        assert_eq!(scores(&normalize(&l, Norm::Max, ConstantPolicy::Zero)), [1.0, 0.5, 0.25]);
        // Shifted by min 1: (3, 1, 0) over 4.
        assert_eq!(scores(&normalize(&l, Norm::Sum, ConstantPolicy::Zero)), [0.75, 0.25, 0.0]);
        assert_eq!(scores(&normalize(&l, Norm::Rank, ConstantPolicy::Zero)), [1.0, 1.0 - 1.0 / 3.0, 1.0 - 2.0 / 3.0]);
        let z = scores(&normalize(&l, Norm::Zmuv, ConstantPolicy::Zero));
        let sd = ((4.0f64 - 7.0 / 3.0).powi(2) + (2.0f64 - 7.0 / 3.0).powi(2) + (1.0f64 - 7.0 / 3.0).powi(2)) / 3.0;
        assert!((z[0] - (4.0 - 7.0 / 3.0) / sd.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn constant_lists_follow_the_policy() {
        let one = [(7, 3.5)];
        assert_eq!(scores(&normalize(&one, Norm::MinMax, ConstantPolicy::Zero)), [0.0]);
        assert_eq!(scores(&normalize(&one, Norm::MinMax, ConstantPolicy::One)), [1.0]);
        assert_eq!(scores(&normalize(&one, Norm::MinMax, ConstantPolicy::Raw)), [3.5]);
        let flat = [(1, 2.0), (2, 2.0)];
        assert_eq!(scores(&normalize(&flat, Norm::MinMax, ConstantPolicy::One)), [1.0, 1.0]);
    }
}
