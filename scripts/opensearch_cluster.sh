#!/usr/bin/env bash
# A real OpenSearch cluster on loopback, for quantir's OpenSearch backend: its tests, its benchmark,
# and anyone who wants to try the backend on one machine.
#
#   scripts/opensearch_cluster.sh start [NODES]   start NODES nodes (default 3) afresh, wait for green
#   scripts/opensearch_cluster.sh stop            stop every node (their data stays until the next start)
#   scripts/opensearch_cluster.sh status          the cluster's health, or "not running"
#   scripts/opensearch_cluster.sh urls            the nodes' HTTP URLs, comma-separated
#   scripts/opensearch_cluster.sh kill I          kill -9 node I (fault tests)
#   scripts/opensearch_cluster.sh revive [I]      start stopped nodes again on their data, wait for green
#
# OpenSearch comes from Maven Central (org.opensearch.distribution.integ-test-zip:opensearch, the
# minimal distribution: no security plugin, so plain HTTP without authentication) through
# `mvn dependency:get`, with the k-NN plugin (see install_knn). 2.19.6 is the newest release that runs on Java 17; set JAVA_HOME to use
# another JDK (3.x needs Java 21).
#
# Environment:
#   QUANTIR_OPENSEARCH_VERSION  distribution version (2.19.6)
#   QUANTIR_OPENSEARCH_DIR      where the cluster lives: distribution, data, logs, pids
#                               (/tmp/quantir-opensearch)
#   QUANTIR_OPENSEARCH_PORT     HTTP port of the first node (9250); node i listens on PORT+i-1 and
#                               on PORT+100+i-1 for the transport protocol
#   QUANTIR_OPENSEARCH_HEAP     heap per node (512m)
#
# OpenSearch refuses to run as root; as root, the nodes run as the user `nobody`, which is why
# the cluster lives under /tmp by default and not under the (possibly private) checkout.
set -euo pipefail

VERSION="${QUANTIR_OPENSEARCH_VERSION:-2.19.6}"
DIR="${QUANTIR_OPENSEARCH_DIR:-/tmp/quantir-opensearch}"
PORT="${QUANTIR_OPENSEARCH_PORT:-9250}"
HEAP="${QUANTIR_OPENSEARCH_HEAP:-512m}"
DIST="$DIR/opensearch-$VERSION"

die() { echo "opensearch_cluster.sh: $*" >&2; exit 1; }

urls() {
    local n="$1" out="" i
    for ((i = 1; i <= n; i++)); do
        out="${out:+$out,}http://127.0.0.1:$((PORT + i - 1))"
    done
    echo "$out"
}

# Installs Debian's PACKAGE for a missing COMMAND when we are root; otherwise says what to install.
need() {
    command -v "$1" >/dev/null && return
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing Debian's $2 for $1" >&2
        apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null \
            || die "apt-get could not install $2"
    else
        die "$1 is missing: install $2 (apt-get install $2)"
    fi
}

install() {
    [ -x "$DIST/bin/opensearch" ] && return
    need mvn maven
    local artifact="org.opensearch.distribution.integ-test-zip:opensearch:$VERSION:zip"
    echo "fetching $artifact from Maven Central" >&2
    mvn -q dependency:get -Dartifact="$artifact" -Dtransitive=false >&2 \
        || die "mvn could not fetch $artifact"
    local zip="$(local_repo)/org/opensearch/distribution/integ-test-zip/opensearch/$VERSION/opensearch-$VERSION.zip"
    [ -f "$zip" ] || die "$zip is missing after mvn dependency:get"
    mkdir -p "$DIR"
    local tmp
    tmp="$(mktemp -d "$DIR/unzip.XXXXXX")"
    need unzip unzip
    unzip -q "$zip" -d "$tmp" || die "cannot unpack $zip"
    chmod +x "$tmp/opensearch-$VERSION/bin/"*
    mv "$tmp/opensearch-$VERSION" "$DIST"
    rmdir "$tmp"
}

