//! `quantir train-verifier`, `quantir verify`, `quantir verify-eval`.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use quantir::corpus::{load_claims, Format};
use quantir::eval::paired_t_test;
use quantir::index::Index;
use quantir::trec::Run;
use quantir::verify::calibrate;
use quantir::verify::pipeline::{examples_from_run, AbstainWith, Pipeline, VerifierSetup, ABSTENTION_FILE};
use quantir::verify::trained::{cross_validate, FeatureGroups, LinearConfig, TrainConfig, TrainedVerifier, TrainingSet};
use quantir::verify::agent::{DatabaseAgent, MAX_TOOL_CALLS};
use quantir::verify::llm::{ContextPolicy, TableStyle};
use quantir::verify::sql::{DatabaseSource, SqlLimits};
use quantir::verify::{fold_macro_f1, nei_categories, read_evidence, read_examples, read_gold, read_predictions, score_outcomes, Gold, Label, LabelSet, Prediction, ToolCallStats, VerifierSpec, VerifyExample, VerifyScores};

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
    /// Cross-validation folds, 2 to 1000 (0: none)
    #[arg(long, default_value_t = 10, value_parser = parse_folds)]
    folds: usize,
    /// Evidence texts per claim, 1 to 100
    #[arg(long, default_value_t = 3, value_parser = super::args::ranged(quantir::ranges::TOP))]
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
    /// Training epochs (full-batch Adam), 1 to 100000
    #[arg(long, default_value_t = 200, value_parser = super::args::count(1, 100_000))]
    epochs: usize,
    /// Seed of the fold shuffle
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Keep the model's own probabilities (no temperature fitted)
    #[arg(long)]
    no_calibrate: bool,
    /// Fit no abstention rule (abstention.json)
    #[arg(long)]
    no_abstain: bool,
    /// Folds of the inner cross-validation that fits the temperature and the abstention rule
    #[arg(long, default_value_t = 5, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..=100))]
    inner_folds: usize,
    #[command(flatten)]
    dense: DenseArgs,
}

