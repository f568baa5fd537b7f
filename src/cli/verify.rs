//! `quantir train-verifier`, `quantir verify`, `quantir verify-eval`.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use quantir::corpus::{load_claims, Format};
use quantir::eval::paired_t_test;
use quantir::index::Index;
use quantir::trec::Run;
use quantir::verify::trained::{cross_validate, prepare, FeatureGroups, LinearConfig, TrainConfig, TrainedVerifier};
use quantir::verify::{fold_macro_f1, read_evidence, read_examples, read_gold, read_predictions, score, Label, LabelSet, VerifyExample, VerifyScores};

use super::args::DenseArgs;
use super::progress::Bar;

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// Labelled claims with evidence: a QuanTemp evidence mapping (.json) or evidence JSONL
    #[arg(long, value_name = "PATH")]
    claims: PathBuf,
    /// Where the verifier goes (verifier.json, cv_predictions.jsonl, cv_scores.json)
    #[arg(long, value_name = "DIR")]
    output: PathBuf,
    /// Cross-validation folds (0: none)
    #[arg(long, default_value_t = 10)]
    folds: usize,
    /// Evidence texts per claim
    #[arg(long, default_value_t = 3)]
    top: usize,
    /// Ignore the evidence (the claim-only ablation)
    #[arg(long)]
    claim_only: bool,
    /// Feature groups, comma-separated: claim-text, evidence-text (character n-gram TF-IDF), dense
    /// (encoder vectors of claim and evidence), numeric (numeric consistency)
    #[arg(long, default_value = "claim-text,evidence-text", value_parser = FeatureGroups::parse)]
    features: FeatureGroups,
    /// Scale of the evidence text features against the claim's
    #[arg(long, default_value_t = 0.5)]
    evidence_weight: f32,
    /// Inverse L2 regularisation strength, as scikit-learn's LogisticRegression C
    #[arg(long, default_value_t = 1.0)]
    c: f32,
    /// Training epochs (full-batch Adam)
    #[arg(long, default_value_t = 200)]
    epochs: usize,
    /// Seed of the fold shuffle
    #[arg(long, default_value_t = 42)]
    seed: u64,
    #[command(flatten)]
    dense: DenseArgs,
}

pub fn train(args: TrainArgs) -> anyhow::Result<()> {
    let examples = read_examples(&args.claims)?;
    let encoder = if args.features.dense { Some(args.dense.encoder(Some(std::path::Path::new("models/all-minilm-l6-v2")))?.context("no encoder")?) } else { None };
    let config = TrainConfig {
        with_evidence: !args.claim_only,
        top: args.top,
        folds: args.folds,
        seed: args.seed,
        groups: args.features,
        evidence_weight: args.evidence_weight,
        linear: LinearConfig { epochs: args.epochs, c: args.c, ..Default::default() },
    };
    let started = std::time::Instant::now();
    let inputs = prepare(&examples, encoder.as_ref(), config.groups, config.with_evidence, config.top, &Bar::default())?;
    let encoded = started.elapsed().as_secs_f64();
    std::fs::create_dir_all(&args.output).with_context(|| format!("creating {}", args.output.display()))?;
    if args.folds > 0 {
        let report = cross_validate(&examples, &inputs, &config, &Bar::default())?;
        super::write_jsonl(&args.output.join("cv_predictions.jsonl"), &report.predictions)?;
        std::fs::write(args.output.join("cv_scores.json"), serde_json::to_string_pretty(&report.scores)?)?;
        println!("{}-fold cross-validation over {} claims ({}):", args.folds, examples.len(), if config.with_evidence { format!("claim + top-{} evidence", args.top) } else { "claim only".into() });
        print_scores(&report.scores);
    }
    let verifier = TrainedVerifier::train(&examples, &inputs, encoder.as_ref(), &config)?;
    verifier.save(&args.output)?;
    eprintln!("trained on {} claims in {:.1} s ({:.1} s preparing inputs) into {}", examples.len(), started.elapsed().as_secs_f64(), encoded, args.output.display());
    Ok(())
}