# The k-NN plugin (dense and hybrid retrieval on the cluster) and the lang-painless module it
# extends, from Maven Central. The integ-test distribution has no lang-painless and Maven Central
# serves it as jars, not as a module zip: its folder is assembled from the jars with a descriptor and
# the security policy the module ships with. The plugin's zip holds jars only, no native
# libraries: only its Lucene engine works (quantir sets it on every index it makes; the faiss
# engine accepts an index and then kills the node on its first document).
KNN_ARTIFACTS=(
    "org.opensearch.plugin:opensearch-knn:$VERSION.0:zip c21b9565624d29fd4024e3a3902712349006cb7894a73c45d976756a761e628f"
    "org.opensearch.plugin:lang-painless:$VERSION:jar e71e6c7ef99a6f5958cd0b25367acf472cc52cd49d29e13084c5ff0b5931f717"
    "org.opensearch.plugin:opensearch-scripting-painless-spi:$VERSION:jar 84e545b968151739f1915cfd2db24bf873edfd317d2848b87b61d0d60ec70869"
    "org.antlr:antlr4-runtime:4.13.1:jar 54665d2838cc66458343468efc539e454fc95b46a8a04b13c6ac43fc9be63505"
    "org.ow2.asm:asm:9.7:jar adf46d5e34940bdf148ecdd26a9ee8eea94496a72034ff7141066b3eea5c4e9d"
    "org.ow2.asm:asm-util:9.7:jar 37a6414d36641973f1af104937c95d6d921b2ddb4d612c66c5a9f2b13fc14211"
    "org.ow2.asm:asm-tree:9.7:jar 62f4b3bc436045c1acb5c3ba2d8ec556ec3369093d7f5d06c747eb04b56d52b1"
    "org.ow2.asm:asm-commons:9.7:jar 389bc247958e049fc9a0408d398c92c6d370c18035120395d4cba1d9d9304b7a"
    "org.ow2.asm:asm-analysis:9.7:jar 7bc6bcbc21379948a0c8c467fb0f864206e5b818f6bc0b546872f5c9f941556f"
)

# Fetches one group:artifact:version:packaging through Maven, checks its sha256 and prints its path.
fetch_checked() {
    local coordinates="$1" sha="$2" group artifact version packaging
    IFS=: read -r group artifact version packaging <<<"$coordinates"
    mvn -q dependency:get -Dartifact="$coordinates" -Dtransitive=false >&2 \
        || die "mvn could not fetch $coordinates"
    local file
    file="$(local_repo)/${group//.//}/$artifact/$version/$artifact-$version.$packaging"
    [ -f "$file" ] || die "$file is missing after mvn dependency:get"
    echo "$sha  $file" | sha256sum -c --quiet >&2 2>/dev/null \
        || die "$file does not have the sha256 this script expects ($sha): delete it and run again"
    echo "$file"
}

# Maven's local repository (asked once: each `mvn help:evaluate` takes seconds).
LOCAL_REPO=""
local_repo() {
    if [ -z "$LOCAL_REPO" ]; then
        LOCAL_REPO="$(mvn -q help:evaluate -Dexpression=settings.localRepository -DforceStdout 2>/dev/null || true)"
        [ -d "$LOCAL_REPO" ] || LOCAL_REPO="$HOME/.m2/repository"
    fi
    echo "$LOCAL_REPO"
}

