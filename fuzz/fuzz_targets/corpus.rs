//! Corpus loading in every format and name the loaders detect: any input is an error or a
//! corpus, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quantir::corpus::{load_corpus, Format};

#[path = "common.rs"]
mod common;

const FORMATS: [Format; 4] = [Format::Auto, Format::Jsonl, Format::Beir, Format::Quantemp];
const NAMES: [&str; 3] = ["corpus.jsonl", "corpus.json", "docs.txt"];

fuzz_target!(|data: &[u8]| common::each_format(data, &NAMES, &FORMATS, |path, format| {
    let _ = load_corpus(path, format);
}));
