//! `quantir serve`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use quantir::engine::Engine;
use quantir::serve::{serve, AppState, Limits};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The index folder
    #[arg(long, value_name = "DIR")]
    index: Option<PathBuf>,
    #[command(flatten)]
    backend: super::args::BackendArgs,
    /// Address to listen on (port 0 picks a free one)
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Worker threads (0 = one per core)
    #[arg(long, default_value_t = 0, value_parser = super::args::ranged(quantir::ranges::THREADS), value_name = "N")]
    threads: usize,
    /// Searches, verifications and batches served at once; more get 503 with Retry-After
    /// [default: 16 per worker thread]
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000), value_name = "N")]
    max_in_flight: Option<usize>,
    /// Seconds a client has to send a request's headers (and between keep-alive requests)
    #[arg(long, default_value_t = Limits::default().header_timeout.as_secs_f64(), value_parser = seconds, value_name = "S")]
    header_timeout: f64,
    /// Seconds from a request's headers to its response (408 after)
    #[arg(long, default_value_t = Limits::default().request_timeout.as_secs_f64(), value_parser = seconds, value_name = "S")]
    request_timeout: f64,
    /// Seconds a batch answer waits for a client that stopped reading before giving up on it
    #[arg(long, default_value_t = Limits::default().write_timeout.as_secs_f64(), value_parser = seconds, value_name = "S")]
    write_timeout: f64,
    /// Seconds the requests in flight get to finish after SIGTERM before the rest are closed
    #[arg(long, default_value_t = Limits::default().grace.as_secs_f64(), value_parser = seconds, value_name = "S")]
    grace: f64,
    /// A verifier for POST /api/verify and the page: trained:DIR (from quantir train-verifier),
    /// stance:DIR (from quantir train-stance: each card read gets its stance), onnx:DIR or
    /// llm:MODEL; a trained one abstains by its own rule by default (--no-abstain to always give a
    /// verdict), the others with --abstention-rule
    #[arg(long, value_name = "V")]
    verifier: Option<quantir::verify::VerifierSpec>,
    /// Hits the verifier reads (and POST /api/verify's default k)
    #[arg(long, default_value_t = 3, value_parser = super::args::ranged(quantir::ranges::TOP), value_name = "N")]
    verify_top: usize,
    #[command(flatten)]
    abstain: super::verify::AbstainArgs,
    #[command(flatten)]
    dense: super::args::DenseArgs,
    #[command(flatten)]
    llm: super::args::LlmArgs,
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    // Dense and hybrid requests need the query encoder: the one the index was built with.
    let (engine, encoder) = Engine::open_to_serve(&args.backend.location(&args.index)?, &args.dense.options(), &super::models::roots())?;
    let about = engine.about();
    let verifier = match &args.verifier {
        None => None,
        Some(spec) => {
            let setup = quantir::verify::pipeline::VerifierSetup {
                encoder: args.dense.options(),
                roots: super::models::roots(),
                llm: super::verify::llm_config(spec, &args.llm)?,
                context: quantir::verify::llm::ContextPolicy::default(),
                top: args.verify_top,
                labels: quantir::verify::LabelSet::default(),
            };
            // A trained verifier carries its own rule; the others abstain only when given one.
            let own_rule = matches!(spec, quantir::verify::VerifierSpec::Trained(_));
            Some(quantir::verify::pipeline::Pipeline::open(spec, &setup, &args.abstain.with(own_rule))?)
        }
    };
    let secs = std::time::Duration::from_secs_f64;
    let limits = Limits {
        concurrency: match (args.max_in_flight, args.threads) {
            (Some(n), _) => n,
            (None, 0) => Limits::default().concurrency,
            (None, threads) => quantir::serve::IN_FLIGHT_PER_THREAD * threads,
        },
        header_timeout: secs(args.header_timeout),
        request_timeout: secs(args.request_timeout),
        write_timeout: secs(args.write_timeout),
        grace: secs(args.grace),
        ..Limits::default()
    };
    let state = Arc::new(AppState::new(engine, limits, verifier, encoder));
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    if args.threads > 0 {
        runtime.worker_threads(args.threads);
    }
    let runtime = runtime.enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.addr).await.with_context(|| format!("cannot listen on {}\n\nhint: choose another --addr (port 0 picks a free one)", args.addr))?;
        let addr = listener.local_addr()?;
        eprintln!("serving the {} index {} ({} documents) on http://{addr}/", about.kind, about.name, about.documents);
        serve(listener, state, shutdown_signal()).await?;
        eprintln!("stopped");
        anyhow::Ok(())
    })
}

/// Seconds in (0, 3600].
fn seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 3600.0 => Ok(s),
        _ => Err(format!("expected seconds in (0, 3600], found {text:?}")),
    }
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