# Installs lang-painless and the k-NN plugin into the distribution once (idempotent: a complete
# installation is left alone; a half-made one is made again).
install_knn() {
    [ -f "$DIST/plugins/opensearch-knn/plugin-descriptor.properties" ] && [ -f "$DIST/modules/lang-painless/.complete" ] && return
    need mvn maven
    echo "installing the k-NN plugin and lang-painless $VERSION from Maven Central" >&2
    local files=() entry
    for entry in "${KNN_ARTIFACTS[@]}"; do
        files+=("$(fetch_checked ${entry% *} ${entry#* })")
    done
    local module="$DIST/modules/lang-painless"
    rm -rf "$module" "$DIST/plugins/opensearch-knn"
    mkdir -p "$module"
    cp "${files[@]:1}" "$module/"
    cat > "$module/plugin-descriptor.properties" <<EOF_DESCRIPTOR
description=An easy, safe and fast scripting language for OpenSearch
version=$VERSION
name=lang-painless
classname=org.opensearch.painless.PainlessPlugin
java.version=11
opensearch.version=$VERSION
extended.plugins=
has.native.controller=false
EOF_DESCRIPTOR
    cat > "$module/plugin-security.policy" <<'EOF_POLICY'
grant {
  // painless compiles scripts into classes of their own loader
  permission java.lang.RuntimePermission "createClassLoader";
  permission java.lang.RuntimePermission "getClassLoader";
};
EOF_POLICY
    touch "$module/.complete"
    OPENSEARCH_JAVA_HOME="$(java_home)" "$DIST/bin/opensearch-plugin" install --batch "file://${files[0]}" >&2 \
        || die "opensearch-plugin could not install ${files[0]}"
}

# The user the nodes run as: ourselves, or nobody when we are root.
run_as() {
    if [ "$(id -u)" = 0 ]; then
        setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
    else
        "$@"
    fi
}

health() {
    curl -sf --max-time 10 "http://127.0.0.1:$PORT/_cluster/health?wait_for_status=green&wait_for_nodes=${2:-1}&timeout=${1:-1s}" 2>/dev/null
}

# Whether a process runs (a zombie does not: a killed node's may linger unreaped for a while).
alive() {
    local state
    state="$(ps -o stat= -p "$1" 2>/dev/null)" || return 1
    [ -n "$state" ] && [ "${state:0:1}" != Z ]
}

running_pids() {
    local f
    for f in "$DIR"/node-*/pid; do
        [ -f "$f" ] || continue
        local pid
        pid="$(cat "$f")"
        if alive "$pid"; then echo "$pid"; fi
    done
}

# Nodes whose pid file names a process that is gone.
dead_nodes() {
    local f
    for f in "$DIR"/node-*/pid; do
        [ -f "$f" ] || continue
        alive "$(cat "$f")" || echo "$f"
    done
}

# Writes node i's folder (config, data, logs) for an n-node cluster, replacing any old one.
make_node() {
    local i="$1" n="$2" seeds="" managers="" j
    for ((j = 1; j <= n; j++)); do
        seeds="${seeds:+$seeds,}127.0.0.1:$((PORT + 100 + j - 1))"
        managers="${managers:+$managers,}node-$j"
    done
    local node="$DIR/node-$i"
    rm -rf "$node"
    mkdir -p "$node/config" "$node/data" "$node/logs"
    cp -r "$DIST/config/." "$node/config/"
    {
        echo "cluster.name: quantir-local"
        echo "node.name: node-$i"
        echo "path.data: $node/data"
        echo "path.logs: $node/logs"
        echo "network.host: 127.0.0.1"
        echo "http.port: $((PORT + i - 1))"
        echo "transport.port: $((PORT + 100 + i - 1))"
        echo "discovery.seed_hosts: [$seeds]"
        echo "cluster.initial_cluster_manager_nodes: [$managers]"
        echo "# A test machine's disk may be fuller than OpenSearch's watermarks; indexes must stay writable."
        echo "cluster.routing.allocation.disk.threshold_enabled: false"
        echo "action.auto_create_index: false"
    } > "$node/config/opensearch.yml"
    # jvm.options names logs/ and data relative to the distribution, which is not ours to write.
    sed -i -e "s/^-Xms.*/-Xms$HEAP/" -e "s/^-Xmx.*/-Xmx$HEAP/" \
        -e "s#file=logs/#file=$node/logs/#" -e "s#HeapDumpPath=data#HeapDumpPath=$node/data#" \
        -e "s#ErrorFile=logs/#ErrorFile=$node/logs/#" "$node/config/jvm.options"
    if [ "$(id -u)" = 0 ]; then chown -R 65534:65534 "$node"; fi
}

