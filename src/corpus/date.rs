//! Publication dates, which may be exact days or only a month or a year.
//!
//! Accepted forms (leading/trailing space ignored, month names in English, any case):
//!
//! | form | example | precision |
//! |---|---|---|
//! | ISO date, ISO/RFC 3339 datetime | `2022-03-21`, `2022-03-21T10:00:00Z`, `2022-03-21 10:00:00` | day |
//! | slashed | `2022/03/21` | day |
//! | month name first | `Mar 21, 2022`, `March 21, 2022`, `Mar 21 2022` | day |
//! | day first | `21 Mar 2022`, `21 March 2022` | day |
//! | RFC 2822 | `Mon, 21 Mar 2022 10:00:00 +0000` | day |
//! | year-month | `2022-03`, `2022/03`, `Mar 2022`, `March 2022` | month |
//! | year | `2022` | year |
//!
//! A datetime keeps the calendar date *as written*: its offset is not converted, because the day
//! the source printed is the day it claims to have published.
//!
//! Anything else (`yesterday`, `32/13/2020`, `sometime in 2019`) is not a date: the loader counts
//! the document as *undated* and never guesses.
//!
//! **Partial dates and the cutoff.** A month or year stands for an interval of days. A document
//! can only be shown to predate a claim if its whole interval does, so for the cutoff a document
//! counts as published on the *last* day of its interval ([`PubDate::last_day`]), and a claim
//! dated only by month or year cuts off at the *first* day of its interval
//! ([`PubDate::first_day`]). A document from "2021-03" is therefore evidence for a claim of
//! 2021-04-01 or later, not for one of 2021-03-31.

use chrono::{Datelike, NaiveDate};

/// How much of a date its source gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// Only the year.
    Year,
    /// Year and month.
    Month,
    /// A calendar day.
    Day,
}

/// A publication date: the first day of the period its source named, and that period's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PubDate {
    first: NaiveDate,
    precision: Precision,
}

/// Day number used to compare dates: days since 1970-01-01 (negative before).
pub type DayNumber = i32;

const MONTH_DAY_YEAR: &[&str] =
    &["%b %d, %Y", "%b %d %Y", "%d %b %Y", "%d %b, %Y", "%B %d, %Y", "%B %d %Y", "%d %B %Y", "%d %B, %Y"];

impl PubDate {
    /// A date with day precision.
    pub fn day(date: NaiveDate) -> Self {
        PubDate { first: date, precision: Precision::Day }
    }

    /// Parses one of the documented forms; `None` when the text is not one of them.
    pub fn parse(text: &str) -> Option<PubDate> {
        let text = text.trim();
        if text.is_empty() || text.len() > 64 {
            return None;
        }
        // chrono reads "%Y" greedily and "Mar 2022" as "Mar 20, 22": each form must give a
        // four-digit year to count.
        let plausible = |d: &NaiveDate| (1000..=9999).contains(&d.year());
        parse_day(text)
            .filter(plausible)
            .map(PubDate::day)
            .or_else(|| parse_month(text).filter(plausible).map(|first| PubDate { first, precision: Precision::Month }))
            .or_else(|| parse_year(text).filter(plausible).map(|first| PubDate { first, precision: Precision::Year }))
    }

    /// The precision the source gave.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The first day of the period (the day itself for day precision).
    pub fn first_day(&self) -> NaiveDate {
        self.first
    }

    /// The last day of the period (the day itself for day precision).
    pub fn last_day(&self) -> NaiveDate {
        match self.precision {
            Precision::Day => self.first,
            Precision::Month => {
                let next = if self.first.month() == 12 {
                    NaiveDate::from_ymd_opt(self.first.year() + 1, 1, 1)
                } else {
                    NaiveDate::from_ymd_opt(self.first.year(), self.first.month() + 1, 1)
                };
                next.and_then(|d| d.pred_opt()).expect("month within chrono's range")
            }
            Precision::Year => NaiveDate::from_ymd_opt(self.first.year(), 12, 31).expect("valid year"),
        }
    }

