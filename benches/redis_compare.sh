#!/usr/bin/env bash
# Translations on Redis against sled, on a release build on loopback (results in
# docs/performance.md, "Translations on Redis"):
#  1. /translations throughput of a Redis-backed node and a sled-backed node in the same
#     run (the 10,000-key x 5-locale sheet of benches/load.sh), one wrk on each at the same
#     time, so that other load on the machine slows both alike;
#  2. new-version propagation to two Redis-backed nodes over CHANGES changes: from the
#     moment Redis announces the version (a redis-cli subscriber) to the moment each node's
#     /health reports it (polled round-robin, about 1 ms apart);
#  3. memory of a Redis-backed node holding KEYS keys x LOCALES locales: RSS once loaded
#     and again after a few renders filled the render cache.
#
#   benches/redis_compare.sh                      # all three
#   PARTS="propagation memory" benches/redis_compare.sh
#   DURATION=5s CHANGES=20 KEYS=5000 benches/redis_compare.sh
#
# Needs redis-server, wrk and python3 (Debian: apt-get install -y redis-server wrk).
# DEPOT_BIN=path skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
PARTS=${PARTS:-throughput propagation memory}
CHANGES=${CHANGES:-100}
KEYS=${KEYS:-50000}
LOCALES=${LOCALES:-20}

for tool in redis-server wrk python3; do
  command -v "$tool" >/dev/null || { echo "$tool is needed: apt-get install -y ${tool/python3/python3}" >&2; exit 1; }
done
. benches/common.sh

start_redis
export DEPOT_TRANSLATIONS_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"

