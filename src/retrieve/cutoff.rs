//! The temporal cutoff: only evidence published strictly before the claim.

use std::path::Path;

use crate::corpus::{DayNumber, PubDate};
use crate::error::{Error, Result};
use crate::index::Index;

/// What to do with documents that have no usable date when a cutoff is set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UndatedPolicy {
    /// Leave them out: an undated document cannot be shown to predate the claim.
    #[default]
    Exclude,
    /// Keep them, as the QuanTemp++ reference code does.
    Include,
}

/// Whether a batch run applies the temporal filter (`--temporal-filter`): QuanTemp++ reports
/// every planner with and without it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TemporalFilter {
    /// Each claim's own date is its cutoff (`--before` for claims without one).
    #[default]
    Claim,
    /// No cutoff at all: the whole collection, as a system that ignores time would search it.
    Off,
}

/// Which documents a search may return, by publication date.
///
/// With `before = Some(d)`, a document is admitted when the *last* day of its publication date is
/// strictly before the *first* day of `d` (see [`crate::corpus::date`] for partial dates), and an
/// undated document when `undated` is [`UndatedPolicy::Include`]. With `before = None` every
/// document is admitted, dated or not.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cutoff {
    /// Evidence must be published strictly before this date.
    pub before: Option<PubDate>,
    /// Undated documents under a cutoff.
    pub undated: UndatedPolicy,
}

impl Cutoff {
    /// No cutoff: every document is admitted.
    pub fn none() -> Self {
        Cutoff::default()
    }

    /// A cutoff at `before` with the given policy for undated documents.
    pub fn before(before: PubDate, undated: UndatedPolicy) -> Self {
        Cutoff { before: Some(before), undated }
    }

    /// The defence behind the cutoff: every hit of `index` (by id rank) must be one the cutoff
    /// admits, by the date its index records. Retrieval applies the cutoff inside the scorer, so
    /// a hit it does not admit can only come from a damaged index or a bug; it is an error
    /// ([`Error::CutoffViolation`]), never a result.
    pub fn check_hits(&self, index: &Index, ranks: impl IntoIterator<Item = u32>) -> Result<()> {
        if self.before.is_none() {
            return Ok(());
        }
        let compiled = self.compile();
        let keys = index.date_keys_by_rank();
        for rank in ranks {
            if !keys.get(rank as usize).is_some_and(|&key| compiled.admits(key)) {
                let stored = index.stored_by_rank(rank).ok();
                return Err(self.violation(index.path(), stored.as_ref().map_or_else(|| index.id(rank).to_string(), |s| s.id.clone()), stored.and_then(|s| s.date).as_deref()));
            }
        }
        Ok(())
    }

    /// The same defence on a hit's date as stored with it (`date`, as normalised at index time,
    /// or none): what a person reading the evidence sees. A stored date that does not parse is
    /// undated.
    pub fn check_stored(&self, index: &Path, id: &str, date: Option<&str>) -> Result<()> {
        if self.before.is_none() {
            return Ok(());
        }
        let key = date.and_then(PubDate::parse).map_or(DayNumber::MAX, |d| d.last_day_number());
        if self.compile().admits(key) {
            Ok(())
        } else {
            Err(self.violation(index, id.to_string(), date))
        }
    }

    fn violation(&self, index: &Path, id: String, date: Option<&str>) -> Error {
        Error::CutoffViolation {
            index: index.to_path_buf(),
            id,
            date: date.map_or_else(|| "undated".to_string(), str::to_string),
            before: self.before.map(|d| d.to_string()).unwrap_or_default(),
        }
    }

    /// The test in day numbers, ready for the selection loop.
    pub(crate) fn compile(&self) -> CompiledCutoff {
        CompiledCutoff {
            before: self.before.map_or(DayNumber::MAX, |d| d.first_day_number()),
            active: self.before.is_some(),
            include_undated: self.undated == UndatedPolicy::Include,
        }
    }
}

/// [`Cutoff`] as two integer comparisons.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CompiledCutoff {
    before: DayNumber,
    active: bool,
    include_undated: bool,
}

impl CompiledCutoff {
    /// Whether a document whose `date_key` (last publication day, or `DayNumber::MAX` when
    /// undated) is admitted.
    #[inline]
    pub fn admits(&self, date_key: DayNumber) -> bool {
        if !self.active {
            true
        } else if date_key == DayNumber::MAX {
            self.include_undated
        } else {
            date_key < self.before
        }
    }