pub fn train(args: TrainArgs) -> anyhow::Result<()> {
    super::check_output("--output", &args.output, &[&args.claims], &[])?;
    let examples = read_examples(&args.claims)?;
    let encoder = if args.features.dense { Some(args.dense.encoder(Some(std::path::Path::new(super::models::DEFAULT_MODEL)))?.context("no encoder")?) } else { None };
    let config = TrainConfig {
        with_evidence: !args.claim_only,
        top: args.top,
        folds: args.folds,
        seed: args.seed,
        groups: args.features,
        evidence_weight: args.evidence_weight,
        linear: LinearConfig { epochs: args.epochs, c: args.c, ..Default::default() },
        calibrate: !args.no_calibrate,
        abstain: !args.no_abstain,
        inner_folds: args.inner_folds,
    };
    let started = std::time::Instant::now();
    let set = TrainingSet::prepare(examples, encoder.as_ref(), &config, &Bar::default())?;
    let encoded = started.elapsed().as_secs_f64();
    std::fs::create_dir_all(&args.output).with_context(|| format!("creating {}", args.output.display()))?;
    if args.folds > 0 {
        let report = cross_validate(&set, &config, &Bar::default())?;
        super::write_jsonl(&args.output.join("cv_predictions.jsonl"), &report.predictions)?;
        super::write_jsonl(&args.output.join("cv_predictions_uncalibrated.jsonl"), &report.uncalibrated)?;
        if !report.swapped.is_empty() {
            super::write_jsonl(&args.output.join("cv_swapped_predictions.jsonl"), &report.swapped)?;
            super::write_jsonl(&args.output.join("cv_retrieved_negatives_predictions.jsonl"), &report.negatives)?;
        }
        let gold: Vec<Label> = set.examples.iter().map(|e| e.label.expect("training claims are labelled")).collect();
        let judged = |p: &[Prediction]| -> Vec<(Label, Prediction)> { gold.iter().copied().zip(p.iter().cloned()).collect() };
        let (own, raw) = (judged(&report.predictions), judged(&report.uncalibrated));
        let selective = calibrate::selective(&own.iter().map(|(g, p)| (*g, p)).collect::<Vec<_>>());
        let uncalibrated = calibrate::selective(&raw.iter().map(|(g, p)| (*g, p)).collect::<Vec<_>>());
        let nei_rate = |p: &[Prediction]| p.iter().filter(|p| p.label == Label::NotEnoughInfo).count() as f64 / p.len().max(1) as f64;
        let mut json = serde_json::to_value(&report.scores)?;
        json["calibration"] = serde_json::json!({"ece_before": uncalibrated.ece, "ece_after": selective.ece, "temperatures": report.folds.iter().map(|f| f.0).collect::<Vec<_>>()});
        if config.abstain {
            json["abstention"] = serde_json::json!({
                "coverage": selective.coverage,
                "nei_rate_own_evidence": nei_rate(&report.predictions),
                "nei_rate_swapped_evidence": nei_rate(&report.swapped),
                "nei_rate_retrieved_negatives": nei_rate(&report.negatives),
                "four_way": score_outcomes(&own.iter().map(|(g, p)| (*g, Some(p.label))).collect::<Vec<_>>()),
                "answered": selective.answered,
                "thresholds": report.folds.iter().map(|f| f.1).collect::<Vec<_>>(),
            });
        }
        json["risk_coverage"] = serde_json::to_value(&selective.curve)?;
        quantir::io::write_replacing(&args.output.join("cv_scores.json"), serde_json::to_string_pretty(&json)?.as_bytes())?;
        println!("{}-fold cross-validation over {} claims ({}):", args.folds, set.examples.len(), if config.with_evidence { format!("claim + top-{} evidence", args.top) } else { "claim only".into() });
        print_scores(&report.scores);
        println!("calibration  ECE {:.4} before, {:.4} after{}", uncalibrated.ece, selective.ece, if config.calibrate { "" } else { " (not calibrated)" });
        print_selective(&selective);
        if config.abstain {
            println!("swapped      Not Enough Info for {:.1}% of the claims with their own evidence, {:.1}% with a random other claim's, {:.1}% with other claims' texts retrieved for it", 100.0 * nei_rate(&report.predictions), 100.0 * nei_rate(&report.swapped), 100.0 * nei_rate(&report.negatives));
        }
    }
    let (verifier, rule) = TrainedVerifier::train(&set, encoder.as_ref(), &config)?;
    // The previous rule goes first and the new one last, so an interrupted save leaves a verifier
    // without a rule (which --abstain refuses), never one with another model's rule.
    let rule_path = args.output.join(ABSTENTION_FILE);
    if rule_path.exists() {
        std::fs::remove_file(&rule_path).with_context(|| format!("removing the previous {}", rule_path.display()))?;
    }
    verifier.save(&args.output)?;
    if let Some(rule) = &rule {
        quantir::io::write_replacing(&rule_path, serde_json::to_string_pretty(rule)?.as_bytes())?;
    }
    {
        use quantir::provenance::{Artifact, Input, Provenance, Role};
        let counts = [("claims".to_string(), set.examples.len() as u64)].into();
        let mut inputs = vec![Input::file(Role::TrainingClaims, &args.claims)?];
        if let Some(encoder) = &encoder {
            inputs.push(Input::file(Role::Model, &encoder.dir().join(&encoder.config().model))?);
        }
        Provenance::new(Artifact::Verifier, inputs, &config).with_counts(counts).write_into(&args.output, "verifier.json")?;
    }
    if let Some(rule) = &rule {
        eprintln!("abstention rule: Not Enough Info below relevance {:.3} or confidence {:.2} (held-out 4-way macro-F1 {:.4})", rule.min_relevance, rule.min_confidence, rule.macro_f1);
    }
    eprintln!("trained on {} claims in {:.1} s ({:.1} s preparing inputs) into {}", set.examples.len(), started.elapsed().as_secs_f64(), encoded, args.output.display());
    Ok(())
}

