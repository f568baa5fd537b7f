# Sourced by the OpenSearch benchmarks (scripts/bench_opensearch*.sh).
#
# timed SYSTEM NODES STEP ITEMS -- COMMAND...: runs COMMAND with its output in
# "$work/${timed_log_prefix}SYSTEM-NODES-STEP.log" (shown, and the script ended, if it fails), and
# appends "SYSTEM,NODES,STEP,wall seconds,ITEMS,COMMAND's peak RSS MB,the nodes' peak RSS MB" to
# "$raw". The nodes are those of "$QUANTIR_OPENSEARCH_DIR" (none when NODES is 0).
timed() {
    local system=$1 nodes=$2 step=$3 items=$4; shift 5
    local log="$work/${timed_log_prefix:-}$system-$nodes-$step.log"
    /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" > "$log" 2>&1 || { cat "$log" >&2; exit 1; }
    read -r secs kb < "$work/time.txt"
    local cluster_mb=0
    if [ "$nodes" != 0 ]; then
        cluster_mb=$(for f in "$QUANTIR_OPENSEARCH_DIR"/node-*/pid; do grep VmHWM "/proc/$(cat "$f")/status" | awk '{print $2}'; done | awk '{s += $1} END {print int(s / 1024)}')
    fi
    echo "$system,$nodes,$step,$secs,$items,$((kb / 1024)),$cluster_mb" >> "$raw"
}
