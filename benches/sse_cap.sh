#!/usr/bin/env bash
# The caps of GET /translations/events on a release daemon with its defaults
# (limits.events_per_client 16, limits.events_total 10000): benches/sse_cap.py opens streams
# from one address until the per-client 429, then from many loopback addresses until the
# node's 429, and reports VmRSS before, with the cap reached and after the streams closed.
#
#   benches/sse_cap.sh
#   PER_CLIENT=4 TOTAL=1000 benches/sse_cap.sh      # other caps (set on the daemon too)
#
# Raises the open-file limit to 65536 (or the hard limit) for the daemon and the client.
# Needs python3 (standard library only). DEPOT_BIN=path skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
PER_CLIENT=${PER_CLIENT:-16}
TOTAL=${TOTAL:-10000}
IDLE=${IDLE:-5}
ROUNDS=${ROUNDS:-3}
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
[ "$(ulimit -n)" -gt $((TOTAL + 100)) ] \
  || { echo "the open-file limit ($(ulimit -n)) is too low for $TOTAL streams" >&2; exit 1; }
. benches/common.sh
PORT=$(free_port)
mkdir -p "$WORK/daemon"
# The connection cap is set above the streams: derived from a 20,000 open-file limit it
# would be 9,872, and streams past it would be refused before the events cap answers 429.
(cd "$WORK/daemon" && exec env DEPOT_EVENTS_PER_CLIENT="$PER_CLIENT" DEPOT_EVENTS_TOTAL="$TOTAL" \
  DEPOT_PRODUCER_INTERVAL_SECS=86400 DEPOT_CONNECTIONS=$((TOTAL + 1000)) \
  "$BIN" serve --listen "127.0.0.1:$PORT" --log-level warn >/dev/null 2>daemon.log) &
DAEMON=$!
PIDS+=("$DAEMON")
for _ in $(seq 200); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.05; done
curl -sf "http://127.0.0.1:$PORT/health" >/dev/null || { echo "depot did not start:" >&2; cat "$WORK/daemon/daemon.log" >&2; exit 1; }
python3 benches/sse_cap.py --base "http://127.0.0.1:$PORT" --pid "$DAEMON" \
  --per-client "$PER_CLIENT" --total "$TOTAL" --idle "$IDLE" --rounds "$ROUNDS"
