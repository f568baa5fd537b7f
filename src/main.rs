//! The `quantir` binary: parse, run, report. Everything else is in the library and `cli`.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            // A closed pipe (`quantir search … | head`) is not an error worth reporting.
            if err.chain().any(|e| e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            if let Some(flag) = err.chain().find_map(|e| e.downcast_ref::<quantir::Error>()).and_then(cli::flag_of) {
                eprintln!("\nhint: on the command line, that setting is {flag}");
            }
            ExitCode::FAILURE
        }
    }
}
