//! The command line: the only module that knows clap, stdout, terminals and progress bars.
//! Each subcommand maps its flags to a library config, calls one library function and prints
//! the result.

mod args;
mod check;
mod compare;
mod eval;
mod experiment;
mod fuse;
mod index;
mod models;
mod plan;
mod progress;
mod run;
mod search;
mod serve;
mod stance;
mod train;
mod update;
mod verify;
mod verify_eval;

use clap::{Parser, Subcommand};

/// quantir: evidence retrieval for numerical claims, with an exact publication-date cutoff.
#[derive(Debug, Parser)]
#[command(name = "quantir", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build a BM25 index from an evidence corpus (atomically replacing any index there).
    Index(index::IndexArgs),
    /// Add documents to an index, or replace them by id, as one new generation (no rebuild).
    Add(update::AddArgs),
    /// Delete documents from an index by id, as one new generation (no rebuild).
    Delete(update::DeleteArgs),
    /// Rewrite an updated index's segments as a build lays them out (no deleted copies left).
    Compact(update::CompactArgs),
    /// Search an index for one claim or query.
    Search(search::SearchArgs),
    /// Check every file of an index against the digests its build recorded.
    Check(check::CheckArgs),
    /// Decompose claims into sub-queries and write them as JSONL (for queries/).
    Plan(plan::PlanCommand),
    /// Run a batch of claims into a TREC run file, each with its own date cutoff.
    Run(run::RunArgs),
    /// Serve the engine over HTTP: a JSON API, a JSONL stream and a web page.
    Serve(serve::ServeArgs),
    /// Train the verifier on labelled claims with evidence (k-fold cross-validation).
    TrainVerifier(train::TrainArgs),
    /// Train the per-evidence stance model on stance-labelled sentences (grouped cross-validation).
    TrainStance(stance::StanceArgs),
    /// Verify claims from their top-k evidence: True / False / Conflicting.
    Verify(verify::VerifyArgs),
    /// Score verdicts: accuracy, per-class and macro/weighted F1, confusion, paired t-test.
    VerifyEval(verify_eval::VerifyEvalArgs),
    /// Evaluate a TREC run against qrels with trec_eval's measures.
    Eval(eval::EvalArgs),
    /// Compare runs with a baseline: means per measure and paired significance tests.
    Compare(compare::CompareArgs),
    /// Fuse TREC runs query by query (CombSUM, CombMAX, CombMNZ, CombMAX-Norm, RRF, weighted sum).
    Fuse(fuse::FuseArgs),
    /// Reproduce a paper's experiments from its published data folder.
    #[command(subcommand)]
    Experiment(experiment::ExperimentCommand),
}

/// Parses the arguments and runs the command.
pub fn run() -> anyhow::Result<()> {
    let cli = Cli::parse();
    if !matches!(cli.command, Command::Serve(_)) {
        end_quietly_on_closed_pipe();
    }
    match cli.command {
        Command::Index(args) => index::run(args),
        Command::Add(args) => update::add(args),
        Command::Delete(args) => update::delete(args),
        Command::Compact(args) => update::compact(args),
        Command::Search(args) => search::run(args),
        Command::Check(args) => check::run(args),
        Command::Plan(args) => plan::run(args),
        Command::Run(args) => run::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Eval(args) => eval::run(args),
        Command::TrainVerifier(args) => train::train(args),
        Command::TrainStance(args) => stance::train(args),
        Command::Verify(args) => verify::verify(args),
        Command::VerifyEval(args) => verify_eval::eval(args),
        Command::Compare(args) => compare::run(args),
        Command::Fuse(args) => fuse::run(args),
        Command::Experiment(command) => experiment::run(command),
    }
}

/// `quantir eval … | head` ends quietly, as Unix tools do, instead of panicking in `println!`: the
/// default SIGPIPE action, which the Rust runtime replaces with "ignore". Not for `serve`, where a
/// client hanging up must not stop the server.
fn end_quietly_on_closed_pipe() {
    // SAFETY: setting a signal's disposition to its default, before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// The flag of the setting a library error names (`hybrid_norm` is `--hybrid-norm`, `k` is
/// `-k`): the library names settings as Python and the API do, the CLI as its flags.
pub fn flag_of(error: &quantir::Error) -> Option<String> {
    let name = error.setting()?;
    match name {
        // `quantir fuse`'s run files are its positional arguments.
        "runs" => None,
        "feedback" => Some("--rm3 or --rocchio".into()),
        "k1" | "b" => Some(format!("--{name}")),
        _ if name.len() == 1 => Some(format!("-{name}")),
        _ => Some(format!("--{}", name.replace('_', "-"))),
    }
}


/// The absolute form of `path`, which may not exist yet (its parent must, or it is taken as given).
fn absolute(path: &std::path::Path) -> std::path::PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    match (path.parent().filter(|p| !p.as_os_str().is_empty()).map_or_else(|| std::path::PathBuf::from(".").canonicalize(), |p| p.canonicalize()), path.file_name()) {
        (Ok(parent), Some(name)) => parent.join(name),
        _ => path.to_path_buf(),
    }
}

/// Refuses an `--output` (named `flag`) that would overwrite one of the command's `inputs` (or
/// land inside an input folder) or land inside one of the `indexes` it reads: checked before any
/// work, so nothing is lost.
fn check_output(flag: &str, output: &std::path::Path, inputs: &[&std::path::Path], indexes: &[&std::path::Path]) -> anyhow::Result<()> {
    let out = absolute(output);
    for input in inputs {
        let input = absolute(input);
        if out == input || (input.is_dir() && out.starts_with(&input)) {
            anyhow::bail!("{flag} {} would overwrite the input {}\n\nhint: write the output somewhere else (nothing was changed)", output.display(), input.display());
        }
    }
    for index in indexes {
        let index = absolute(index);
        if out.starts_with(&index) {
            anyhow::bail!("{flag} {} lies inside the index {} it reads\n\nhint: write the output outside the index folder (nothing was changed)", output.display(), index.display());
        }
    }
    Ok(())
}

/// Records beside the file `output` what made it (`NAME.provenance.json`, quantir::provenance):
/// its `inputs` and `settings`, and what making it counted.
fn record(output: &std::path::Path, artifact: quantir::provenance::Artifact, inputs: Vec<quantir::provenance::Input>, settings: &impl serde::Serialize, counts: std::collections::BTreeMap<String, u64>) -> anyhow::Result<()> {
    quantir::provenance::Provenance::new(artifact, inputs, settings).with_counts(counts).write_beside(output)?;
    Ok(())
}

/// The input a decomposition file is, when the plan reads one.
fn plan_input(plan: &quantir::plan::PlanSpec) -> anyhow::Result<Option<quantir::provenance::Input>> {
    match plan {
        quantir::plan::PlanSpec::File { path, .. } => Ok(Some(quantir::provenance::Input::file(quantir::provenance::Role::PlanFile, path)?)),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
