# Sourced by the benchmarks that choose defaults on two collections (bench_hybrid.sh,
# bench_planners.sh): leaves the repository root as the working folder, builds the CLI and the
# model, and sets q (quantir), out (this run's results folder) and, from $work, the SciFact and
# Climate-FEVER indexes with dense vectors ($work/scifact.idx, $work/climate-fever.idx).
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
scripts/setup_models.sh >/dev/null
cargo build --release --locked --quiet --bins
q=target/release/quantir
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$work" "$out"
for c in scifact climate-fever; do
    [ -f "$work/$c.idx/CURRENT" ] || $q index --corpus "data/$c" --index "$work/$c.idx" --dense models/all-minilm-l6-v2 2>/dev/null
done
