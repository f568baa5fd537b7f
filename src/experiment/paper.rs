//! The QuanTemp++ paper's published figures, printed beside the experiment's own.
//!
//! In: `data/quantemp-paper/PAPER_TABLES.md` (Tables 4 and 5 of arXiv 2510.22055, as printed, with
//! their attribution in the folder's `SOURCES.md`), compiled in, so each figure lives in that file
//! once. Out: for a planner, Table 4's retrieval figures (Contriever, CombMAX-Norm) with and without
//! the temporal filter, and Table 5's verification figures (roberta-mnli on top-3 evidence).
//!
//! The paper names its rows after the query mode ("Claim-Only", "FCDecomp", …, "FCDecomp (−temporal
//! filter)"); [`paper_name`] is the one map from quantir's planners to those names. quantir's own
//! planners (the numeric decomposer, the LLM styles) have no row in the paper.

use super::PaperPlanner;
use crate::retrieve::TemporalFilter;

/// The file, as bundled.
const TABLES: &str = include_str!("../../data/quantemp-paper/PAPER_TABLES.md");

/// Where the figures come from, for the tables' captions.
pub const CITATION: &str = "QuanTemp++ paper (arXiv 2510.22055)";

/// What the suffix of a Table 4 row without the temporal filter reads (with a Unicode minus).
const WITHOUT_FILTER: &str = " (−temporal filter)";

/// The paper's name for a planner's rows, or `None` for a planner it does not have.
pub fn paper_name(planner: PaperPlanner) -> Option<&'static str> {
    match planner {
        PaperPlanner::ClaimOnly => Some("Claim-Only"),
        PaperPlanner::Fcdecomp => Some("FCDecomp"),
        PaperPlanner::Claimdecomp => Some("ClaimDecomp"),
        PaperPlanner::Pgmfc => Some("PgmFC"),
        PaperPlanner::Qgen => Some("QGen"),
        PaperPlanner::Numeric | PaperPlanner::Iterative | PaperPlanner::LlmFcdecomp | PaperPlanner::LlmClaimdecomp | PaperPlanner::LlmPgmfc | PaperPlanner::LlmIterative => None,
    }
}

/// The rows of the table whose heading starts with `## {heading}`: each row's first cell and the
/// rest, as printed. The header row and the separator are not rows.
fn rows(heading: &str) -> Vec<(&'static str, Vec<&'static str>)> {
    let lines = TABLES.lines().skip_while(|l| !l.starts_with(&format!("## {heading}"))).skip(1);
    let mut out = Vec::new();
    let mut header_seen = false;
    for line in lines {
        if line.starts_with("## ") {
            break;
        }
        let Some(inner) = line.trim().strip_prefix('|').and_then(|l| l.strip_suffix('|')) else { continue };
        let cells: Vec<&str> = inner.split('|').map(str::trim).collect();
        if !header_seen || cells.iter().all(|c| c.chars().all(|ch| ch == '-' || ch == ':')) {
            header_seen = true;
            continue;
        }
        if let Some((name, figures)) = cells.split_first() {
            out.push((*name, figures.to_vec()));
        }
    }
    out
}

/// Table 4's NDCG@10, Recall@10, Recall@100 and MRR for a planner, as printed, with or without the
/// temporal filter; `None` when the paper has no such row (claim only has none without the filter).
pub fn retrieval(planner: PaperPlanner, filter: TemporalFilter) -> Option<[&'static str; 4]> {
    let name = paper_name(planner)?;
    let wanted = match filter {
        TemporalFilter::Claim => name.to_string(),
        TemporalFilter::Off => format!("{name}{WITHOUT_FILTER}"),
    };
    let (_, figures) = rows("Table 4").into_iter().find(|(row, _)| *row == wanted)?;
    figures.try_into().ok()
}

/// Table 5's figures for a planner: accuracy, F1 True, F1 False, F1 Conflicting, weighted-F1 and
/// macro-F1 as fractions (the paper prints percent), and whether the paper marks it † (significant
/// over claim only).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PaperVerification {
    /// The six figures, as fractions.
    pub figures: [f64; 6],
    /// The paper's †.
    pub significant: bool,
}

/// Table 5's row for a planner, or `None` when the paper has none.
pub fn verification(planner: PaperPlanner) -> Option<PaperVerification> {
    let name = paper_name(planner)?;
    let (_, cells) = rows("Table 5").into_iter().find(|(row, _)| *row == name)?;
    let mut figures = [0.0; 6];
    let mut significant = false;
    if cells.len() != figures.len() {
        return None;
    }
    for (slot, cell) in figures.iter_mut().zip(&cells) {
        let number = match cell.strip_suffix('†') {
            Some(number) => {
                significant = true;
                number.trim()
            }
            None => cell,
        };
        *slot = number.parse::<f64>().ok()? / 100.0;
    }
    Some(PaperVerification { figures, significant })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_planner_the_paper_has_finds_its_rows() {
        let with: Vec<_> = PaperPlanner::ALL.iter().map(|&p| retrieval(p, TemporalFilter::Claim)).collect();
        assert_eq!(with[0], Some(["0.33", "0.32", "0.51", "0.54"]));
        assert_eq!(with[1], Some(["0.57", "0.54", "0.82", "0.68"]));
        assert_eq!(with[4], Some(["0.33", "0.31", "0.56", "0.57"]));
        assert_eq!(with[5], None, "the numeric decomposer is quantir's");
        assert_eq!(retrieval(PaperPlanner::ClaimOnly, TemporalFilter::Off), None, "the paper has no claim-only row without the filter");
        assert_eq!(retrieval(PaperPlanner::Fcdecomp, TemporalFilter::Off), Some(["0.54", "0.51", "0.82", "0.651"]));
        assert_eq!(retrieval(PaperPlanner::Pgmfc, TemporalFilter::Off), Some(["0.30", "0.29", "0.52", "0.481"]));
        for planner in [PaperPlanner::Claimdecomp, PaperPlanner::Pgmfc, PaperPlanner::Qgen] {
            assert!(retrieval(planner, TemporalFilter::Off).is_some(), "{planner:?}");
        }
    }

    #[test]
    fn verification_rows_are_fractions_with_the_papers_marks() {
        let claim_only = verification(PaperPlanner::ClaimOnly).unwrap();
        for (got, want) in claim_only.figures.iter().zip([0.6653, 0.5338, 0.8146, 0.3102, 0.6403, 0.5528]) {
            assert!((got - want).abs() < 1e-12, "{:?}", claim_only.figures);
        }
        assert!(!claim_only.significant);
        let fcdecomp = verification(PaperPlanner::Fcdecomp).unwrap();
        assert!((fcdecomp.figures[5] - 0.5892).abs() < 1e-12);
        assert!(fcdecomp.significant);
        assert!(verification(PaperPlanner::Qgen).unwrap().significant);
        assert!(!verification(PaperPlanner::Pgmfc).unwrap().significant);
        assert_eq!(verification(PaperPlanner::Numeric), None);
        // Table 2's rows are not Table 5's: "Oracle" is found only under its own heading.
        assert_eq!(rows("Table 5").len(), 7);
        assert_eq!(rows("Table 4").len(), 9);
    }
}
