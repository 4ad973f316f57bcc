#!/usr/bin/env bash
# Load test against a release build on loopback: 1,000,000 file records and a
# 10,000-key x 5-locale translations document; wrk against each endpoint, with /health
# measured in the same run as the reference. Prints one table row per endpoint.
#
#   benches/load.sh            # 10 s per endpoint, 2 threads, 64 connections
#   DURATION=5s benches/load.sh
#
# Then the kept-alive latency of every route: one connection, one request at a time
# (wrk -t1 -c1), which is what an app fetching one small thing after another sees; a
# response that waits for the client's delayed ACK shows here as ~40 ms instead of ~1 ms.
#
#   ONLY=keepalive RECORDS=1000 DURATION=5s benches/load.sh   # just that table
#   DEPOT_BIN=/path/to/depot benches/load.sh                 # another build (before/after)
#
# Needs wrk (Debian: apt-get install wrk) and python3 (to generate the sheet).
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=${RECORDS:-1000000}
PORT=${PORT:-3917}

command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }
. benches/common.sh

python3 - "$WORK/sheet.csv" <<'PY'
import csv, sys
locales = ["en_US", "pl_PL", "de_DE", "fr_FR", "es_ES"]
with open(sys.argv[1], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["###", ">>>", ">>>", ">>>"] + locales)
    n = 0
    for s in range(20):
        w.writerow(["", f"SECTION{s:02d}"])
        for sub in range(10):
            w.writerow(["tag%d" % (sub % 4), "", f"SUB{sub:02d}"])
            for k in range(50):
                n += 1
                w.writerow(["", "", "", f"KEY{k:03d}"] + [f"{l} text {n} with \"quotes\" & ampersands" for l in locales])
PY

SCRIPTS=$PWD/benches
cd "$WORK"
"$BIN" files seed "$RECORDS" >&2
"$BIN" produce --once --source sheet.csv >&2
# A small object in the embedded store, for the /objects row.
printf 'hello, small object\n' > small.txt
SMALL_KEY=$("$BIN" files add small.txt | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')
"$BIN" serve --listen "127.0.0.1:$PORT" --log-level warn 2>daemon.log &
DAEMON=$!
PIDS+=($DAEMON)
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 100); do curl -sf "$BASE/health" >/dev/null && break; sleep 0.1; done

KEY=$(curl -s "$BASE/files?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0]["key"])')
ETAG=$(curl -s -D - -o /dev/null "$BASE/translations" | awk 'tolower($1)=="etag:"{print $2}' | tr -d '\r')
OBJECT=$(curl -s "$BASE/file?key=$SMALL_KEY" | python3 -c 'import json,sys; print(json.load(sys.stdin)["signedUrl"])')

# Prints "requests/s p50 p99" for one URL (extra wrk arguments after the URL).
measure() {
  local url=$1; shift
  local out
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@" "$url")
  local rps p50 p99
  rps=$(awk '/Requests\/sec/{print $2}' <<<"$out")
  p50=$(awk '$1=="50%"{print $2}' <<<"$out")
  p99=$(awk '$1=="99%"{print $2}' <<<"$out")
  if grep -q "Non-2xx" <<<"$out" && [ "${EXPECT_NON_2XX:-}" != 1 ]; then
    echo "unexpected non-2xx answers for $url" >&2
    grep "Non-2xx" <<<"$out" >&2
  fi
  echo "$rps $p50 $p99"
}

# One kept-alive connection, one request at a time, every route.
keepalive() {
  printf '| kept-alive, 1 connection | requests/s | p50 | p99 |\n|---|---|---|---|\n'
  local name url rps p50 p99
  while IFS='|' read -r name url; do
    read -r rps p50 p99 < <(CONNECTIONS=1 THREADS=1 EXPECT_NON_2XX=1 measure "$url" "${ACCEPT[@]}")
    printf '| %s | %s | %s | %s |\n' "$name" "$rps" "$p50" "$p99"
  done <<ROUTES
GET /health|$BASE/health
GET /metrics|$BASE/metrics
GET /openapi.json|$BASE/openapi.json
GET /files|$BASE/files
GET /file?key=…|$BASE/file?key=$KEY
GET /translations?filters[]=en_US.SECTION03 (br)|$BASE/translations?filters%5B%5D=en_US.SECTION03
GET /objects/… (20-byte object)|$OBJECT
GET /oauth2callback (404)|$BASE/oauth2callback
ROUTES
}
ACCEPT=(-H "Accept-Encoding: gzip, br")
if [ "${ONLY:-}" = keepalive ]; then
  keepalive
  exit 0
fi

printf '| endpoint | requests/s | p50 | p99 | vs /health |\n|---|---|---|---|---|\n'
read -r HEALTH HP50 HP99 < <(measure "$BASE/health")
printf '| /health | %s | %s | %s | 100%% |\n' "$HEALTH" "$HP50" "$HP99"
row() {
  local name=$1; shift
  local rps p50 p99
  read -r rps p50 p99 < <(measure "$@")
  printf '| %s | %s | %s | %s | %s%% |\n' "$name" "$rps" "$p50" "$p99" \
    "$(python3 -c "print(round(100*$rps/$HEALTH))")"
}
row "/files (page 1)" "$BASE/files"
row "/files?permission=private" "$BASE/files?permission=private"
row "/files?fileName=holiday" "$BASE/files?fileName=holiday"
row "/files?page=1000" "$BASE/files?page=1000"
row "/file?key=…" "$BASE/file?key=$KEY"
# Translations are fetched by apps and browsers that accept compression; the identity row
# shows the uncompressed 2.8 MB document, which is bound by loopback bandwidth.
row "/translations (json, no filter, br)" "$BASE/translations" "${ACCEPT[@]}"
row "/translations (json, no filter, identity 2.8 MB)" "$BASE/translations"
row "/translations?filters[]=en_US.SECTION03" "$BASE/translations?filters%5B%5D=en_US.SECTION03" "${ACCEPT[@]}"
row "/translations?filters[]=en_US.tag1" "$BASE/translations?filters%5B%5D=en_US.tag1" "${ACCEPT[@]}"
row "/translations?format=android (br)" "$BASE/translations?format=android" "${ACCEPT[@]}"
row "/translations?format=android&filters[]=en_US.SECTION03" "$BASE/translations?format=android&filters%5B%5D=en_US.SECTION03" "${ACCEPT[@]}"
EXPECT_NON_2XX=1 row "/translations 304 (If-None-Match)" "$BASE/translations" -H "If-None-Match: $ETAG"
# The read cache answers repeated /files URLs; random needles and limits measure the
# SQLite trigram search itself, from one client (latency) and four.
CONNECTIONS=1 THREADS=1 row "/files?fileName=<random> (uncached, 1 client)" "$BASE" -s "$SCRIPTS/files_search.lua"
CONNECTIONS=4 THREADS=1 row "/files?fileName=<random> (uncached, 4 clients)" "$BASE" -s "$SCRIPTS/files_search.lua"
read -r HEALTH2 _ _ < <(measure "$BASE/health")
printf '| /health (again, at the end) | %s | | | |\n' "$HEALTH2"
echo
keepalive
