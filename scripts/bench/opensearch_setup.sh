# Sourced by the OpenSearch benchmarks (scripts/bench_opensearch*.sh) once quantir is built: the
# shared set-up. Expects generator (the replica's generator), name (the results' file name) and
# heap (each node's heap); sets work, out, cluster (scripts/opensearch_cluster.sh on its own folder
# and port, stopped when the script ends), raw (the CSV timed appends to, with its header), qt (the
# replica's folder, written when missing), claims, docs and n (their counts), run_flags (the
# planned run every benchmark times) and timed (scripts/bench/timed.sh).
work=bench/tmp/opensearch
out=bench/runs/$(date +%Y-%m-%d)-$(hostname)
mkdir -p "$work" "$out"
export QUANTIR_OPENSEARCH_DIR=/tmp/quantir-opensearch-bench QUANTIR_OPENSEARCH_PORT=9290 QUANTIR_OPENSEARCH_HEAP=$heap
cluster=scripts/opensearch_cluster.sh
trap '$cluster stop >/dev/null 2>&1 || true' EXIT
raw="$out/$name.csv"
echo "system,nodes,step,seconds,items,quantir_peak_mb,cluster_peak_mb" > "$raw"

qt=$work/qt
[ -f "$qt/corpus.json" ] || python3 "$generator" "$qt" > /dev/null
claims=$qt/test.json
docs=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$qt/corpus.json")
n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$claims")
run_flags=(--claims "$claims" --plan numeric --fusion combmax-norm --depth 100 -k 100)

# shellcheck source=scripts/bench/timed.sh
source scripts/bench/timed.sh
