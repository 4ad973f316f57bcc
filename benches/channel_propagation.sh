#!/usr/bin/env bash
# Channels on two nodes over Redis (SPEC §14), on a release build on loopback: PUBLISHES
# publishes on node A (alternating production between two versions), each timed from the
# moment A is asked to the moment node B serves the channel's new bundle (its ETag, polled
# over one kept-alive connection about 1 ms apart). Prints n, p50, p99 and max; the target
# is p99 under 1 s.
#
#   benches/channel_propagation.sh
#   PUBLISHES=300 benches/channel_propagation.sh
#
# Needs redis-server and python3. DEPOT_BIN=path skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
PUBLISHES=${PUBLISHES:-100}
command -v redis-server >/dev/null || { echo "redis-server is needed: apt-get install -y redis-server" >&2; exit 1; }
. benches/common.sh

start_redis
export DEPOT_TRANSLATIONS_STORAGE=redis
export DEPOT_TRANSLATIONS_REDIS_URL="redis://127.0.0.1:$REDIS_PORT/0"
export DEPOT_ADMIN_KEYS=bench-admin

serve() {
  local dir=$1; shift
  local port; port=$(free_port)
  (cd "$dir" && exec "$BIN" serve --listen "127.0.0.1:$port" --log-level warn "$@" >/dev/null 2>daemon.log) &
  PIDS+=($!)
  for _ in $(seq 600); do
    curl -sf "http://127.0.0.1:$port/health" >/dev/null && break
    sleep 0.05
  done
  echo "http://127.0.0.1:$port"
}

mkdir -p "$WORK/a" "$WORK/b"
printf '>>>,en,de\nYES,Yes,Ja\n' > "$WORK/a/sheet.csv"
A=$(serve "$WORK/a" --set producer.source=sheet.csv --set producer.interval_secs=86400)
B=$(serve "$WORK/b" --set producer.enabled=false)

python3 - "$A" "$B" "$WORK/a/sheet.csv" "$PUBLISHES" <<'PY'
import http.client, json, statistics, sys, time, urllib.parse

a, b, sheet, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
headers = {"Authorization": "Bearer bench-admin", "Content-Type": "application/json"}

def conn(base):
    u = urllib.parse.urlparse(base)
    return http.client.HTTPConnection(u.hostname, u.port)

ca, cb = conn(a), conn(b)

def call(c, method, path, body=None, extra=None):
    c.request(method, path, body=body, headers={**headers, **(extra or {})})
    r = c.getresponse()
    data = r.read()
    return r.status, r.getheader("etag"), data

versions = []
for text in ["Yes", "Yes!"]:
    open(sheet, "w").write(f">>>,en,de\nYES,{text},Ja\n")
    status, _, data = call(ca, "POST", "/translations/sync")
    assert status == 200, data
    versions.append(json.loads(data)["version"])

# the ETag each version's bundle has, as node A serves it
etags = []
for v in versions:
    status, _, data = call(ca, "POST", "/channels/production/publish", json.dumps({"version": v}))
    assert status == 200, data
    status, etag, _ = call(ca, "GET", "/i18next/production/en/translation.json")
    etags.append(etag)
assert etags[0] != etags[1]

path = "/i18next/production/en/translation.json"
samples = []
for i in range(n):
    v, etag = versions[i % 2], etags[i % 2]
    start = time.perf_counter()
    status, _, data = call(ca, "POST", "/channels/production/publish", json.dumps({"version": v}))
    assert status == 200, data
    while True:
        status, got, _ = call(cb, "GET", path)
        if status == 200 and got == etag:
            break
        if time.perf_counter() - start > 10:
            sys.exit(f"node B never served version {v}")
        time.sleep(0.001)
    samples.append(time.perf_counter() - start)

samples.sort()
p = lambda q: samples[min(len(samples) - 1, int(q * len(samples)))] * 1000
print(f"publish on A -> served by B: n={len(samples)} p50={p(0.5):.1f}ms p99={p(0.99):.1f}ms max={samples[-1]*1000:.1f}ms")
PY
