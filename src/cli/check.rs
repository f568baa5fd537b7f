//! `quantir check`.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The index folder
    #[arg(long, value_name = "DIR")]
    index: PathBuf,
}

pub fn run(args: CheckArgs) -> anyhow::Result<()> {
    let report = quantir::index::check(&args.index)?;
    let older: Vec<String> = report.generations.iter().filter(|&&g| g != report.generation).map(|g| g.to_string()).collect();
    eprintln!(
        "checked generation {} of {}: {} files, {:.1} MB, in {:.3} s{}",
        report.generation,
        args.index.display(),
        report.files,
        report.bytes as f64 / 1e6,
        report.seconds,
        if older.is_empty() { String::new() } else { format!(" (older generations kept while held: {})", older.join(", ")) }
    );
    if report.damaged.is_empty() {
        println!("ok");
        return Ok(());
    }
    for (file, damage) in &report.damaged {
        println!("damaged: {}: {damage}", file.display());
    }
    anyhow::bail!("{} damaged files in {}\n\nhint: rebuild the index with `quantir index --corpus <CORPUS> --index {}`", report.damaged.len(), args.index.display(), args.index.display())
}
