//! Decomposition files (quantir JSONL, QuanTemp++ JSON with each field, ClaimDecomp/QGen CSV):
//! never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quantir::plan::{read_plan_file, Decomposition};

#[path = "common.rs"]
mod common;

const CHOICES: [(&str, Option<Decomposition>); 6] = [
    ("plan.jsonl", None),
    ("claims.json", None),
    ("claims.json", Some(Decomposition::ClaimDecomp)),
    ("claims.json", Some(Decomposition::PgmFc)),
    ("claims.json", Some(Decomposition::FcDecomp)),
    ("qgen.csv", None),
];

fuzz_target!(|data: &[u8]| {
    let (choice, data) = common::pick(data, CHOICES.len());
    let (name, field) = CHOICES[choice];
    let _ = read_plan_file(&common::scratch(name, data), field);
});
