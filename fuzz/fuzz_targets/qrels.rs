//! Qrels in every layout: never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quantir::trec::{Qrels, QrelsFormat};

#[path = "common.rs"]
mod common;

const FORMATS: [QrelsFormat; 4] = [QrelsFormat::Auto, QrelsFormat::Trec, QrelsFormat::Beir, QrelsFormat::Quantemp];
const NAMES: [&str; 3] = ["test.qrels", "test_qrels.json", "test.tsv"];

fuzz_target!(|data: &[u8]| common::each_format(data, &NAMES, &FORMATS, |path, format| {
    let _ = Qrels::read(path, format);
}));