    /// [`Self::last_day`] as a [`DayNumber`]: the key a document is filtered by.
    pub fn last_day_number(&self) -> DayNumber {
        day_number(self.last_day())
    }

    /// [`Self::first_day`] as a [`DayNumber`]: the key a claim's cutoff is set by.
    pub fn first_day_number(&self) -> DayNumber {
        day_number(self.first)
    }
}

/// Days since 1970-01-01.
pub fn day_number(date: NaiveDate) -> DayNumber {
    (date - NaiveDate::from_ymd_opt(1970, 1, 1).expect("epoch")).num_days() as DayNumber
}

/// A date serialises as it displays (`2022-03-21`, `2022-03`, `2022`): the form it was read in.
impl serde::Serialize for PubDate {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl std::fmt::Display for PubDate {
    /// `2022-03-21`, `2022-03` or `2022`, by precision.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // chrono's `%Y-%m-%d` without parsing a format string for each date (an index build
        // writes one per document): its `%Y` is four digits for years 0–9999 (every parsed
        // date's) and signed otherwise.
        let (year, month, day) = (self.first.year(), self.first.month(), self.first.day());
        if (0..=9999).contains(&year) {
            write!(f, "{year:04}")?;
        } else {
            write!(f, "{}", self.first.format("%Y"))?;
        }
        match self.precision {
            Precision::Day => write!(f, "-{month:02}-{day:02}"),
            Precision::Month => write!(f, "-{month:02}"),
            Precision::Year => Ok(()),
        }
    }
}

impl std::str::FromStr for PubDate {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PubDate::parse(s).ok_or_else(|| format!("expected a date like 2021-03-21, found {s:?}"))
    }
}

fn parse_day(text: &str) -> Option<NaiveDate> {
    if let Ok(dt) = chrono::DateTime::parse_from_rfc3339(text) {
        return Some(dt.date_naive());
    }
    if let Ok(dt) = chrono::DateTime::parse_from_rfc2822(text) {
        return Some(dt.date_naive());
    }
    // ISO date, optionally followed by a time part ("T10:00", " 10:00:00", "T10:00:00.5+02:00").
    if text.len() >= 10 && text.is_char_boundary(10) {
        let (head, rest) = text.split_at(10);
        let time_follows = rest.is_empty() || rest.starts_with('T') || rest.starts_with(' ');
        if time_follows && (rest.is_empty() || is_time(&rest[1..])) {
            for format in ["%Y-%m-%d", "%Y/%m/%d"] {
                if let Ok(d) = NaiveDate::parse_from_str(head, format) {
                    return Some(d);
                }
            }
        }
    }
    MONTH_DAY_YEAR.iter().find_map(|format| NaiveDate::parse_from_str(text, format).ok())
}

/// `HH:MM[:SS[.frac]][Z|±HH[:MM]]`: the time part of an ISO datetime.
fn is_time(text: &str) -> bool {
    let text = text.trim();
    let body = text.trim_end_matches('Z');
    let body = match body.rfind(['+', '-']) {
        Some(i) if i >= 5 => &body[..i],
        _ => body,
    };
    let fields: Vec<&str> = body.split(':').collect();
    (2..=3).contains(&fields.len())
        && fields.iter().enumerate().all(|(i, f)| {
            let f = if i == 2 { f.split('.').next().unwrap_or("") } else { f };
            f.len() == 2 && f.bytes().all(|b| b.is_ascii_digit())
        })
}

fn parse_month(text: &str) -> Option<NaiveDate> {
    for sep in ['-', '/'] {
        if let Some((y, m)) = text.split_once(sep) {
            if y.len() == 4 && m.len() == 2 && all_digits(y) && all_digits(m) {
                return NaiveDate::from_ymd_opt(y.parse().ok()?, m.parse().ok()?, 1);
            }
        }
    }
    // "Mar 2022", "March 2022": chrono cannot parse a date without its day, so lend it one.
    let lent = format!("01 {text}");
    ["%d %b %Y", "%d %B %Y"].iter().find_map(|format| NaiveDate::parse_from_str(&lent, format).ok())
}