/// Coverage, the verdicts given and the risk–coverage points at 80% and 50%.
fn print_selective(s: &calibrate::SelectiveReport) {
    if s.withheld > 0 {
        let answered = s.answered.as_ref().map_or(String::from("none given"), |a| format!("accuracy {:.4}, macro_f1 {:.4}", a.accuracy, a.macro_f1));
        println!("abstention   coverage {:.4} ({} withheld as Not Enough Info); verdicts given: {answered}", s.coverage, s.withheld);
    }
    for point in s.curve.iter().filter(|p| p.target == 0.8 || p.target == 0.5) {
        println!("selective    at coverage {:.2} ({} of {} claims, confidence >= {:.3}): accuracy {:.4}, macro_f1 {:.4}", point.target, point.kept, s.verdicts.examples, point.threshold, point.scores.accuracy, point.scores.macro_f1);
    }
}

fn print_scores(s: &VerifyScores) {
    println!("accuracy     {:.4}\nmacro_f1     {:.4}\nweighted_f1  {:.4}", s.accuracy, s.macro_f1, s.weighted_f1);
    for name in &s.labels {
        let c = &s.per_class[name];
        println!("{:<16} precision {:.4} recall {:.4} f1 {:.4} support {}", name, c.precision, c.recall, c.f1, c.support);
    }
    println!("confusion (gold rows, predicted columns; {}): {:?}", s.labels.join(", "), s.confusion);
    if s.failed > 0 {
        println!("failed runs  {} (counted wrong)", s.failed);
    }
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Claims (quantir JSONL, BEIR, QuanTemp++) with --run/--index or --evidence, or, alone, claims
    /// with their evidence (QuanTemp evidence mapping or evidence JSONL: CoverBench's and ClaimDB's
    /// records too)
    #[arg(long, value_name = "PATH")]
    claims: PathBuf,
    /// A run whose top documents are each claim's evidence
    #[arg(long, value_name = "RUN", requires = "index")]
    run: Option<PathBuf>,
    /// The index the run was made from (for the documents' text)
    #[arg(long, value_name = "DIR", requires = "run")]
    index: Option<PathBuf>,
    /// Evidence given per claim (CoverBench style): evidence JSONL {"id", "evidence": [...]} or
    /// {"id", "context"}, or a QuanTemp evidence mapping, matched to --claims by id
    #[arg(long, value_name = "PATH", conflicts_with = "run")]
    evidence: Option<PathBuf>,
    /// A database as the evidence (with --verifier llm:MODEL): a .sqlite file, a folder of .csv
    /// files (one table each, loaded into an in-memory SQLite) or a folder of databases picked by
    /// each claim's "db_id" (DIR/<db_id>/<db_id>.sqlite or DIR/<db_id>.sqlite)
    #[arg(long, value_name = "PATH", conflicts_with_all = ["run", "evidence"])]
    database: Option<PathBuf>,
    /// The verdicts allowed, comma-separated: true,false for a binary task (CoverBench),
    /// true,false,not-enough-info for ClaimDB [default: true,false,conflicting; with --database
    /// true,false,not-enough-info]
    #[arg(long, value_parser = LabelSet::parse)]
    labels: Option<LabelSet>,
    /// Evidence texts per claim, 1 to 100
    #[arg(long, default_value_t = 3, value_parser = super::args::ranged(quantir::ranges::TOP))]
    top: usize,
    /// The verifier: trained:DIR (from quantir train-verifier), onnx:DIR (a sequence-classification
    /// ONNX model with quantir-verifier.json) or llm:MODEL (an OpenAI-compatible chat API, --llm-url)
    #[arg(long, value_name = "V")]
    verifier: VerifierSpec,
    /// Predictions: {"id", "label", "confidence", "evidence"} a line (and "sql", "tool_calls",
    /// "refused", "failure" from the database agent)
    #[arg(long, value_name = "PATH")]
    output: PathBuf,
    /// Token budget for an llm: verifier's evidence (estimated at 4 bytes a token; a longer
    /// context is trimmed from the beginning, as CoverBench does; 0: no limit), 0 to 10000000
    #[arg(long, default_value_t = ContextPolicy::default().max_tokens, value_name = "N", value_parser = super::args::count(0, 10_000_000))]
    context_tokens: usize,
    /// How an llm: verifier is sent tables in the evidence: as written, or each as a Markdown table
    #[arg(long, value_enum, default_value_t = TableStyle::Keep)]
    tables: TableStyle,
    /// Tool calls allowed per claim with --database (more is a failed run, as ClaimDB scores it)
    #[arg(long, default_value_t = MAX_TOOL_CALLS, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1000), value_name = "N")]
    max_tool_calls: usize,
    /// Seconds one SQL statement may run before it is interrupted
    #[arg(long, default_value_t = SqlLimits::default().timeout.as_secs_f64(), value_parser = parse_seconds, value_name = "S")]
    sql_timeout: f64,
    /// Rows of one SQL result sent to the model (the rest are marked as cut)
    #[arg(long, default_value_t = SqlLimits::default().max_rows, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000), value_name = "N")]
    sql_rows: usize,
    #[command(flatten)]
    abstain: AbstainArgs,
    #[command(flatten)]
    dense: DenseArgs,
    #[command(flatten)]
    llm: super::args::LlmArgs,
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err(format!("expected seconds in (0, 86400], found {text:?}")),
    }
}

