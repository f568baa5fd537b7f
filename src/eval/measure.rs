//! Measure names, parsed as trec_eval spells them.

use std::fmt;
use std::str::FromStr;

/// One evaluation measure with its cutoff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Measure {
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
    /// `judged.K`: fraction of the top K that is judged (any grade).
    Judged(usize),
}

impl Measure {
    /// The measures `quantir eval` reports by default.
    pub const DEFAULTS: [Measure; 5] = [Measure::NdcgCut(10), Measure::Recall(10), Measure::Recall(100), Measure::RecipRank, Measure::Map];

    /// The key pytrec_eval uses in its result dictionaries (`ndcg_cut_10`).
    pub fn key(&self) -> String {
        self.to_string().replace('.', "_")
    }
}

impl fmt::Display for Measure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Measure::NdcgCut(k) => write!(f, "ndcg_cut.{k}"),
            Measure::Recall(k) => write!(f, "recall.{k}"),
            Measure::Precision(k) => write!(f, "P.{k}"),
            Measure::Map => write!(f, "map"),
            Measure::MapCut(k) => write!(f, "map_cut.{k}"),
            Measure::RecipRank => write!(f, "recip_rank"),
            Measure::RecipRankCut(k) => write!(f, "recip_rank_cut.{k}"),
            Measure::Success(k) => write!(f, "success.{k}"),
            Measure::RPrec => write!(f, "Rprec"),
            Measure::Judged(k) => write!(f, "judged.{k}"),
        }
    }
}

impl FromStr for Measure {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let expected = || format!("expected a trec_eval measure like ndcg_cut.10, recall.100, P.5, map, map_cut.100, recip_rank, recip_rank_cut.10 (MRR@10), success.10, Rprec, judged.10; found {s:?}");
        let s = s.trim();
        match s {
            "map" => return Ok(Measure::Map),
            "recip_rank" | "mrr" => return Ok(Measure::RecipRank),
            _ if s.starts_with("mrr@") => {
                return s[4..].parse().ok().filter(|&k| k >= 1).map(Measure::RecipRankCut).ok_or_else(expected);
            }
            "Rprec" => return Ok(Measure::RPrec),
            _ => {}
        }
        let (name, k) = s.split_once(['.', '_']).filter(|(n, _)| !n.is_empty()).ok_or_else(expected)?;
        // "ndcg_cut_10" splits at the first '_': accept pytrec_eval's spelling too.
        let (name, k) = match (name, k.split_once(['.', '_'])) {
            ("ndcg", Some(("cut", k))) => ("ndcg_cut", k),
            ("map", Some(("cut", k))) => ("map_cut", k),
            ("recip", Some(("rank", rest))) => match rest.split_once(['.', '_']) {
                Some(("cut", k)) => ("recip_rank_cut", k),
                _ => return Err(expected()),
            },
            _ => (name, k),
        };
        let k: usize = k.parse().ok().filter(|&k| k >= 1).ok_or_else(expected)?;
        Ok(match name {
            "ndcg_cut" => Measure::NdcgCut(k),
            "recall" => Measure::Recall(k),
            "P" => Measure::Precision(k),
            "map_cut" => Measure::MapCut(k),
            "recip_rank_cut" => Measure::RecipRankCut(k),
            "success" => Measure::Success(k),
            "judged" => Measure::Judged(k),
            _ => return Err(expected()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in ["ndcg_cut.10", "recall.100", "P.5", "map", "map_cut.1000", "recip_rank", "recip_rank_cut.10", "success.1", "Rprec", "judged.10"] {
            assert_eq!(name.parse::<Measure>().unwrap().to_string(), name);
        }
        assert_eq!("ndcg_cut_10".parse::<Measure>().unwrap(), Measure::NdcgCut(10));
        assert_eq!(Measure::NdcgCut(10).key(), "ndcg_cut_10");
        assert_eq!("recip_rank_cut_10".parse::<Measure>().unwrap(), Measure::RecipRankCut(10));
        assert_eq!("mrr@10".parse::<Measure>().unwrap(), Measure::RecipRankCut(10));
        assert!("ndcg".parse::<Measure>().is_err());
        assert!("recall.0".parse::<Measure>().is_err());
    }
}