    /// The documents of a date-sorted segment (its `date_keys` never decrease, undated
    /// [`DayNumber::MAX`] last) that [`CompiledCutoff::admits`]: the dated ones before the cutoff
    /// are a prefix, and the undated ones, when kept, the suffix. Two ranges of document
    /// numbers, either possibly empty; with no cutoff, the whole segment.
    pub fn ranges(&self, date_keys: &[DayNumber]) -> [std::ops::Range<u32>; 2] {
        let end = date_keys.len() as u32;
        if !self.active {
            return [0..end, end..end];
        }
        let dated = date_keys.partition_point(|&key| key != DayNumber::MAX && key < self.before) as u32;
        let undated = if self.include_undated { date_keys.partition_point(|&key| key != DayNumber::MAX) as u32 } else { end };
        [0..dated, undated..end]
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// On sorted keys, a document lies in [`CompiledCutoff::ranges`] exactly when the
        /// cutoff admits it.
        #[test]
        fn ranges_hold_exactly_the_admitted(mut keys in proptest::collection::vec(prop_oneof![0..40i32, Just(DayNumber::MAX)], 0..60), day in 1..=31u32, active: bool, include: bool) {
            keys.sort_unstable();
            let date = PubDate::parse(&format!("2000-01-{day:02}")).unwrap();
            let base = date.first_day_number() - day as DayNumber;
            let keys: Vec<DayNumber> = keys.into_iter().map(|k| if k == DayNumber::MAX { k } else { base + k }).collect();
            let undated = if include { UndatedPolicy::Include } else { UndatedPolicy::Exclude };
            let cutoff = if active { Cutoff::before(date, undated) } else { Cutoff::none() }.compile();
            let ranges = cutoff.ranges(&keys);
            for (doc, &key) in keys.iter().enumerate() {
                let inside = ranges.iter().any(|r| r.contains(&(doc as u32)));
                prop_assert_eq!(inside, cutoff.admits(key), "doc {} key {}", doc, key);
            }
        }
    }

    fn key(s: &str) -> DayNumber {
        PubDate::parse(s).unwrap().last_day_number()
    }

    #[test]
    fn strictly_before_and_partial_dates() {
        let cut = Cutoff::before(PubDate::parse("2021-04-01").unwrap(), UndatedPolicy::Exclude).compile();
        assert!(cut.admits(key("2021-03-31")));
        assert!(!cut.admits(key("2021-04-01")), "the claim's own day is not before it");
        assert!(cut.admits(key("2021-03")), "March ends before April 1");
        assert!(!cut.admits(key("2021")), "2021 may be after April 1");
        assert!(!cut.admits(DayNumber::MAX));
        let month_claim = Cutoff::before(PubDate::parse("2021-04").unwrap(), UndatedPolicy::Include).compile();
        assert!(!month_claim.admits(key("2021-04-01")), "a claim dated April may be from April 1");
        assert!(month_claim.admits(DayNumber::MAX));
        assert!(Cutoff::none().compile().admits(DayNumber::MAX));
    }

    #[test]
    fn stored_dates_on_or_after_the_cutoff_are_errors() {
        let cut = Cutoff::before(PubDate::parse("2016-11-02").unwrap(), UndatedPolicy::Exclude);
        let index = Path::new("idx");
        cut.check_stored(index, "a", Some("2016-11-01")).unwrap();
        let err = cut.check_stored(index, "b", Some("2017-10-24")).unwrap_err();
        assert!(matches!(&err, Error::CutoffViolation { id, date, .. } if id == "b" && date == "2017-10-24"), "{err}");
        assert!(err.to_string().contains("before 2016-11-02") && err.to_string().contains("hint:"), "{err}");
        assert!(cut.check_stored(index, "c", None).is_err(), "undated, excluded");
        assert!(cut.check_stored(index, "d", Some("garbled")).is_err(), "an unreadable stored date is undated");
        Cutoff::before(PubDate::parse("2016-11-02").unwrap(), UndatedPolicy::Include).check_stored(index, "c", None).unwrap();
        Cutoff::none().check_stored(index, "b", Some("2017-10-24")).unwrap();
    }
}
