#!/usr/bin/env bash
# Delivery latency (SPEC §8): time from `POST /translations/sync` returning to a
# `GET /translations/events` client reading the `version` event of that sync, over SYNCS
# syncs, each of a changed sheet (benches/sse_latency.py does the syncs and the reading):
#   one: one node (sled), the client on the node that syncs;
#   two: two nodes on one Redis, the POST to node A (producer on, holding the lease), the
#        client on node B (producer off), and a second client on node A for reference.
# The producer's own interval is a day, so only the POSTs sync.
#
#   benches/sse_latency.sh                        # both, 100 syncs, 10,000 keys x 5 locales
#   PARTS=two SYNCS=20 KEYS=100 benches/sse_latency.sh
#
# Needs python3 (standard library only) and, for `two`, redis-server and redis-cli
# (Debian: apt-get install -y redis-server). DEPOT_BIN=path skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
PARTS=${PARTS:-one two}
SYNCS=${SYNCS:-100}
KEYS=${KEYS:-10000}
LOCALES=${LOCALES:-5}
if [[ " $PARTS " == *" two "* ]]; then
  for tool in redis-server redis-cli; do
    command -v "$tool" >/dev/null || { echo "$tool is needed: apt-get install -y redis-server" >&2; exit 1; }
  done
fi
. benches/common.sh
SCRIPTS=$PWD/benches
ADMIN_KEY=sse-bench-$RANDOM$RANDOM

# Starts `depot serve` in folder $1 with the environment assignments that follow; prints
# "pid base-url" once /health answers.
serve() {
  local dir=$1; shift
  local port; port=$(free_port)
  mkdir -p "$dir"
  (cd "$dir" && exec env DEPOT_ADMIN_KEYS="$ADMIN_KEY" DEPOT_PRODUCER_INTERVAL_SECS=86400 "$@" \
    "$BIN" serve --listen "127.0.0.1:$port" --log-level warn >/dev/null 2>daemon.log) &
  local pid=$!
  for _ in $(seq 200); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
    sleep 0.05
  done
  curl -sf "http://127.0.0.1:$port/health" >/dev/null || { echo "depot did not start in $dir:" >&2; cat "$dir/daemon.log" >&2; exit 1; }
  echo "$pid http://127.0.0.1:$port"
}

sheet() { python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from sse_client import write_sheet; write_sheet(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), "sync0")' "$SCRIPTS" "$@"; }

# Prints the daemon logs' WARN/ERROR lines, if any.
log_check() { for log in "$@"; do grep -E ' (WARN|ERROR) ' "$log" | grep -v 'no auth.api_keys configured' | sed "s|^|  $(basename "$(dirname "$log")"): |" | head -20 || true; done; }

if [[ " $PARTS " == *" one "* ]]; then
  sheet "$WORK/one.csv" "$KEYS" "$LOCALES"
  read -r ONE_PID ONE < <(serve "$WORK/one" DEPOT_PRODUCER_SOURCE="$WORK/one.csv")
  PIDS+=("$ONE_PID")
  python3 "$SCRIPTS/sse_latency.py" --label "1 node (sled)" --sync "$ONE" --events "$ONE" \
    --admin-key "$ADMIN_KEY" --sheet "$WORK/one.csv" --syncs "$SYNCS" --keys "$KEYS" --locales "$LOCALES"
  log_check "$WORK/one/daemon.log"
  kill "$ONE_PID"
fi

if [[ " $PARTS " == *" two "* ]]; then
  start_redis
  REDIS=(DEPOT_TRANSLATIONS_STORAGE=redis DEPOT_TRANSLATIONS_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0")
  sheet "$WORK/two.csv" "$KEYS" "$LOCALES"
  read -r A_PID A < <(serve "$WORK/a" "${REDIS[@]}" DEPOT_PRODUCER_SOURCE="$WORK/two.csv")
  PIDS+=("$A_PID")
  read -r B_PID B < <(serve "$WORK/b" "${REDIS[@]}" DEPOT_PRODUCER_ENABLED=false)
  PIDS+=("$B_PID")
  python3 "$SCRIPTS/sse_latency.py" --label "2 nodes on Redis, POST to A" --sync "$A" \
    --events "$B" --events "$A" \
    --admin-key "$ADMIN_KEY" --sheet "$WORK/two.csv" --syncs "$SYNCS" --keys "$KEYS" --locales "$LOCALES"
  echo "  (node A: $A, node B: $B)"
  log_check "$WORK/a/daemon.log" "$WORK/b/daemon.log"
  kill "$A_PID" "$B_PID"
fi