pub fn verify(args: VerifyArgs) -> anyhow::Result<()> {
    if args.database.is_some() && args.abstain.with(false) != AbstainWith::Off {
        anyhow::bail!("--abstain and --abstention-rule do not apply with --database: the database agent answers Not Enough Info itself\n\nhint: leave them out");
    }
    let inputs: Vec<&std::path::Path> = [Some(args.claims.as_path()), args.run.as_deref(), args.evidence.as_deref(), args.database.as_deref()].into_iter().flatten().collect();
    super::check_output("--output", &args.output, &inputs, &args.index.as_deref().into_iter().collect::<Vec<_>>())?;
    let labels = args.labels.unwrap_or_else(|| match args.database {
        Some(_) => LabelSet::parse("true,false,not-enough-info").expect("valid labels"),
        None => LabelSet::default(),
    });
    if let Some(database) = &args.database {
        let VerifierSpec::Llm(model) = &args.verifier else {
            anyhow::bail!("--database needs an llm:MODEL verifier: only the tool-calling agent reads databases\n\nhint: --verifier llm:MODEL --llm-url URL");
        };
        let config = args.llm.config(Some(model)).context("an llm: verifier needs --llm-url (or QUANTIR_LLM_URL)")?;
        let limits = SqlLimits { timeout: std::time::Duration::from_secs_f64(args.sql_timeout), max_rows: args.sql_rows, ..SqlLimits::default() };
        let source = DatabaseSource::open(database, limits)?;
        let examples = read_examples(&args.claims)?;
        let agent = DatabaseAgent::new(quantir::plan::ChatClient::new(config)?, source, labels, args.max_tool_calls);
        let predictions = agent.predict(&examples, &Bar::default())?;
        let failed = predictions.iter().filter(|p| p.failure.is_some()).count();
        let refused: usize = predictions.iter().map(|p| p.refused.len()).sum();
        let calls = ToolCallStats::of(predictions.iter().filter_map(|p| p.tool_calls));
        super::write_jsonl(&args.output, &predictions)?;
        record_predictions(&args, labels, &predictions)?;
        eprintln!(
            "verified {} claims against {} into {}: {} tool calls ({:.1} a claim), {refused} statements refused, {failed} failed runs",
            predictions.len(),
            database.display(),
            args.output.display(),
            calls.as_ref().map_or(0, |c| c.total),
            calls.as_ref().map_or(0.0, |c| c.mean)
        );
        return Ok(());
    }
    let examples = examples_for(&args)?;
    let setup = VerifierSetup { encoder: args.dense.options(), roots: super::models::roots(), llm: llm_config(&args.verifier, &args.llm)?, context: ContextPolicy { max_tokens: args.context_tokens, tables: args.tables }, top: args.top, labels };
    let pipeline = Pipeline::open(&args.verifier, &setup, &args.abstain.with(false))?;
    let predictions = pipeline.verify(&examples, &Bar::default())?;
    if let quantir::verify::pipeline::Verifier::Llm(v) = &pipeline.verifier {
        let unparsed = v.unparsed.load(std::sync::atomic::Ordering::Relaxed);
        if unparsed > 0 {
            eprintln!("{unparsed} claims got two malformed answers: predicted {} with confidence 0", labels.fallback().name());
        }
    }
    super::write_jsonl(&args.output, &predictions)?;
    record_predictions(&args, labels, &predictions)?;
    let withheld = predictions.iter().filter(|p| p.abstained.is_some()).count();
    eprintln!("verified {} claims into {}{}", predictions.len(), args.output.display(), if pipeline.abstention.is_some() { format!(" ({withheld} withheld as Not Enough Info)") } else { String::new() });
    Ok(())
}

