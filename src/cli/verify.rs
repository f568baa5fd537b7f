//! `quantir verify`.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use quantir::corpus::{load_claims, Format};
use quantir::index::Index;
use quantir::trec::Run;
use quantir::verify::pipeline::{examples_from_run, AbstainWith, Pipeline, VerifierSetup};
use quantir::verify::agent::{DatabaseAgent, MAX_TOOL_CALLS};
use quantir::verify::llm::{ContextPolicy, TableStyle};
use quantir::verify::evidence::sql::{DatabaseSource, SqlLimits};
use quantir::verify::{read_evidence, read_examples, LabelSet, Prediction, ToolCallStats, VerifierSpec, VerifyExample};

use super::args::DenseArgs;
use super::progress::Bar;

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
    /// The verifier: trained:DIR (from quantir train-verifier), stance:DIR (per-evidence stances,
    /// from quantir train-stance), onnx:DIR (a sequence-classification ONNX model with
    /// quantir-verifier.json) or llm:MODEL (an OpenAI-compatible chat API, --llm-url)
    #[arg(long, value_name = "V")]
    verifier: VerifierSpec,
    /// Predictions: {"id", "label", "confidence", "evidence"} a line (and "stances" from a stance
    /// verifier; "sql", "tool_calls", "refused", "failure" from the database agent)
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
        let agent = DatabaseAgent::new(quantir::llm::ChatClient::new(config)?, source, labels, args.max_tool_calls);
        let predictions = agent.predict(&examples, &Bar::default())?;
        let failed = predictions.iter().filter(|p| p.failure.is_some()).count();
        let refused: usize = predictions.iter().map(|p| p.refused.len()).sum();
        let calls = ToolCallStats::of(predictions.iter().filter_map(|p| p.tool_calls));
        quantir::io::write_jsonl(&args.output, &predictions)?;
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
    quantir::io::write_jsonl(&args.output, &predictions)?;
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
        VerifierSpec::Trained(dir) => inputs.push(Input::file(Role::Verifier, &dir.join(quantir::verify::VERIFIER_FILE))?),
        VerifierSpec::Stance(dir) => inputs.push(Input::file(Role::Model, &dir.join(quantir::verify::model::stance::STANCE_FILE))?),
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
pub fn llm_config(spec: &VerifierSpec, llm: &super::args::LlmArgs) -> anyhow::Result<Option<quantir::llm::LlmConfig>> {
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

