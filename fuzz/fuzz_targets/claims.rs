//! Claim loading in every format: any input is an error or claims, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quantir::corpus::{load_claims, Format};

#[path = "common.rs"]
mod common;

const FORMATS: [Format; 4] = [Format::Auto, Format::Jsonl, Format::Beir, Format::Quantemp];
const NAMES: [&str; 3] = ["claims.jsonl", "test.json", "queries.jsonl"];

fuzz_target!(|data: &[u8]| common::each_format(data, &NAMES, &FORMATS, |path, format| {
    let _ = load_claims(path, format, None);
}));