/// The settings a predictions file's provenance records.
#[derive(serde::Serialize)]
struct VerifyRecord<'a> {
    verifier: &'a VerifierSpec,
    llm_model: Option<&'a str>,
    labels: LabelSet,
    top: usize,
    abstain: AbstainWith,
    context: ContextPolicy,
}

/// Records beside the predictions what made them: the claims, their evidence (a run and its
/// index, an evidence file or a database), the verifier's files, the settings.
fn record_predictions(args: &VerifyArgs, labels: LabelSet, predictions: &[Prediction]) -> anyhow::Result<()> {
    use quantir::provenance::{Input, Role};
    let mut inputs = vec![Input::file(Role::Claims, &quantir::corpus::claims_file(&args.claims, Format::Auto)?)?];
    if let (Some(run), Some(index)) = (&args.run, &args.index) {
        inputs.push(Input::file(Role::Run, run)?);
        let index = Index::open(index)?;
        inputs.push(Input::artifact(Role::Index, index.path(), index.fingerprint().clone()));
    }
    if let Some(evidence) = &args.evidence {
        inputs.push(Input::file(Role::Evidence, evidence)?);
    }
    if let Some(database) = args.database.as_deref().filter(|d| d.is_file()) {
        inputs.push(Input::file(Role::Evidence, database)?);
    }
    match &args.verifier {
        VerifierSpec::Trained(dir) => inputs.push(Input::file(Role::Verifier, &dir.join("verifier.json"))?),
        VerifierSpec::Onnx(dir) => inputs.push(Input::file(Role::Model, &dir.join("quantir-verifier.json"))?),
        VerifierSpec::Llm(_) => {}
    }
    let llm_model = match &args.verifier {
        VerifierSpec::Llm(model) => Some(model.as_str()),
        _ => None,
    };
    let settings = VerifyRecord { verifier: &args.verifier, llm_model, labels, top: args.top, abstain: args.abstain.with(false), context: ContextPolicy { max_tokens: args.context_tokens, tables: args.tables } };
    let withheld = predictions.iter().filter(|p| p.abstained.is_some()).count();
    super::record(&args.output, quantir::provenance::Artifact::Predictions, inputs, &settings, [("claims".to_string(), predictions.len() as u64), ("withheld".to_string(), withheld as u64)].into())
}

