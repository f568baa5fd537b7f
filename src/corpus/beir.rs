//! BEIR: `corpus.jsonl` lines `{"_id", "title", "text", "metadata"}` and `queries.jsonl` lines
//! `{"_id", "text", "metadata"}`. BEIR has no dates: its documents are undated.

use super::fields::Fields;
use super::load::{RawClaim, RawDocument};
use crate::error::Result;

pub(super) fn document(fields: &Fields) -> Result<RawDocument> {
    Ok(RawDocument {
        id: fields.id("_id")?,
        title: fields.optional_str("title")?.unwrap_or_default().into_owned(),
        text: fields.required_str("text")?.into_owned(),
        url: None,
        date: None,
    })
}

pub(super) fn claim<'a>(fields: &Fields<'a>) -> Result<RawClaim<'a>> {
    Ok(RawClaim { id: fields.id("_id")?, text: fields.required_str("text")?, date: None })
}