fn print_scores(s: &VerifyScores) {
    println!("accuracy     {:.4}\nmacro_f1     {:.4}\nweighted_f1  {:.4}", s.accuracy, s.macro_f1, s.weighted_f1);
    for label in Label::ALL {
        let c = &s.per_class[label.name()];
        println!("{:<12} precision {:.4} recall {:.4} f1 {:.4} support {}", label.name(), c.precision, c.recall, c.f1, c.support);
    }
    println!("confusion (gold rows, predicted columns; True False Conflicting): {:?}", s.confusion);
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Claims (quantir JSONL, BEIR, QuanTemp++) with --run/--index or --evidence, or, alone, claims
    /// with their evidence (QuanTemp evidence mapping or evidence JSONL)
    #[arg(long, value_name = "PATH")]
    claims: PathBuf,
    /// A run whose top documents are each claim's evidence
    #[arg(long, value_name = "RUN", requires = "index")]
    run: Option<PathBuf>,
    /// The index the run was made from (for the documents' text)
    #[arg(long, value_name = "DIR", requires = "run")]
    index: Option<PathBuf>,
    /// Evidence given per claim (CoverBench style): evidence JSONL {"id", "evidence": [...]} or a
    /// QuanTemp evidence mapping, matched to --claims by id
    #[arg(long, value_name = "PATH", conflicts_with = "run")]
    evidence: Option<PathBuf>,
    /// The verdicts allowed, comma-separated: true,false for a binary task (conflicting also
    /// spells not-enough-info)
    #[arg(long, default_value = "true,false,conflicting", value_parser = LabelSet::parse)]
    labels: LabelSet,
    /// Evidence texts per claim
    #[arg(long, default_value_t = 3)]
    top: usize,
    /// The verifier: trained:DIR (from quantir train-verifier), onnx:DIR (a sequence-classification
    /// ONNX model with quantir-verifier.json) or llm:MODEL (an OpenAI-compatible chat API, --llm-url)
    #[arg(long, value_name = "V")]
    verifier: String,
    /// Predictions: {"id", "label", "confidence", "evidence"} a line
    #[arg(long, value_name = "PATH")]
    output: PathBuf,
    #[command(flatten)]
    dense: DenseArgs,
    #[command(flatten)]
    llm: super::args::LlmArgs,
}

pub fn verify(args: VerifyArgs) -> anyhow::Result<()> {
    let examples = examples_for(&args)?;
    let predictions = if let Some(model) = args.verifier.strip_prefix("llm:") {
        let config = args.llm.config(Some(model)).context("an llm: verifier needs --llm-url (or QUANTIR_LLM_URL)")?;
        let verifier = quantir::verify::llm::LlmVerifier::new(quantir::plan::ChatClient::new(config)?, args.top, args.labels);
        let predictions = verifier.predict(&examples, &Bar::default())?;
        let unparsed = verifier.unparsed.load(std::sync::atomic::Ordering::Relaxed);
        if unparsed > 0 {
            eprintln!("{unparsed} claims got two malformed answers: predicted Conflicting with confidence 0");
        }
        predictions
    } else if let Some(dir) = args.verifier.strip_prefix("onnx:") {
        let verifier = quantir::verify::nli::NliVerifier::open(std::path::Path::new(dir), &args.dense.ort_lib, args.top)?;
        verifier.predict(&examples, args.labels, &Bar::default())?
    } else if let Some(dir) = args.verifier.strip_prefix("trained:") {
        let verifier = TrainedVerifier::load(std::path::Path::new(dir))?;
        let encoder = args.dense.verifier_encoder(&verifier)?;
        verifier.predict(&examples, encoder.as_ref(), args.top.min(verifier.top.max(1)), args.labels, &Bar::default())?
    } else {
        anyhow::bail!("unknown verifier {:?}: use trained:DIR, onnx:DIR or llm:MODEL\n\nhint: train one with `quantir train-verifier --claims data/quantemp-val/val_claimonly_evidence_question_mapping.json --output verifiers/quantemp`", args.verifier)
    };
    super::write_jsonl(&args.output, &predictions)?;
    eprintln!("verified {} claims into {}", predictions.len(), args.output.display());
    Ok(())
}