/// The chat API an `llm:` verifier asks (none for the others).
pub fn llm_config(spec: &VerifierSpec, llm: &super::args::LlmArgs) -> anyhow::Result<Option<quantir::plan::LlmConfig>> {
    match spec {
        VerifierSpec::Llm(model) => Ok(Some(llm.config(Some(model)).context("an llm: verifier needs --llm-url (or QUANTIR_LLM_URL)")?)),
        _ => Ok(None),
    }
}

/// `--abstain`, `--no-abstain` and `--abstention-rule`.
#[derive(Debug, Args)]
pub struct AbstainArgs {
    /// Answer Not Enough Info when the evidence does not bear on the claim or the verifier is
    /// unsure, by the trained verifier's own rule (DIR/abstention.json) or --abstention-rule's
    #[arg(long, conflicts_with = "no_abstain")]
    abstain: bool,
    /// Always give a verdict
    #[arg(long)]
    no_abstain: bool,
    /// The abstention rule to use (a trained verifier's folder or its abstention.json): how an
    /// onnx: or llm: verifier abstains
    #[arg(long, value_name = "PATH")]
    abstention_rule: Option<PathBuf>,
}

impl AbstainArgs {
    /// How to abstain, `default_on` when neither --abstain nor --no-abstain is given.
    pub fn with(&self, default_on: bool) -> AbstainWith {
        match (&self.abstention_rule, self.abstain || (default_on && !self.no_abstain)) {
            _ if self.no_abstain => AbstainWith::Off,
            (Some(path), _) => AbstainWith::Rule(path.clone()),
            (None, true) => AbstainWith::Own,
            (None, false) => AbstainWith::Off,
        }
    }
}

