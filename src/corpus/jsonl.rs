//! quantir JSONL: `{"id", "title"?, "text", "date"?, "url"?}` documents and
//! `{"id", "text", "date"?}` claims, one object a line.

use std::borrow::Cow;

use super::fields::Fields;
use super::load::{RawClaim, RawDocument};
use crate::error::Result;

pub(super) fn document(fields: &Fields) -> Result<RawDocument> {
    Ok(RawDocument {
        id: fields.id("id")?,
        title: fields.optional_str("title")?.unwrap_or_default().into_owned(),
        text: fields.required_str("text")?.into_owned(),
        url: fields.optional_str("url")?.map(Cow::into_owned),
        date: fields.raw_date("date")?,
    })
}

pub(super) fn claim<'a>(fields: &Fields<'a>) -> Result<RawClaim<'a>> {
    Ok(RawClaim { id: fields.id("id")?, text: fields.required_str("text")?, date: fields.optional_str("date")?.map(|d| ("date", d)) })
}