/// The claims and their evidence: from a run and its index, or given with the claims.
fn examples_for(args: &VerifyArgs) -> anyhow::Result<Vec<VerifyExample>> {
    let examples: Vec<VerifyExample> = match (&args.run, &args.index) {
        (Some(run), Some(index)) => {
            let index = Index::open(index)?;
            let run = Run::read_trec(run)?;
            let by_qid: HashMap<&str, Vec<&str>> = run.queries.iter().map(|l| (l.qid.as_str(), l.docs.iter().take(args.top).map(|d| d.docid.as_str()).collect())).collect();
            let claims = load_claims(&args.claims, Format::Auto, None)?;
            claims
                .iter()
                .map(|c| {
                    let evidence = by_qid.get(c.id.as_str()).into_iter().flatten().filter_map(|id| index.rank_of(id)).map(|r| index.stored_by_rank(r).map(|d| if d.title.is_empty() { d.text } else { format!("{} {}", d.title, d.text) })).collect::<Result<Vec<_>, _>>()?;
                    Ok(VerifyExample { id: c.id.clone(), claim: c.text.clone(), evidence, label: None })
                })
                .collect::<quantir::Result<_>>()?
        }
        _ => match &args.evidence {
            Some(path) => {
                let given = read_evidence(path)?;
                load_claims(&args.claims, Format::Auto, None)?
                    .iter()
                    .map(|c| match given.get(&c.id) {
                        Some(evidence) => Ok(VerifyExample { id: c.id.clone(), claim: c.text.clone(), evidence: evidence.clone(), label: None }),
                        None => anyhow::bail!("{}: no evidence for claim {:?} of {}", path.display(), c.id, args.claims.display()),
                    })
                    .collect::<anyhow::Result<_>>()?
            }
            None => read_examples(&args.claims)?,
        },
    };
    Ok(examples)
}

#[derive(Debug, Args)]
pub struct VerifyEvalArgs {
    /// Gold labels: JSONL {"id", "label"} or a QuanTemp evidence mapping (.json)
    #[arg(long, value_name = "PATH")]
    gold: PathBuf,
    /// Predictions JSONL
    #[arg(long, value_name = "PATH")]
    pred: PathBuf,
    /// A second predictions file: paired t-test on per-fold macro-F1 against --pred
    #[arg(long, value_name = "PATH", requires = "folds")]
    pred_b: Option<PathBuf>,
    /// Folds for the paired t-test (the claims in id order, cut into equal parts)
    #[arg(long)]
    folds: Option<usize>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

fn pairs(gold: &HashMap<String, Label>, pred: &PathBuf) -> anyhow::Result<Vec<(String, Label, Label)>> {
    let predictions = read_predictions(pred)?;
    let mut out = Vec::with_capacity(predictions.len());
    for p in predictions {
        let g = gold.get(&p.id).with_context(|| format!("{}: claim {} has no gold label", pred.display(), p.id))?;
        out.push((p.id, *g, p.label));
    }
    // Claims in id order (numerically when ids are numbers), so folds are the same for any file.
    out.sort_by(|a, b| match (a.0.parse::<u64>(), b.0.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        _ => a.0.cmp(&b.0),
    });
    Ok(out)
}

pub fn eval(args: VerifyEvalArgs) -> anyhow::Result<()> {
    let gold = read_gold(&args.gold)?;
    let a = pairs(&gold, &args.pred)?;
    let labels = |v: &[(String, Label, Label)]| v.iter().map(|(_, g, p)| (*g, *p)).collect::<Vec<_>>();
    let scores = score(&labels(&a));
    let mut json = serde_json::to_value(&scores)?;
    if let (Some(b), Some(folds)) = (&args.pred_b, args.folds) {
        let b = pairs(&gold, b)?;
        anyhow::ensure!(a.iter().map(|x| &x.0).eq(b.iter().map(|x| &x.0)), "--pred and --pred-b must predict the same claims");
        let (fa, fb) = (fold_macro_f1(&labels(&a), folds), fold_macro_f1(&labels(&b), folds));
        let diffs: Vec<f64> = fb.iter().zip(&fa).map(|(y, x)| y - x).collect();
        let p = paired_t_test(&diffs);
        json["folds"] = serde_json::json!({ "k": folds, "macro_f1_a": fa, "macro_f1_b": fb, "t_test_p": p });
        if !args.json {
            println!("paired t-test over {folds} folds of macro-F1: mean A {:.4}, mean B {:.4}, p = {p:.4}", fa.iter().sum::<f64>() / folds as f64, fb.iter().sum::<f64>() / folds as f64);
        }
    }
    if args.json {
        println!("{json}");
    } else {
        print_scores(&scores);
    }
    Ok(())
}