fn parse_year(text: &str) -> Option<NaiveDate> {
    if text.len() == 4 && all_digits(text) {
        NaiveDate::from_ymd_opt(text.parse().ok()?, 1, 1)
    } else {
        None
    }
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(s: &str) -> Option<String> {
        PubDate::parse(s).map(|d| d.to_string())
    }

    #[test]
    fn every_documented_form_parses() {
        for (text, want) in [
            ("2022-03-21", "2022-03-21"),
            ("2022-03-21T10:00:00", "2022-03-21"),
            ("2022-03-21T23:30:00-05:00", "2022-03-21"),
            ("2022-03-21T10:00:00Z", "2022-03-21"),
            ("2022-03-21 10:00:00", "2022-03-21"),
            ("2023-11-18T00:37:19", "2023-11-18"),
            ("2022/03/21", "2022-03-21"),
            ("Mar 21, 2022", "2022-03-21"),
            ("March 21, 2022", "2022-03-21"),
            ("march 21 2022", "2022-03-21"),
            ("21 Mar 2022", "2022-03-21"),
            ("21 March 2022", "2022-03-21"),
            ("Mon, 21 Mar 2022 10:00:00 +0000", "2022-03-21"),
            ("2022-03", "2022-03"),
            ("2022/03", "2022-03"),
            ("Mar 2022", "2022-03"),
            ("March 2022", "2022-03"),
            (" 2022 ", "2022"),
        ] {
            assert_eq!(show(text).as_deref(), Some(want), "{text}");
        }
    }

    /// The written form is chrono's `%Y-%m-%d` (`%Y-%m`, `%Y`) for every date, the years a
    /// parsed date cannot have included.
    #[test]
    fn display_is_chronos_format() {
        for (y, m, d) in [(2022, 3, 21), (1000, 1, 1), (9999, 12, 31), (999, 7, 4), (12, 2, 29), (0, 1, 1), (-44, 3, 15), (10000, 1, 1), (262_000, 5, 6)] {
            let first = NaiveDate::from_ymd_opt(y, m, d).expect("a valid date");
            for (precision, format) in [(Precision::Day, "%Y-%m-%d"), (Precision::Month, "%Y-%m"), (Precision::Year, "%Y")] {
                assert_eq!(PubDate { first, precision }.to_string(), first.format(format).to_string(), "{first} {precision:?}");
            }
        }
    }

    #[test]
    fn non_dates_are_not_guessed() {
        for text in ["", "unknown", "sometime in 2019", "32/13/2020", "2022-13-01", "2022-02-30", "yesterday", "22", "3 days ago", "2022-03-21garbage"] {
            assert_eq!(show(text), None, "{text}");
        }
    }

    #[test]
    fn partial_dates_span_their_period() {
        let march = PubDate::parse("2021-03").unwrap();
        assert_eq!(march.first_day().to_string(), "2021-03-01");
        assert_eq!(march.last_day().to_string(), "2021-03-31");
        let feb_leap = PubDate::parse("2020-02").unwrap();
        assert_eq!(feb_leap.last_day().to_string(), "2020-02-29");
        let december = PubDate::parse("2019-12").unwrap();
        assert_eq!(december.last_day().to_string(), "2019-12-31");
        let year = PubDate::parse("2019").unwrap();
        assert_eq!((year.first_day().to_string(), year.last_day().to_string()), ("2019-01-01".into(), "2019-12-31".into()));
    }

    #[test]
    fn day_numbers_start_at_the_epoch() {
        assert_eq!(PubDate::parse("1970-01-02").unwrap().last_day_number(), 1);
        assert_eq!(PubDate::parse("1969-12-31").unwrap().first_day_number(), -1);
    }
}