# Writes a sheet of $2 keys x $3 locales to $1; $4 goes into every text of the first key
# (so each change is a new version).
sheet() {
  python3 - "$@" <<'PY'
import csv, sys
path, keys, nlocales, mark = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
base = ["en_US", "pl_PL", "de_DE", "fr_FR", "es_ES"]
locales = (base + [f"l{i:02d}_XX" for i in range(nlocales)])[:nlocales]
with open(path, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["###", ">>>", ">>>", ">>>"] + locales)
    n = 0
    sections = max(1, keys // 500)
    for s in range(sections):
        w.writerow(["", f"SECTION{s:03d}"])
        for sub in range(10):
            w.writerow(["tag%d" % (sub % 4), "", f"SUB{sub:02d}"])
            for k in range(50):
                n += 1
                extra = f" {mark}" if n == 1 else ""
                w.writerow(["", "", "", f"KEY{k:03d}"] + [f"{l} text {n} with \"quotes\" & ampersands{extra}" for l in locales])
PY
}

# Starts `depot serve` in folder $1 with extra arguments; prints "pid base-url".
serve() {
  local dir=$1; shift
  local port; port=$(free_port)
  (cd "$dir" && exec "$BIN" serve --listen "127.0.0.1:$port" --log-level warn "$@" >/dev/null 2>daemon.log) &
  local pid=$!
  for _ in $(seq 600); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
    sleep 0.05
  done
  echo "$pid http://127.0.0.1:$port"
}

rss_kib() { awk '/^VmRSS/{print $2}' "/proc/$1/status"; }

if [[ " $PARTS " == *" throughput "* ]]; then
  mkdir -p "$WORK/sled" "$WORK/redisnode"
  sheet "$WORK/load.csv" 10000 5 v0
  (cd "$WORK/sled" && "$BIN" produce --once --source ../load.csv >&2)
  (cd "$WORK/redisnode" && DEPOT_TRANSLATIONS_STORAGE=redis "$BIN" produce --once --source ../load.csv >&2)
  read -r SLED_PID SLED < <(serve "$WORK/sled" --set producer.enabled=false)
  PIDS+=("$SLED_PID")
  read -r REDIS_PID REDISNODE < <(DEPOT_TRANSLATIONS_STORAGE=redis serve "$WORK/redisnode" --set producer.enabled=false)
  PIDS+=("$REDIS_PID")
  [ "$(curl -s "$SLED/translations" | md5sum)" = "$(curl -s "$REDISNODE/translations" | md5sum)" ] \
    || { echo "the two nodes serve different bodies" >&2; exit 1; }

  # Prints the requests/s of one wrk run (its arguments) with half the threads and
  # connections: the two nodes are loaded at the same time.
  rps() {
    local out
    out=$(wrk -t"$(( (THREADS + 1) / 2 ))" -c"$((CONNECTIONS / 2))" -d"$DURATION" "$@")
    if grep -q "Non-2xx" <<<"$out"; then echo "non-2xx answers: $*" >&2; exit 1; fi
    awk '/Requests\/sec/{print $2}' <<<"$out"
  }
  ACCEPT=(-H "Accept-Encoding: gzip, br")
  printf '| /translations | sled node (req/s) | Redis node (req/s) | Redis / sled |\n|---|---|---|---|\n'
  while IFS='|' read -r name query; do
    # Both nodes are loaded at the same time (one wrk each), so that whatever else runs on
    # the machine slows both alike; the mean of two such runs.
    s=0; r=0
    for _ in 1 2; do
      rps "${ACCEPT[@]}" "$SLED/translations$query" >"$WORK/s.rps" &
      local_s=$!
      rps "${ACCEPT[@]}" "$REDISNODE/translations$query" >"$WORK/r.rps" &
      wait "$local_s" $!
      s=$(python3 -c "print($s + $(cat "$WORK/s.rps"))")
      r=$(python3 -c "print($r + $(cat "$WORK/r.rps"))")
    done
    python3 -c "s=$s/2; r=$r/2; print(f'| $name | {s:.0f} | {r:.0f} | {100*r/s:.0f}% |')"
  done <<'ROWS'
json, no filter (br)|
json, filters[]=en_US.SECTION003|?filters%5B%5D=en_US.SECTION003
json, filters[]=en_US.tag1|?filters%5B%5D=en_US.tag1
android, no filter (br)|?format=android
android, filters[]=en_US.SECTION003|?format=android&filters%5B%5D=en_US.SECTION003
ROWS
  kill "$SLED_PID" "$REDIS_PID"
fi

if [[ " $PARTS " == *" propagation "* ]]; then
  mkdir -p "$WORK/producer" "$WORK/n1" "$WORK/n2"
  sheet "$WORK/producer/sheet.csv" 10000 5 change0
  (cd "$WORK/producer" && DEPOT_TRANSLATIONS_STORAGE=redis "$BIN" produce --once --source sheet.csv >/dev/null)
  read -r N1_PID N1 < <(DEPOT_TRANSLATIONS_STORAGE=redis serve "$WORK/n1" --set producer.enabled=false)
  read -r N2_PID N2 < <(DEPOT_TRANSLATIONS_STORAGE=redis serve "$WORK/n2" --set producer.enabled=false)
  PIDS+=("$N1_PID" "$N2_PID")
  python3 - "$BIN" "$WORK/producer" "$REDIS_PORT" "$CHANGES" "$N1" "$N2" <<'PY'
import csv, json, os, subprocess, sys, time, urllib.request
binary, folder, port, changes, nodes = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
sheet = os.path.join(folder, "sheet.csv")
text = open(sheet).read()
sub = subprocess.Popen(["redis-cli", "-p", port, "SUBSCRIBE", "depot:events"],
                       stdout=subprocess.PIPE, text=True, bufsize=1)
for _ in range(3):
    sub.stdout.readline()  # subscribe, channel, count
env = dict(os.environ, DEPOT_TRANSLATIONS_STORAGE="redis")
def version(node):
    with urllib.request.urlopen(node + "/health") as r:
        return json.load(r)["translations"]["version"]
latencies = []
for i in range(1, changes + 1):
    with open(sheet + ".tmp", "w") as f:
        f.write(text.replace("change0", f"change{i}"))
    os.replace(sheet + ".tmp", sheet)
    produce = subprocess.Popen([binary, "produce", "--once", "--source", "sheet.csv"],
                               cwd=folder, env=env, stdout=subprocess.DEVNULL)
    kind, channel, new = (sub.stdout.readline().strip() for _ in range(3))
    announced = time.monotonic()
    pending = list(nodes)
    while pending:
        for node in list(pending):
            if version(node) == new:
                latencies.append((time.monotonic() - announced) * 1000)
                pending.remove(node)
    produce.wait()
latencies.sort()
pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
print(f"propagation over {changes} changes x {len(nodes)} nodes ({len(latencies)} samples): "
      f"p50 {pick(0.5):.1f} ms, p99 {pick(0.99):.1f} ms, max {latencies[-1]:.1f} ms")
PY
  kill "$N1_PID" "$N2_PID"
fi

if [[ " $PARTS " == *" memory "* ]]; then
  mkdir -p "$WORK/big" "$WORK/bignode" "$WORK/bigsled"
  sheet "$WORK/big/sheet.csv" "$KEYS" "$LOCALES" v0
  (cd "$WORK/big" && DEPOT_TRANSLATIONS_STORAGE=redis "$BIN" produce --once --source sheet.csv >&2)
  (cd "$WORK/bigsled" && "$BIN" produce --once --source ../big/sheet.csv >&2)
  VERSION=$(redis-cli -p "$REDIS_PORT" GET depot:current)
  DOC_BYTES=$(redis-cli -p "$REDIS_PORT" STRLEN "depot:doc:$VERSION")
  read -r BIG_PID BIG < <(DEPOT_TRANSLATIONS_STORAGE=redis serve "$WORK/bignode" --set producer.enabled=false)
  PIDS+=("$BIG_PID")
  read -r BIGSLED_PID BIGSLED < <(serve "$WORK/bigsled" --set producer.enabled=false)
  PIDS+=("$BIGSLED_PID")
  LOADED=$(rss_kib "$BIG_PID"); LOADED_SLED=$(rss_kib "$BIGSLED_PID")
  for base in "$BIG" "$BIGSLED"; do
    for q in "" "?format=android" "?filters%5B%5D=en_US.SECTION003" "?format=ios&filters%5B%5D=pl_PL"; do
      curl -s -H "Accept-Encoding: gzip, br" "$base/translations$q" >/dev/null
    done
  done
  CACHED=$(rss_kib "$BIG_PID"); CACHED_SLED=$(rss_kib "$BIGSLED_PID")
  # A new version replaces the old one and its render cache: memory stays where it was.
  sheet "$WORK/big/sheet.csv" "$KEYS" "$LOCALES" v1
  (cd "$WORK/big" && DEPOT_TRANSLATIONS_STORAGE=redis "$BIN" produce --once --source sheet.csv >&2)
  NEW_VERSION=$(redis-cli -p "$REDIS_PORT" GET depot:current)
  until curl -s "$BIG/health" | grep -q "$NEW_VERSION"; do sleep 0.1; done
  for q in "" "?format=android" "?filters%5B%5D=en_US.SECTION003" "?format=ios&filters%5B%5D=pl_PL"; do
    curl -s -H "Accept-Encoding: gzip, br" "$BIG/translations$q" >/dev/null
  done
  NEXT=$(rss_kib "$BIG_PID")
  echo "memory with $KEYS keys x $LOCALES locales (stored JSON $((DOC_BYTES / 1024 / 1024)) MiB in Redis):"
  echo "  Redis node: RSS $((LOADED / 1024)) MiB loaded, $((CACHED / 1024)) MiB after 4 renders (json, android, 2 filtered; br)"
  echo "  Redis node after a new version and the same renders: RSS $((NEXT / 1024)) MiB"
  echo "  sled node:  RSS $((LOADED_SLED / 1024)) MiB loaded, $((CACHED_SLED / 1024)) MiB after the same renders"
fi