java_home() {
    local home="${OPENSEARCH_JAVA_HOME:-${JAVA_HOME:-}}"
    if [ -z "$home" ]; then
        command -v java >/dev/null || die "java is missing: install a JDK 17 or newer, or set JAVA_HOME"
        home="$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"
    fi
    echo "$home"
}

# Starts node i from its folder, in the background.
launch_node() {
    local i="$1" node="$DIR/node-$1" home
    home="$(java_home)"
    rm -f "$node/pid"
    (
        cd "$node"
        OPENSEARCH_JAVA_HOME="$home" OPENSEARCH_PATH_CONF="$node/config" OPENSEARCH_JAVA_OPTS="-Xms$HEAP -Xmx$HEAP" \
            run_as "$DIST/bin/opensearch" -d -p "$node/pid" >"$node/logs/stdout.log" 2>&1
    ) || die "node-$i did not start: see $node/logs/stdout.log"
}

# Waits until n nodes have joined and every index is green.
wait_green() {
    local n="$1" deadline=$((SECONDS + 240))
    until health 5s "$n" >/dev/null; do
        if [ -n "$(dead_nodes)" ] || ((SECONDS > deadline)); then
            tail -n 30 "$DIR/node-1/logs/quantir-local.log" >&2 || true
            echo "opensearch_cluster.sh: the cluster did not turn green within 240 s or a node exited: logs under $DIR/node-*/logs/" >&2
            return 1
        fi
        sleep 1
    done
}

start() {
    local n="${1:-3}" i
    [[ "$n" =~ ^[1-9]$ ]] || die "NODES must be 1 to 9, not '$n'"
    if [ -n "$(running_pids)" ]; then
        die "a cluster is already running under $DIR: run '$0 stop' first"
    fi
    need curl curl
    install
    install_knn
    chmod 755 "$DIR"
    rm -rf "$DIR"/node-*
    for ((i = 1; i <= n; i++)); do
        make_node "$i" "$n"
        launch_node "$i"
    done
    echo "$n" > "$DIR/nodes"
    wait_green "$n" || { stop; exit 1; }
    echo "$n-node OpenSearch $VERSION cluster is green at $(urls "$n")" >&2
}

stop() {
    local pids
    pids="$(running_pids)"
    [ -n "$pids" ] || { echo "no cluster running under $DIR" >&2; return 0; }
    # shellcheck disable=SC2086
    kill $pids 2>/dev/null || true
    local deadline=$((SECONDS + 60))
    while [ -n "$(running_pids)" ]; do
        if ((SECONDS > deadline)); then
            # shellcheck disable=SC2046
            kill -9 $(running_pids) 2>/dev/null || true
            break
        fi
        sleep 1
    done
    echo "cluster under $DIR stopped" >&2
}

# kill -9 one node (for fault tests).
kill_node() {
    local f="$DIR/node-$1/pid"
    [ -f "$f" ] && alive "$(cat "$f")" || die "node-$1 is not running"
    kill -9 "$(cat "$f")"
    rm -f "$f"
}

# Starts stopped nodes again on their data (all of them without an argument) and waits for green.
revive() {
    local n i
    n="$(cat "$DIR/nodes" 2>/dev/null)" || die "no cluster was started under $DIR"
    for ((i = 1; i <= n; i++)); do
        if [ -n "${1:-}" ] && [ "$i" != "$1" ]; then continue; fi
        if [ -f "$DIR/node-$i/pid" ] && alive "$(cat "$DIR/node-$i/pid")"; then continue; fi
        launch_node "$i"
    done
    wait_green "$n"
}

case "${1:-}" in
    start) start "${2:-3}" ;;
    stop) stop ;;
    status) health 1s || echo "not running" ;;
    urls) urls "$(cat "$DIR/nodes" 2>/dev/null || echo 3)" ;;
    kill) kill_node "${2:?kill NODE}" ;;
    revive) revive "${2:-}" ;;
    *) sed -n '2,10p' "$0" >&2; exit 2 ;;
esac
