#!/usr/bin/env bash
# Console pages at scale, against a release build on loopback: 1,000,000 file records and
# a 50,000-key x 20-locale sheet. For each page: its weight (the HTML is the whole page:
# the console loads no other asset) and the server time (first byte minus request sent):
# of the first request (cold caches), then the median and 90th percentile of RUNS more,
# measured with curl.
#
#   benches/console.sh                 # RUNS=20
#   RECORDS=100000 benches/console.sh  # a smaller catalogue
#   DEPOT_BIN=/path/to/depot benches/console.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=${RECORDS:-1000000}
KEYS=${KEYS:-50000}
RUNS=${RUNS:-20}
. benches/common.sh

python3 - "$WORK/sheet.csv" "$KEYS" <<'PY'
import csv, sys
path, keys = sys.argv[1], int(sys.argv[2])
locales = ["en_US", "pl_PL", "de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR", "nl_NL", "sv_SE", "da_DK",
           "fi_FI", "nb_NO", "cs_CZ", "sk_SK", "hu_HU", "ro_RO", "tr_TR", "uk_UA", "ja_JP", "ko_KR"]
with open(path, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["###", ">>>", ">>>", ">>>"] + locales)
    n = 0
    sections = keys // 500
    for s in range(sections):
        w.writerow(["", f"SECTION{s:03d}"])
        for sub in range(10):
            w.writerow([f"tag{sub % 4}", "", f"SUB{sub:02d}"])
            for k in range(50):
                n += 1
                # Every 7th key lacks its last locale; every 11th has a placeholder mismatch.
                texts = [f"{l} text {n} for {{name}}" for l in locales]
                if n % 7 == 0:
                    texts[-1] = ""
                if n % 11 == 0:
                    texts[1] = f"pl_PL text {n}"
                w.writerow(["", "", "", f"KEY{k:03d}"] + texts)
PY

cd "$WORK"
"$BIN" files seed "$RECORDS" --quiet >&2
"$BIN" produce --once --source sheet.csv >&2
PORT=$(free_port)
"$BIN" serve --listen "127.0.0.1:$PORT" --log-level warn --set producer.source=sheet.csv 2>daemon.log &
PIDS+=($!)
BASE="http://127.0.0.1:$PORT"
for _ in $(seq 200); do curl -sf "$BASE/health" >/dev/null && break; sleep 0.1; done
KEY=$(curl -s "$BASE/files?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0]["key"])')
ENCODED_KEY=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$KEY")

# Prints "| page | KB | first ms | median ms | p90 ms |" for one path (shown as $2 when
# given).
measure() {
  local path=$1 label=${2:-$1} times=() first size
  # The first request fills the caches (file records, renditions).
  first=$(curl -s -o /dev/null -w '%{time_starttransfer} %{time_pretransfer}' "$BASE$path")
  size=$(curl -s -o /dev/null -w '%{size_download}' "$BASE$path")
  for _ in $(seq "$RUNS"); do
    times+=("$(curl -s -o /dev/null -w '%{time_starttransfer} %{time_pretransfer}' "$BASE$path")")
  done
  printf '%s\n' "${times[@]}" | python3 -c '
import sys
path, size, first = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
ms = sorted((float(a) - float(b)) * 1000 for a, b in (l.split() for l in sys.stdin))
p = lambda q: ms[min(len(ms) - 1, int(q * len(ms)))]
cold = (float(first[0]) - float(first[1])) * 1000
print(f"| `{path}` | {size / 1024:.1f} | {cold:.2f} | {p(0.5):.2f} | {p(0.9):.2f} |")
' "$label" "$size" "$first"
}

echo "| page | weight (KB) | first request (ms) | server time, median (ms) | p90 (ms) |"
echo "|---|---:|---:|---:|---:|"
for path in \
  "/" \
  "/console/translations" \
  "/console/translations?q=text+49999" \
  "/console/translations?show=missing" \
  "/console/translations?locale=pl_PL&show=placeholders" \
  "/console/translations?section=SECTION050&page=2" \
  "/console/preview?filters=pl_PL.SECTION050&format=android" \
  "/console/files" \
  "/console/files?page=20000" \
  "/console/files?fileName=report" \
  "/console/login"; do
  measure "$path"
done
measure "/console/file?key=$ENCODED_KEY" "/console/file?key=<a seeded key>"
