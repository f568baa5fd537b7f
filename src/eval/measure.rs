//! Measure names, parsed as trec_eval spells them.

use std::fmt;
use std::str::FromStr;

/// One evaluation measure with its cutoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Measure {
    /// `ndcg`: nDCG over the whole ranking (trec_eval `ndcg`).
    Ndcg,
    /// `ndcg_cut.K`: nDCG over the top K.
    NdcgCut(usize),
    /// `recall.K`: relevant documents in the top K over all relevant documents.
    Recall(usize),
    /// `P.K`: relevant documents in the top K over K.
    Precision(usize),
    /// `map`: mean average precision over the whole list.
    Map,
    /// `map_cut.K`: average precision over the top K.
    MapCut(usize),
    /// `recip_rank`: 1 / rank of the first relevant document (MRR when averaged).
    RecipRank,
    /// `recip_rank_cut.K`: `recip_rank` within the top K (MRR@K when averaged). trec_eval has no
    /// such measure; it equals trec_eval's `recip_rank` on the run cut at K.
    RecipRankCut(usize),
    /// `success.K`: 1 if a relevant document is in the top K.
    Success(usize),
    /// `Rprec`: precision at R, the number of relevant documents.
    RPrec,
    /// `bpref`: how rarely judged non-relevant documents rank above relevant ones (trec_eval
    /// `bpref`).
    Bpref,
    /// `num_ret`: documents retrieved (summed, not averaged, over queries).
    NumRet,
    /// `num_rel`: relevant documents judged (summed over queries).
    NumRel,
    /// `num_rel_ret`: relevant documents retrieved (summed over queries).
    NumRelRet,
    /// `set_P`: relevant retrieved over retrieved.
    SetP,
    /// `set_recall`: relevant retrieved over relevant.
    SetRecall,
    /// `set_F`: the harmonic mean of `set_P` and `set_recall` (β = 1).
    SetF,
    /// `iprec_at_recall_L`: interpolated precision at recall level L, in hundredths (0 to 100).
    IprecAtRecall(u8),
    /// `Judged@K`: the fraction of the top K with any judgment. Not a trec_eval measure:
    /// ir_measures' `Judged@K`, defined as it defines it — documents ranked by score, ties by
    /// docid *ascending*; divided by the number of documents in the top K when the run has fewer
    /// than K.
    Judged(usize),
}

/// How a measure's per-query values become the `all` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregate {
    /// The arithmetic mean over the evaluated queries.
    Mean,
    /// The sum over the evaluated queries (trec_eval's counts: `num_ret`, `num_rel`, `num_rel_ret`).
    Sum,
}

/// trec_eval's cutoffs for a cutoff measure named without them (`-m P`).
const DEFAULT_CUTOFFS: [usize; 9] = [5, 10, 15, 20, 30, 100, 200, 500, 1000];
/// trec_eval's cutoffs for a bare `success`.
const DEFAULT_SUCCESS: [usize; 3] = [1, 5, 10];
/// trec_eval's recall levels for a bare `iprec_at_recall`, in hundredths.
const DEFAULT_RECALL_LEVELS: [u8; 11] = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100];

impl Measure {
    /// The measures `quantir eval` reports by default.
    pub const DEFAULTS: [Measure; 5] = [Measure::NdcgCut(10), Measure::Recall(10), Measure::Recall(100), Measure::RecipRank, Measure::Map];

    /// The key pytrec_eval uses in its result dictionaries (`ndcg_cut_10`, `iprec_at_recall_0.10`).
    pub fn key(&self) -> String {
        match self {
            Measure::IprecAtRecall(_) | Measure::Judged(_) => self.to_string(),
            _ => self.to_string().replace('.', "_"),
        }
    }

    /// How the per-query values are combined into the `all` value, as trec_eval combines them.
    pub fn aggregate(&self) -> Aggregate {
        match self {
            Measure::NumRet | Measure::NumRel | Measure::NumRelRet => Aggregate::Sum,
            _ => Aggregate::Mean,
        }
    }

    /// Whether the values are counts, printed without decimals.
    pub fn is_count(&self) -> bool {
        self.aggregate() == Aggregate::Sum
    }

