//! QuanTemp++: `corpus.json` is one object `{"<id>": {"title", "snippet", "date", "link"|"url",
//! "text"?}}`; a claims file `{split}.json` is a list of objects with the claim in `claim` and its
//! date in `published`, identified by position in the list (as `{split}_qrels.json` keys them).
//!
//! The indexed body is the snippet, or `text` when a record has it, as in the reference code.

use std::borrow::Cow;

use super::fields::Fields;
use super::load::{RawClaim, RawDocument};
use crate::error::Result;

pub(super) fn document(key: &str, fields: &Fields) -> Result<RawDocument> {
    let text = match fields.optional_str("text")? {
        Some(text) if !text.trim().is_empty() => text,
        _ => fields.required_str("snippet")?,
    };
    let url = match fields.optional_str("link")? {
        Some(link) => Some(link),
        None => fields.optional_str("url")?,
    };
    Ok(RawDocument {
        id: key.to_string(),
        title: fields.optional_str("title")?.unwrap_or_default().into_owned(),
        text: text.into_owned(),
        url: url.map(Cow::into_owned),
        date: fields.raw_date("date")?,
    })
}

pub(super) fn claim<'a>(index: &str, fields: &Fields<'a>) -> Result<RawClaim<'a>> {
    Ok(RawClaim {
        id: index.to_string(),
        text: fields.required_str("claim")?,
        date: fields.optional_str("published")?.map(|d| ("published", d)),
    })
}
