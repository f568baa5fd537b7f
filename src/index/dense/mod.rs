//! The dense side of an index: a sentence encoder, the stored vectors and an HNSW graph.
//!
//! ```text
//! DIR/dense/vectors.f32   one vector per document, row i = id rank i (format in vectors.rs)
//! DIR/dense/hnsw.*        the HNSW graph when built with --hnsw (hnsw_rs dump files)
//! ```
//! The manifest's `dense` entry records the encoder (name, dimension, pooling, normalisation, max
//! length) and the HNSW parameters; searching with another encoder is refused.

pub mod encode;
pub mod encoder;
pub mod hnsw;
pub mod models;
pub mod vectors;

pub use encoder::{Device, Encoder, EncoderConfig, Pooling, TextKind};
pub use hnsw::HnswGraph;
pub use vectors::{VectorDtype, Vectors};