    /// Parses one `-m` argument as trec_eval does: a measure with a comma-separated list of
    /// parameters (`P.5,10`, `iprec_at_recall.0.25,0.5`), or a bare name that takes trec_eval's
    /// defaults (`P` is P.5 to P.1000, `iprec_at_recall` its eleven levels).
    pub fn parse_list(s: &str) -> Result<Vec<Measure>, String> {
        let s = s.trim();
        let expected = || {
            format!(
                "expected a trec_eval measure like ndcg, ndcg_cut.10, recall.100, P.5,10, map, map_cut.100, recip_rank, \
                 recip_rank_cut.10 (MRR@10), success.10, Rprec, bpref, num_ret, num_rel, num_rel_ret, set_P, set_recall, \
                 set_F, iprec_at_recall, or ir_measures' Judged@10; found {s:?}"
            )
        };
        let plain = match s {
            "ndcg" => Some(Measure::Ndcg),
            "map" => Some(Measure::Map),
            "recip_rank" | "mrr" => Some(Measure::RecipRank),
            "Rprec" => Some(Measure::RPrec),
            "bpref" => Some(Measure::Bpref),
            "num_ret" => Some(Measure::NumRet),
            "num_rel" => Some(Measure::NumRel),
            "num_rel_ret" => Some(Measure::NumRelRet),
            "set_P" => Some(Measure::SetP),
            "set_recall" => Some(Measure::SetRecall),
            "set_F" => Some(Measure::SetF),
            _ => None,
        };
        if let Some(m) = plain {
            return Ok(vec![m]);
        }
        if let Some(k) = s.strip_prefix("mrr@") {
            return cutoff(k).map(|k| vec![Measure::RecipRankCut(k)]).ok_or_else(expected);
        }
        if let Some(k) = s.strip_prefix("Judged@") {
            return cutoff(k).map(|k| vec![Measure::Judged(k)]).ok_or_else(expected);
        }
        if let Some(rest) = s.strip_prefix("iprec_at_recall") {
            let levels: Vec<u8> = match rest.strip_prefix(['.', '_']) {
                None if rest.is_empty() => DEFAULT_RECALL_LEVELS.to_vec(),
                Some(list) => list.split(',').map(recall_level).collect::<Option<_>>().ok_or_else(expected)?,
                None => return Err(expected()),
            };
            return Ok(levels.into_iter().map(Measure::IprecAtRecall).collect());
        }
        // pytrec_eval's spelling (`ndcg_cut_10`) as well as trec_eval's (`ndcg_cut.10`).
        let names = ["ndcg_cut", "map_cut", "recip_rank_cut", "recall", "P", "success", "judged"];
        let (name, params) = names
            .iter()
            .find_map(|n| match s.strip_prefix(n) {
                Some("") => Some((*n, None)),
                Some(rest) => rest.strip_prefix(['.', '_']).map(|p| (*n, Some(p))),
                None => None,
            })
            .ok_or_else(expected)?;
        let cutoffs: Vec<usize> = match params {
            Some(list) => list.split(',').map(cutoff).collect::<Option<_>>().ok_or_else(expected)?,
            None if name == "success" => DEFAULT_SUCCESS.to_vec(),
            None if matches!(name, "ndcg_cut" | "map_cut" | "recall" | "P") => DEFAULT_CUTOFFS.to_vec(),
            None => return Err(expected()),
        };
        let make: fn(usize) -> Measure = match name {
            "ndcg_cut" => Measure::NdcgCut,
            "map_cut" => Measure::MapCut,
            "recip_rank_cut" => Measure::RecipRankCut,
            "recall" => Measure::Recall,
            "P" => Measure::Precision,
            "success" => Measure::Success,
            _ => Measure::Judged,
        };
        Ok(cutoffs.into_iter().map(make).collect())
    }
}

/// A cutoff: a whole number from 1.
fn cutoff(s: &str) -> Option<usize> {
    s.trim().parse().ok().filter(|&k| k >= 1)
}

/// A recall level from 0 to 1 with at most two decimals, in hundredths.
fn recall_level(s: &str) -> Option<u8> {
    let s = s.trim();
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty() && frac.is_empty() || frac.len() > 2 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: u32 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let frac: u32 = if frac.is_empty() { 0 } else { format!("{frac:0<2}").parse().ok()? };
    let level = whole.checked_mul(100)?.checked_add(frac)?;
    u8::try_from(level).ok().filter(|&l| l <= 100)
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Measure::Ndcg => write!(f, "ndcg"),
            Measure::NdcgCut(k) => write!(f, "ndcg_cut.{k}"),
            Measure::Recall(k) => write!(f, "recall.{k}"),
            Measure::Precision(k) => write!(f, "P.{k}"),
            Measure::Map => write!(f, "map"),
            Measure::MapCut(k) => write!(f, "map_cut.{k}"),
            Measure::RecipRank => write!(f, "recip_rank"),
            Measure::RecipRankCut(k) => write!(f, "recip_rank_cut.{k}"),
            Measure::Success(k) => write!(f, "success.{k}"),
            Measure::RPrec => write!(f, "Rprec"),
            Measure::Bpref => write!(f, "bpref"),
            Measure::NumRet => write!(f, "num_ret"),
            Measure::NumRel => write!(f, "num_rel"),
            Measure::NumRelRet => write!(f, "num_rel_ret"),
            Measure::SetP => write!(f, "set_P"),
            Measure::SetRecall => write!(f, "set_recall"),
            Measure::SetF => write!(f, "set_F"),
            Measure::IprecAtRecall(l) => write!(f, "iprec_at_recall_{}.{:02}", l / 100, l % 100),
            Measure::Judged(k) => write!(f, "Judged@{k}"),
        }
    }
}

