#!/usr/bin/env bash
# Time from saving a local sheet (producer.source a .csv) to a new ETag of /translations:
# SAVES saves by rename, each a new version, with the producer's interval at its default
# (5 minutes), so only the watch of the sheet's folder brings the change in
# (benches/watch_latency.py saves and polls). Run once for a small and once for a large
# sheet.
#
#   benches/watch_latency.sh                  # 50 saves, 100 and 10,000 keys x 5 locales
#   SAVES=20 SIZES="1000" benches/watch_latency.sh
#
# Needs python3 (standard library only). DEPOT_BIN=path skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
SAVES=${SAVES:-50}
SIZES=${SIZES:-100 10000}
LOCALES=${LOCALES:-5}
. benches/common.sh
SCRIPTS=$PWD/benches

for keys in $SIZES; do
  dir=$WORK/keys-$keys
  mkdir -p "$dir"
  python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from sse_client import write_sheet; write_sheet(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), "save0")' \
    "$SCRIPTS" "$dir/sheet.csv" "$keys" "$LOCALES"
  port=$(free_port)
  (cd "$dir" && exec env DEPOT_PRODUCER_SOURCE="$dir/sheet.csv" \
    "$BIN" serve --listen "127.0.0.1:$port" --log-level warn >/dev/null 2>daemon.log) &
  pid=$!
  PIDS+=("$pid")
  for _ in $(seq 400); do
    curl -sf "http://127.0.0.1:$port/health" 2>/dev/null | grep -q '"loaded":true' && break
    sleep 0.05
  done
  python3 "$SCRIPTS/watch_latency.py" --label "$keys keys" --url "http://127.0.0.1:$port" \
    --sheet "$dir/sheet.csv" --saves "$SAVES" --keys "$keys" --locales "$LOCALES"
  grep -E ' (WARN|ERROR) ' "$dir/daemon.log" | grep -v 'no auth.api_keys configured' | head -5 || true
  kill "$pid"
done
