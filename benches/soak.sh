#!/usr/bin/env bash
# Soak: one release daemon on loopback under a bounded mixed load (benches/soak.py): reads of
# every route, uploads and deletes, the sheet rewritten every 3 s with the producer at a 1 s
# interval, config edits every 10 s; RSS, open fds and threads sampled. Fails on any 5xx, a
# kept upload that does not download byte for byte, or RSS growth after warm-up.
#
#   benches/soak.sh                      # 30 minutes, a sample every 30 s
#   SOAK_SECS=300 SAMPLE_SECS=10 benches/soak.sh
#
# Needs python3 (standard library only). DEPOT_BIN=path skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
export SOAK_SECS=${SOAK_SECS:-1800}
RECORDS=${RECORDS:-100000}

if [ -z "${DEPOT_BIN:-}" ]; then cargo build --release --quiet; fi
BIN=${DEPOT_BIN:-$PWD/target/release/depot}
SCRIPTS=$PWD/benches
WORK=$(mktemp -d)
DAEMON=""
trap '[ -n "$DAEMON" ] && kill $DAEMON 2>/dev/null; rm -rf "$WORK"' EXIT
cd "$WORK"

ADMIN_KEY=soak-admin-$RANDOM$RANDOM
mkdir config
cat > config/depot.toml <<TOML
[files]
default_limit = 25

[producer]
source = "sheet.csv"
interval_secs = 1

[auth]
admin_keys = ["$ADMIN_KEY"]
TOML
"$BIN" files seed "$RECORDS" >/dev/null 2>&1
printf '###,>>>,>>>,en_US\n,A,,\n,,B,text\n' > sheet.csv
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ADDR=127.0.0.1:$PORT
"$BIN" serve --listen "$ADDR" --log-level warn 2>daemon.log &
DAEMON=$!
for _ in $(seq 200); do curl -sf "http://$ADDR/health" >/dev/null && break; sleep 0.1; done
curl -sf "http://$ADDR/health" >/dev/null || { echo "soak: the daemon did not start:" >&2; cat daemon.log >&2; exit 1; }

status=0
BASE="http://$ADDR" PID=$DAEMON WORK=$WORK ADMIN_KEY=$ADMIN_KEY python3 "$SCRIPTS/soak.py" || status=$?
errors=$(grep -c ' ERROR ' daemon.log || true)
echo "daemon log: $(wc -l < daemon.log) lines, $errors at ERROR"
exit $status