/// One measure; a name that stands for several (`P.5,10`, `iprec_at_recall`) is an error here:
/// [`Measure::parse_list`] reads those.
impl FromStr for Measure {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        // The printed name of a recall level (`iprec_at_recall_0.10`) reads back as itself.
        let list = Measure::parse_list(s)?;
        match list.as_slice() {
            [one] => Ok(*one),
            _ => Err(format!("{s:?} stands for {} measures; name one (like P.10) or give the list where lists are read", list.len())),
        }
    }
}

/// The measures of one `-m` argument ([`Measure::parse_list`]), for clap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeasureList(pub Vec<Measure>);

impl FromStr for MeasureList {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Measure::parse_list(s).map(MeasureList)
    }
}

impl MeasureList {
    /// The measures of every argument in order, each once; [`Measure::DEFAULTS`] when none was given.
    pub fn flatten(lists: &[MeasureList]) -> Vec<Measure> {
        let mut out: Vec<Measure> = Vec::new();
        for m in lists.iter().flat_map(|l| &l.0) {
            if !out.contains(m) {
                out.push(*m);
            }
        }
        if out.is_empty() {
            Measure::DEFAULTS.to_vec()
        } else {
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in [
            "ndcg", "ndcg_cut.10", "recall.100", "P.5", "map", "map_cut.1000", "recip_rank", "recip_rank_cut.10", "success.1", "Rprec", "bpref", "num_ret", "num_rel",
            "num_rel_ret", "set_P", "set_recall", "set_F", "iprec_at_recall_0.10", "iprec_at_recall_1.00", "Judged@10",
        ] {
            assert_eq!(name.parse::<Measure>().unwrap().to_string(), name);
        }
        assert_eq!("ndcg_cut_10".parse::<Measure>().unwrap(), Measure::NdcgCut(10));
        assert_eq!(Measure::NdcgCut(10).key(), "ndcg_cut_10");
        assert_eq!(Measure::IprecAtRecall(5).key(), "iprec_at_recall_0.05");
        assert_eq!("recip_rank_cut_10".parse::<Measure>().unwrap(), Measure::RecipRankCut(10));
        assert_eq!("mrr@10".parse::<Measure>().unwrap(), Measure::RecipRankCut(10));
        assert_eq!("judged.10".parse::<Measure>().unwrap(), Measure::Judged(10));
        assert!("recall.0".parse::<Measure>().is_err());
        assert!("Precision.5".parse::<Measure>().is_err());
        assert!("P".parse::<Measure>().unwrap_err().contains("stands for 9 measures"));
    }

    #[test]
    fn lists_and_defaults_as_trec_eval_reads_them() {
        assert_eq!(Measure::parse_list("P.5,10").unwrap(), [Measure::Precision(5), Measure::Precision(10)]);
        assert_eq!(Measure::parse_list("ndcg_cut").unwrap().len(), 9);
        assert_eq!(Measure::parse_list("success").unwrap(), [Measure::Success(1), Measure::Success(5), Measure::Success(10)]);
        let levels = Measure::parse_list("iprec_at_recall").unwrap();
        assert_eq!((levels.len(), levels[0], levels[10]), (11, Measure::IprecAtRecall(0), Measure::IprecAtRecall(100)));
        assert_eq!(Measure::parse_list("iprec_at_recall.0.25,.5,1").unwrap(), [Measure::IprecAtRecall(25), Measure::IprecAtRecall(50), Measure::IprecAtRecall(100)]);
        for bad in ["iprec_at_recall.1.5", "iprec_at_recall.0.125", "P.5,", "P.5,x", "Judged@0", "judged", "recip_rank_cut", "iprec_at_recall.", "ndcgx"] {
            assert!(Measure::parse_list(bad).is_err(), "{bad}");
        }
        let lists = [MeasureList(vec![Measure::Precision(5)]), MeasureList(vec![Measure::Precision(5), Measure::Map])];
        assert_eq!(MeasureList::flatten(&lists), [Measure::Precision(5), Measure::Map]);
        assert_eq!(MeasureList::flatten(&[]), Measure::DEFAULTS);
    }
}
