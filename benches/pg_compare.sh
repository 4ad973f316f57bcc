#!/usr/bin/env bash
# File records on PostgreSQL against SQLite at RECORDS records (default 1,000,000), release
# build on loopback, both in one run:
#  1. wrk on /files page 1, permission=private, page 1000 and /file?key=, each as a ratio
#     to /health measured just before on the same node;
#  2. uncached fileName search (a new needle and limit per request, benches/files_search.lua)
#     from one client: p50 and p99;
#  3. write-to-visible latency across two PostgreSQL nodes (benches/visible.py);
#  4. `depot files import` of RECORDS records from a CSV file into an empty PostgreSQL
#     database (COPY), timed.
#
#   benches/pg_compare.sh
#   RECORDS=100000 DURATION=5s benches/pg_compare.sh
#   PARTS=import benches/pg_compare.sh          # only some of: http visible import
#
# Starts its own PostgreSQL (Debian's postgresql package) in a temporary folder as the
# system user depot-pg (created if missing; PostgreSQL refuses to run as root), on a free
# port. Needs wrk, curl and python3. DEPOT_BIN=path skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
RECORDS=${RECORDS:-1000000}
SEARCH_DURATION=${SEARCH_DURATION:-20s}
VISIBLE_SAMPLES=${VISIBLE_SAMPLES:-200}
PARTS=${PARTS:-http visible import}
part() { [[ " $PARTS " == *" $1 "* ]]; }

command -v wrk >/dev/null || { echo "wrk is needed: apt-get install -y wrk" >&2; exit 1; }
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$PG_BIN/initdb" ] || { echo "PostgreSQL is needed: apt-get install -y postgresql" >&2; exit 1; }
SCRIPTS=$PWD/benches
. benches/common.sh
chmod 755 "$WORK" # PostgreSQL runs as depot-pg below it

# PostgreSQL as depot-pg, trusting local connections, on a free port.
id -u depot-pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin depot-pg
mkdir -p "$WORK/pg" && chown depot-pg: "$WORK/pg"
as_pg() { (cd "$WORK/pg" && HOME=$WORK/pg runuser -u depot-pg -- "$@"); }
as_pg "$PG_BIN/initdb" -D "$WORK/pg/data" -U depot --auth=trust -E UTF8 --no-locale >/dev/null
PG_PORT=$(free_port)
as_pg "$PG_BIN/postgres" -D "$WORK/pg/data" -p "$PG_PORT" -k "$WORK/pg" \
  -c listen_addresses=127.0.0.1 >"$WORK/pg/log" 2>&1 </dev/null &
PIDS+=($!)
for _ in $(seq 100); do as_pg "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" && break; sleep 0.2; done
PG_URL="postgres://depot@127.0.0.1:$PG_PORT/postgres"

# Starts a node in folder $1 on a free port with the environment after it; sets NODE to
# its URL and NODE_PID.
start_node() {
  local dir=$WORK/$1; shift
  mkdir -p "$dir"
  local port
  port=$(free_port)
  (cd "$dir" && exec env DEPOT_ADMIN_KEYS=adm "$@" "$BIN" serve --listen "127.0.0.1:$port" \
    --log-level warn >/dev/null 2>"$dir/daemon.log") &
  NODE_PID=$!
  PIDS+=($NODE_PID)
  NODE=http://127.0.0.1:$port
  for _ in $(seq 300); do curl -sf "$NODE/health" >/dev/null && break; sleep 0.1; done
}

measure() {
  local out
  out=$(wrk "$@")
  if grep -q "Non-2xx" <<<"$out"; then echo "unexpected non-2xx answers: $*" >&2; fi
  echo "$(awk '/Requests\/sec/{print $2}' <<<"$out") $(awk '$1=="50%"{print $2}' <<<"$out") $(awk '$1=="99%"{print $2}' <<<"$out")"
}

# The table rows of one node: $1 its name, $2 its URL.
rows() {
  local name=$1 base=$2 key health p50 p99 rps
  key=$(curl -s "$base/files?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0]["key"])')
  for path in "/files" "/files?permission=private" "/files?page=1000" "/file?key=$key"; do
    read -r health _ _ < <(measure -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$base/health")
    read -r rps p50 p99 < <(measure -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$base$path")
    printf '| %s | %s | %s | %s | %s | %s | %s%% |\n' "$name" "${path/$key/…}" "$rps" "$p50" "$p99" "$health" \
      "$(python3 -c "print(round(100*$rps/$health))")"
  done
  # Five seconds of the same load first: the node builds its name index at start (seconds
  # at a million records), and searches until then are the database's.
  wrk -t1 -c1 -d5s -s "$SCRIPTS/files_search.lua" "$base" >/dev/null
  read -r rps p50 p99 < <(measure -t1 -c1 -d"$SEARCH_DURATION" --latency -s "$SCRIPTS/files_search.lua" "$base")
  SEARCH_ROWS+="| $name | $rps | $p50 | $p99 |"$'\n'
}

if part http || part visible; then
  echo "seeding $RECORDS records into SQLite and into PostgreSQL..." >&2
  (mkdir -p "$WORK/sqlite" && cd "$WORK/sqlite" && "$BIN" files seed "$RECORDS" >&2)
  (cd "$WORK" && DEPOT_DATABASE_URL=$PG_URL "$BIN" files seed "$RECORDS" >&2)
fi

if part http; then
  SEARCH_ROWS=""
  echo "| backend | endpoint | requests/s | p50 | p99 | /health just before | vs /health |"
  echo "|---|---|---|---|---|---|---|"
  start_node sqlite
  rows SQLite "$NODE"
  kill "$NODE_PID"
  start_node pg-a DEPOT_DATABASE_URL="$PG_URL"
  rows PostgreSQL "$NODE"
  kill "$NODE_PID"
  echo
  echo "Uncached fileName search, one client, $SEARCH_DURATION (benches/files_search.lua):"
  echo
  echo "| backend | requests/s | p50 | p99 |"
  echo "|---|---|---|---|"
  printf '%s' "$SEARCH_ROWS"
  echo
fi

if part visible; then
  start_node pg-a DEPOT_DATABASE_URL="$PG_URL"
  PG_A=$NODE
  start_node pg-b DEPOT_DATABASE_URL="$PG_URL"
  echo "Write-to-visible across two PostgreSQL nodes ($VISIBLE_SAMPLES uploads):"
  python3 "$SCRIPTS/visible.py" "$PG_A" "$NODE" "$VISIBLE_SAMPLES"
fi

if part import; then
  python3 - "$WORK/records.csv" "$RECORDS" <<'PY'
import csv, sys
words = ["annual", "report", "holiday", "photo", "invoice", "café", "straße", "отчёт"]
with open(sys.argv[1], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["fileName", "description", "bucket", "status", "fileType", "permission", "key", "createdAt"])
    for i in range(int(sys.argv[2])):
        w.writerow([f"{words[i % 8]} {words[i // 8 % 8]} {i}.pdf", f"record {i}", "depot-files", i % 3,
                    "pdf", "private" if i % 5 == 0 else "public", f"imported/{i:09d}.pdf",
                    f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T10:{i % 60:02d}:00.{i % 1000:03d}Z"])
PY
  as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U depot imported
  start=$(date +%s.%N)
  (cd "$WORK" && DEPOT_DATABASE_URL="postgres://depot@127.0.0.1:$PG_PORT/imported" \
    "$BIN" files import records.csv >&2)
  end=$(date +%s.%N)
  printf 'files import of %s records from CSV into PostgreSQL: %.1f s\n' "$RECORDS" \
    "$(python3 -c "print($end - $start)")"
fi
