#!/usr/bin/env bash
# Memory and responsiveness of one release daemon (sled, loopback) holding CLIENTS idle
# `GET /translations/events` streams (benches/sse_idle.py opens them and measures):
# VmRSS before and with them (memory per stream = the difference / CLIENTS), /health
# latency without and with them, and a sync reaching them (a sample read as it comes,
# then every other stream). The producer's own interval is a day, so only the POSTs sync.
#
# Then, on a fresh daemon, the same count of idle kept-alive connections that made one
# GET /health each: what an idle HTTP connection costs without a stream (PARTS=plain).
#
#   benches/sse_idle.sh                           # 10,000 streams, then 10,000 connections
#   PARTS=streams CLIENTS=2000 IDLE=3 benches/sse_idle.sh
#
# Raises the open-file limit to 65536 (or the hard limit if lower) for the daemon and the
# client; CLIENTS streams need a limit above CLIENTS in each. Needs python3 (standard
# library only). DEPOT_BIN=path skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
PARTS=${PARTS:-streams plain}
CLIENTS=${CLIENTS:-10000}
BATCH=${BATCH:-250}
SAMPLE=${SAMPLE:-200}
IDLE=${IDLE:-5}
KEYS=${KEYS:-1000}
LOCALES=${LOCALES:-5}
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
[ "$(ulimit -n)" -gt $((CLIENTS + 100)) ] \
  || { echo "the open-file limit ($(ulimit -n)) is too low for $CLIENTS streams" >&2; exit 1; }
. benches/common.sh
SCRIPTS=$PWD/benches
ADMIN_KEY=sse-bench-$RANDOM$RANDOM

python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from sse_client import write_sheet; write_sheet(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), "sync0")' \
  "$SCRIPTS" "$WORK/sheet.csv" "$KEYS" "$LOCALES"
# Starts a daemon in folder $1; sets PORT and DAEMON.
start() {
  PORT=$(free_port)
  mkdir -p "$WORK/$1"
  # Every stream comes from 127.0.0.1: the caps (16 per address by default) are raised, and
  # the connection cap above the streams (derived from a low open-file limit it may be less).
  (cd "$WORK/$1" && exec env DEPOT_ADMIN_KEYS="$ADMIN_KEY" DEPOT_PRODUCER_INTERVAL_SECS=86400 \
    DEPOT_EVENTS_PER_CLIENT="$CLIENTS" DEPOT_EVENTS_TOTAL="$CLIENTS" DEPOT_CONNECTIONS=$((CLIENTS + 1000)) \
    DEPOT_PRODUCER_SOURCE="$WORK/sheet.csv" \
    "$BIN" serve --listen "127.0.0.1:$PORT" --log-level warn >/dev/null 2>daemon.log) &
  DAEMON=$!
  PIDS+=("$DAEMON")
  for _ in $(seq 200); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.05; done
  curl -sf "http://127.0.0.1:$PORT/health" >/dev/null || { echo "depot did not start:" >&2; cat "$WORK/$1/daemon.log" >&2; exit 1; }
}
# Prints a daemon log's WARN/ERROR lines, apart from the usual one that no API keys are set.
log_check() {
  if grep -E ' (WARN|ERROR) ' "$1" | grep -qv 'no auth.api_keys configured'; then
    echo "daemon log, WARN/ERROR lines:"
    grep -E ' (WARN|ERROR) ' "$1" | grep -v 'no auth.api_keys configured' | head -20
  fi
}
ARGS=(--admin-key "$ADMIN_KEY" --sheet "$WORK/sheet.csv" --clients "$CLIENTS" --batch "$BATCH"
  --sample "$SAMPLE" --idle "$IDLE" --keys "$KEYS" --locales "$LOCALES")

if [[ " $PARTS " == *" streams "* ]]; then
  start streams
  echo "open-file limit: $(awk '/Max open files/{print $4}' "/proc/$DAEMON/limits") (daemon), $(ulimit -n) (client)"
  python3 "$SCRIPTS/sse_idle.py" --base "http://127.0.0.1:$PORT" --pid "$DAEMON" "${ARGS[@]}"
  log_check "$WORK/streams/daemon.log"
  kill "$DAEMON"
fi
if [[ " $PARTS " == *" plain "* ]]; then
  start plain
  python3 "$SCRIPTS/sse_idle.py" --plain --base "http://127.0.0.1:$PORT" --pid "$DAEMON" "${ARGS[@]}"
  log_check "$WORK/plain/daemon.log"
  kill "$DAEMON"
fi
