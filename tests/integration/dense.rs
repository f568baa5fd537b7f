//! Dense retrieval with the real int8 all-MiniLM-L6-v2 from `scripts/setup_models.sh`.

use std::path::PathBuf;

use quantir::index::dense::{Encoder, EncoderConfig, TextKind};

use crate::util::repo;

/// The model folder and the ONNX Runtime library; missing ones fail with the install hint.
pub fn model() -> (PathBuf, PathBuf) {
    let dir = repo().join("models/all-minilm-l6-v2");
    let lib = repo().join("models/onnxruntime/libonnxruntime.so");
    assert!(dir.join("model.int8.onnx").exists() && lib.exists(), "models are missing\n\nhint: run scripts/setup_models.sh (scripts/test.sh does)");
    (dir, lib)
}

pub fn encoder() -> Encoder {
    let (dir, lib) = model();
    Encoder::open(&dir, EncoderConfig::read(&dir).unwrap(), &lib, 2, 32).unwrap()
}

#[test]
fn embeddings_equal_the_reference_within_1e_3_cosine() {
    let reference: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(repo().join("tests/fixtures/oracle/minilm_reference.json")).unwrap()).unwrap();
    let sentences: Vec<&str> = reference["sentences"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    let (vectors, dim) = encoder().encode(&sentences, TextKind::Passage).unwrap();
    assert_eq!(dim, 384);
    for (i, expected) in reference["vectors"].as_array().unwrap().iter().enumerate() {
        let expected: Vec<f64> = expected.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        let ours = &vectors[i * dim..(i + 1) * dim];
        let cosine: f64 = ours.iter().zip(&expected).map(|(a, b)| f64::from(*a) * b).sum();
        let norm: f64 = ours.iter().map(|a| f64::from(*a).powi(2)).sum::<f64>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "normalised");
        assert!(cosine >= 1.0 - 1e-3, "{:?}: cosine {cosine}", sentences[i]);
    }
}

#[test]
fn batching_does_not_change_vectors() {
    let e = encoder();
    let texts = ["a", "a much longer sentence about 41 homicides per 100,000 people in 2016", "3%"];
    let (together, dim) = e.encode(&texts, TextKind::Passage).unwrap();
    for (i, t) in texts.iter().enumerate() {
        let (alone, _) = e.encode(&[t], TextKind::Passage).unwrap();
        let cosine: f32 = alone.iter().zip(&together[i * dim..(i + 1) * dim]).map(|(a, b)| a * b).sum();
        assert!(cosine > 0.9999, "{t}: {cosine}");
    }
}
