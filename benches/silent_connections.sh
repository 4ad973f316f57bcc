#!/usr/bin/env bash
# Silent connections against one release daemon with default settings (issue 30): COUNT TCP
# connections that never send a byte (benches/silent_connections.py, in processes of at
# most CHUNK each) are opened and held for HOLD seconds. While they are held: /health
# latency over a new connection (curl, five times), the daemon's descriptors (most seen,
# sampled every 0.1 s) and RSS; then when the daemon closed them, and its log lines.
#
#   benches/silent_connections.sh                      # 2,000 then 20,000 connections
#   COUNTS=2000 HOLD=40 benches/silent_connections.sh
#   DEPOT_BIN=/path/to/depot benches/silent_connections.sh   # another build
#
# The daemon runs with the open-file limit of this shell (`ulimit -n`; it raises its soft
# limit to the hard one itself). Needs python3 and curl.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNTS=${COUNTS:-2000 20000}
HOLD=${HOLD:-40}
CHUNK=${CHUNK:-5000}
. benches/common.sh
SCRIPTS=$PWD/benches

fds() { ls "/proc/$1/fd" 2>/dev/null | wc -l; }
rss_mib() { awk -v k="$2" '$1 == k":" { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

printf 'daemon open-file limit: soft %s, hard %s (raised to the hard one at start)\n' \
  "$(ulimit -Sn)" "$(ulimit -Hn)"
for count in $COUNTS; do
  dir=$WORK/$count
  mkdir -p "$dir"
  port=$(free_port)
  (cd "$dir" && exec "$BIN" serve --listen "127.0.0.1:$port" 2>"$dir/log") &
  daemon=$!
  PIDS+=("$daemon")
  for _ in $(seq 200); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.05; done
  rest_fds=$(fds "$daemon")
  rest_rss=$(rss_mib "$daemon" VmRSS)

  # Descriptors sampled for the whole hold.
  (while kill -0 "$daemon" 2>/dev/null; do fds "$daemon"; sleep 0.1; done) >"$dir/fds" &
  sampler=$!

  clients=()
  left=$count
  while [ "$left" -gt 0 ]; do
    n=$((left < CHUNK ? left : CHUNK))
    python3 "$SCRIPTS/silent_connections.py" 127.0.0.1 "$port" "$n" "$HOLD" "$dir/ready" \
      >"$dir/client.$left.json" &
    clients+=($!)
    left=$((left - n))
  done
  started=$(date +%s.%N)
  while [ "$(cat "$dir/ready" 2>/dev/null | wc -l)" -lt "${#clients[@]}" ]; do sleep 0.05; done
  opened_in=$(echo "$(date +%s.%N) - $started" | bc)

  health=()
  for _ in 1 2 3 4 5; do
    health+=("$(curl -s -o /dev/null -w '%{http_code}:%{time_total}' --max-time 5 \
      "http://127.0.0.1:$port/health" || echo "timeout:5")")
    sleep 0.2
  done
  held_fds=$(fds "$daemon")
  held_rss=$(rss_mib "$daemon" VmRSS)

  for pid in "${clients[@]}"; do wait "$pid"; done
  kill "$sampler" 2>/dev/null || true
  peak_rss=$(rss_mib "$daemon" VmHWM)
  after_fds=$(fds "$daemon")
  most_fds=$(sort -n "$dir/fds" | tail -1)
  kill "$daemon"
  wait "$daemon" 2>/dev/null || true

  python3 - "$dir" "$count" <<'PY'
import glob, json, sys
d, count = sys.argv[1], int(sys.argv[2])
runs = [json.loads(open(f).read()) for f in glob.glob(d + "/client.*.json")]
closed = sorted(c for r in runs for c in r["closed_after"])
opened = sum(r["opened"] for r in runs)
early = sum(1 for c in closed if 0 <= c < 5)
late = [c for c in closed if c >= 5]
print("  opened %d of %d (%d failed); the daemon closed %d: %d within 5 s of their open "
      "(to make room), %d after %s-%s s; %d still open at the end"
      % (opened, count, sum(r["failed"] for r in runs), len(closed), early, len(late),
         late[0] if late else "-", late[-1] if late else "-",
         sum(r["still_open"] for r in runs)))
PY
  log=$dir/log
  echo "  /health (status:seconds) while held: ${health[*]}"
  echo "  descriptors: $rest_fds at rest, $held_fds while held, most $most_fds, $after_fds after"
  echo "  RSS MiB: $rest_rss at rest, $held_rss while held, peak $peak_rss; opened in ${opened_in} s"
  echo "  log: $(wc -l <"$log") lines, $(grep -c -e ' WARN ' -e ' ERROR ' "$log" || true) WARN/ERROR," \
    "$(grep -c 'Too many open files' "$log" || true) 'Too many open files'"
  grep -e ' WARN ' -e ' ERROR ' "$log" | sed 's/^/    /' | cut -c1-400 || true
done
