//! TREC run parsing, and the evaluation of what parses against qrels read from the same bytes:
//! never a panic, and every score that parses is finite.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quantir::eval::{evaluate_with, Completeness, Measure, Settings};
use quantir::trec::{parse_trec, Qrels, QrelsFormat};

#[path = "common.rs"]
mod common;

fuzz_target!(|data: &[u8]| {
    let path = common::scratch("run.trec", data);
    let Ok(text) = std::str::from_utf8(data) else {
        assert!(quantir::trec::Run::read_trec(&path).is_err(), "non-UTF-8 is an error");
        return;
    };
    let Ok(run) = parse_trec(&path, text) else { return };
    assert!(run.queries.iter().flat_map(|q| &q.docs).all(|(_, s)| s.is_finite()));
    let qrels = Qrels::read(&common::scratch("q.qrels", data), QrelsFormat::Trec).unwrap_or_default();
    let measures = Measure::parse_list("iprec_at_recall").unwrap().into_iter().chain([Measure::Bpref, Measure::Ndcg, Measure::Judged(3), Measure::SetF]).collect::<Vec<_>>();
    let settings = Settings { completeness: Completeness::Complete, relevance_level: 1, max_docs: 5 };
    let e = evaluate_with(&run, &qrels, &measures, &settings);
    assert!(e.mean.iter().all(|v| v.is_finite()));
});
