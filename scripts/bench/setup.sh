# Sourced by the Anserini benchmarks: the shared set-up. Leaves the repository root as the working
# folder and sets q (quantir), py (the oracle Python), java and jar (Anserini from PyPI).
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
command -v /usr/bin/time >/dev/null || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
cargo build --release --locked --quiet
read -r java jar < <(scripts/setup_anserini.sh | paste -sd' ')
q=target/release/quantir
py=.venv/bin/python
