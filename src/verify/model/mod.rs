//! quantir's own trained verifier ([`trained`]): what works out of the box, with no model to
//! download and no API to call.
//!
//! - [`text`]: character n-gram TF-IDF of claim and evidence.
//! - `features`: the feature groups (n-grams; on request dense-encoder similarities and the
//!   numeric-consistency signals of [`crate::analysis::quantity`]).
//! - `linear`: a multinomial logistic regression over them.
//! - [`calibrate`]: temperature scaling, reliability bins and selective-prediction curves.
//! - [`abstain`]: Not Enough Info when the evidence does not bear on the claim or the verdict is
//!   unsure, with thresholds chosen on held-out folds.
//! - [`stance`]: each evidence text's stance on the claim (supports, refutes, does not bear on
//!   it) from the encoder's vectors, and a verdict aggregated from the stances.
//! - [`trained`]: training (cross-validated), saving and loading the whole.
//!
//! Uses only [`crate::verify`]'s vocabulary and [`super::evidence`]; nothing here knows of the
//! other verifiers or of the pipeline.

pub mod abstain;
pub mod calibrate;
mod features;
mod linear;
pub mod stance;
pub mod text;
pub mod trained;
