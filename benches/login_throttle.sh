#!/usr/bin/env bash
# Wrong console logins one client address gets compared per second (SPEC §10): a release
# daemon with an API key, and benches/login_throttle.py sending wrong keys from 127.0.0.1
# over WORKERS kept-alive connections for SECONDS. The daemon runs with its defaults
# (limits.login_attempts 5, limits.login_refill_secs 20).
#
#   benches/login_throttle.sh                            # this tree's release build
#   DEPOT_BIN=/path/to/old/depot benches/login_throttle.sh   # another build (the "before")
#   RUN_SECS=30 WORKERS=16 benches/login_throttle.sh
#
# Needs python3 (standard library only).
set -euo pipefail
cd "$(dirname "$0")/.."
RUN_SECS=${RUN_SECS:-10}
WORKERS=${WORKERS:-8}
. benches/common.sh
PORT=$(free_port)
mkdir -p "$WORK/daemon"
(cd "$WORK/daemon" && exec env DEPOT_API_KEYS=bench-reader-key DEPOT_ADMIN_KEYS=bench-admin-key \
  "$BIN" serve --listen "127.0.0.1:$PORT" >/dev/null 2>daemon.log) &
PIDS+=($!)
for _ in $(seq 200); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.05; done
python3 benches/login_throttle.py --base "http://127.0.0.1:$PORT" --seconds "$RUN_SECS" --workers "$WORKERS"
echo "WARN lines about wrong keys in the daemon log: $(grep -c 'console login refused' "$WORK/daemon/daemon.log" || true)"