/// The claims and their evidence: from a run and its index, or given with the claims.
fn examples_for(args: &VerifyArgs) -> anyhow::Result<Vec<VerifyExample>> {
    let examples: Vec<VerifyExample> = match (&args.run, &args.index) {
        (Some(run), Some(index)) => examples_from_run(&Index::open(index)?, &Run::read_trec(run)?, &load_claims(&args.claims, Format::Auto, None)?, args.top)?,
        _ => match &args.evidence {
            Some(path) => {
                let given = read_evidence(path)?;
                load_claims(&args.claims, Format::Auto, None)?
                    .iter()
                    .map(|c| match given.get(&c.id) {
                        Some(evidence) => Ok(VerifyExample::new(c.id.clone(), c.text.clone(), evidence.clone(), None)),
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
    /// Gold labels: JSONL {"id", "label", "category"?} (CoverBench's and ClaimDB's records too) or a
    /// QuanTemp evidence mapping (.json)
    #[arg(long, value_name = "PATH")]
    gold: PathBuf,
    /// Predictions JSONL
    #[arg(long, value_name = "PATH")]
    pred: PathBuf,
    /// A second predictions file: paired t-test on per-fold macro-F1 against --pred
    #[arg(long, value_name = "PATH", requires = "folds")]
    pred_b: Option<PathBuf>,
    /// Folds for the paired t-test (the claims in id order, cut into equal parts; 2 to the number
    /// of claims)
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..=1_000_000))]
    folds: Option<usize>,
    /// Score only the claims predicted: without it, a gold claim with no prediction, or a
    /// prediction for a claim with no gold label, is an error
    #[arg(long)]
    allow_missing: bool,
    /// Write the reliability diagram (reliability.png, .csv) and the risk–coverage curve
    /// (risk_coverage.png, .csv) here
    #[arg(long, value_name = "DIR")]
    plots: Option<PathBuf>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

/// How the predictions cover the gold claims.
#[derive(Debug, serde::Serialize)]
struct Coverage {
    /// Gold claims.
    gold: usize,
    /// Gold claims with a prediction.
    predicted: usize,
    /// Gold claims without one.
    missing: usize,
    /// Predictions for claims without a gold label.
    extra: usize,
}

/// A claim's gold label, its predicted label (none for a failed run) and its tool calls, and the
/// prediction.
type Judged = (String, Gold, Option<Label>, Option<usize>, Prediction);

fn pairs(gold: &HashMap<String, Gold>, pred: &PathBuf, allow_missing: bool) -> anyhow::Result<(Vec<Judged>, Coverage)> {
    let predictions = read_predictions(pred)?;
    let mut out = Vec::with_capacity(predictions.len());
    let mut seen = std::collections::HashSet::new();
    let mut extra = Vec::new();
    for p in predictions {
        anyhow::ensure!(seen.insert(p.id.clone()), "{}: claim {:?} is predicted twice\n\nhint: keep one prediction per claim", pred.display(), p.id);
        let Some(g) = gold.get(&p.id) else {
            extra.push(p.id);
            continue;
        };
        let label = if p.failure.is_some() { None } else { Some(p.label) };
        out.push((p.id.clone(), *g, label, p.tool_calls, p));
    }
    let missing: Vec<&String> = gold.keys().filter(|id| !seen.contains(*id)).collect();
    let coverage = Coverage { gold: gold.len(), predicted: out.len(), missing: missing.len(), extra: extra.len() };
    if !allow_missing {
        if let Some(first) = missing.iter().min() {
            anyhow::bail!("{}: {} of {} gold claims have no prediction (e.g. {first:?})\n\nhint: predict every claim, or pass --allow-missing to score only those predicted", pred.display(), coverage.missing, coverage.gold);
        }
        if let Some(first) = extra.first() {
            anyhow::bail!("{}: {} predictions are for claims with no gold label (e.g. {first:?})\n\nhint: check that the ids match, or pass --allow-missing to leave them out", pred.display(), coverage.extra);
        }
    }
    anyhow::ensure!(!out.is_empty(), "{}: no prediction for any gold claim", pred.display());
    // Claims in id order (numerically when ids are numbers), so folds are the same for any file.
    out.sort_by(|a, b| match (a.0.parse::<u64>(), b.0.parse::<u64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        _ => a.0.cmp(&b.0),
    });
    Ok((out, coverage))
}

pub fn eval(args: VerifyEvalArgs) -> anyhow::Result<()> {
    let gold = read_gold(&args.gold)?;
    let (a, coverage) = pairs(&gold, &args.pred, args.allow_missing)?;
    let outcomes = |v: &[Judged]| v.iter().map(|(_, g, p, _, _)| (g.label, *p)).collect::<Vec<_>>();
    let scores = score_outcomes(&outcomes(&a));
    let mut json = serde_json::to_value(&scores)?;
    json["coverage"] = serde_json::to_value(&coverage)?;
    let categories = nei_categories(&a.iter().map(|(_, g, p, _, _)| (*g, *p)).collect::<Vec<_>>());
    if !categories.is_empty() {
        json["nei_categories"] = serde_json::to_value(&categories)?;
    }
    let calls = ToolCallStats::of(a.iter().filter_map(|x| x.3));
    if let Some(calls) = &calls {
        json["tool_calls"] = serde_json::to_value(calls)?;
    }
    let selective = calibrate::selective(&a.iter().filter(|x| x.2.is_some()).map(|x| (x.1.label, &x.4)).collect::<Vec<_>>());
    json["selective"] = serde_json::to_value(&selective)?;
    if let Some(dir) = &args.plots {
        write_plots(dir, &args.pred, &selective)?;
    }
    if let (Some(b), Some(folds)) = (&args.pred_b, args.folds) {
        let (b, _) = pairs(&gold, b, args.allow_missing)?;
        anyhow::ensure!(folds <= a.len(), "--folds {folds}: there are only {} claims to cut into folds", a.len());
        anyhow::ensure!(a.iter().map(|x| &x.0).eq(b.iter().map(|x| &x.0)), "--pred and --pred-b must predict the same claims");
        let (fa, fb) = (fold_macro_f1(&outcomes(&a), folds), fold_macro_f1(&outcomes(&b), folds));
        let diffs: Vec<f64> = fb.iter().zip(&fa).map(|(y, x)| y - x).collect();
        let p = paired_t_test(&diffs);
        json["folds"] = serde_json::json!({ "k": folds, "macro_f1_a": fa, "macro_f1_b": fb, "t_test_p": p });
        if !args.json {
            println!("paired t-test over {folds} folds of macro-F1: mean A {:.4}, mean B {:.4}, p = {p:.4}", fa.iter().sum::<f64>() / folds as f64, fb.iter().sum::<f64>() / folds as f64);
        }
    }
    if args.json {
        println!("{json}");
        return Ok(());
    }
    print_scores(&scores);
    println!("coverage     {} of {} gold claims predicted ({} missing, {} extra)", coverage.predicted, coverage.gold, coverage.missing, coverage.extra);
    if selective.withheld > 0 {
        let v = &selective.verdicts;
        println!("full verdicts accuracy {:.4} macro_f1 {:.4} weighted_f1 {:.4} (the withheld verdicts given)", v.accuracy, v.macro_f1, v.weighted_f1);
    }
    println!("calibration  ECE {:.4} ({} bins)", selective.ece, calibrate::BINS);
    print_selective(&selective);
    for (category, c) in &categories {
        let predicted: Vec<String> = c.predicted.iter().map(|(label, n)| format!("{label} {n}")).collect();
        println!("not enough info, {:<15} claims {} recall {:.4} (predicted: {})", category.name(), c.claims, c.recall, predicted.join(", "));
    }
    if let Some(c) = calls {
        println!("tool calls   {:.2} a claim (max {}, {} in all, over {} claims)", c.mean, c.max, c.total, c.claims);
    }
    Ok(())
}

/// The reliability diagram and the risk–coverage curve of `pred`, as PNG and CSV, into `dir`.
fn write_plots(dir: &std::path::Path, pred: &std::path::Path, s: &calibrate::SelectiveReport) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = pred.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    quantir::verify::plot::reliability_png(&dir.join("reliability.png"), &format!("Reliability of {name}: ECE {:.3}", s.ece), &[("verdicts", &s.reliability)])?;
    quantir::verify::plot::risk_coverage_png(&dir.join("risk_coverage.png"), &format!("Risk–coverage of {name}"), &s.curve)?;
    let mut csv = csv::Writer::from_path(dir.join("reliability.csv")).with_context(|| format!("writing {}", dir.join("reliability.csv").display()))?;
    csv.write_record(["low", "high", "count", "confidence", "accuracy"])?;
    for b in &s.reliability {
        csv.write_record([b.low.to_string(), b.high.to_string(), b.count.to_string(), b.confidence.to_string(), b.accuracy.to_string()])?;
    }
    csv.flush()?;
    let mut csv = csv::Writer::from_path(dir.join("risk_coverage.csv")).with_context(|| format!("writing {}", dir.join("risk_coverage.csv").display()))?;
    csv.write_record(["coverage", "kept", "threshold", "accuracy", "macro_f1", "weighted_f1"])?;
    for p in &s.curve {
        csv.write_record([p.coverage.to_string(), p.kept.to_string(), p.threshold.to_string(), p.scores.accuracy.to_string(), p.scores.macro_f1.to_string(), p.scores.weighted_f1.to_string()])?;
    }
    csv.flush()?;
    eprintln!("wrote reliability.png, reliability.csv, risk_coverage.png and risk_coverage.csv into {}", dir.display());
    Ok(())
}

/// `--folds` of train-verifier: 0 (no cross-validation) or 2 to 1000.
fn parse_folds(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(k) if k == 0 || (2..=1000).contains(&k) => Ok(k),
        _ => Err(format!("expected 0 (no cross-validation) or 2 to 1000 folds, found {text:?}")),
    }
}
