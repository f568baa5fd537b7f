//! `quantir serve`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use quantir::index::Index;
use quantir::serve::{serve, AppState, Limits};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The index folder
    #[arg(long, value_name = "DIR")]
    index: PathBuf,
    /// Address to listen on (port 0 picks a free one)
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Worker threads (0 = one per core)
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// A verifier for POST /api/verify: trained:DIR (from quantir train-verifier)
    #[arg(long, value_name = "V")]
    verifier: Option<quantir::verify::VerifierSpec>,
    #[command(flatten)]
    dense: super::args::DenseArgs,
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let index = Index::open(&args.index)?;
    let documents = index.num_docs();
    let verifier = match &args.verifier {
        None => None,
        Some(quantir::verify::VerifierSpec::Trained(dir)) => {
            let verifier = quantir::verify::trained::TrainedVerifier::load(dir)?;
            let encoder = args.dense.verifier_encoder(&verifier)?;
            Some((verifier, encoder))
        }
        Some(other) => anyhow::bail!("serve --verifier takes trained:DIR; {other:?} is not served yet"),
    };
    // Dense and hybrid requests need the query encoder: the one the index was built with.
    let encoder = args.dense.index_encoder(&index)?;
    let state = Arc::new(AppState { index, limits: Limits::default(), verifier, encoder });
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if args.threads > 0 {
        runtime.worker_threads(args.threads);
    }
    let runtime = runtime.enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.addr).await?;
        let addr = listener.local_addr()?;
        eprintln!("serving {} ({documents} documents) on http://{addr}/", args.index.display());
        serve(listener, state, shutdown_signal()).await?;
        eprintln!("stopped");
        anyhow::Ok(())
    })
}

/// Resolves on SIGTERM or Ctrl-C.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
