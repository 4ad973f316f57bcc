#!/usr/bin/env bash
# Delivery to running apps (SPEC §14) against /translations, side by side in one run, on a
# release build on loopback, for a sheet of KEYS keys in 3 namespaces (tabs) x 10 locales
# (made here, as a folder of .csv files):
#  1. throughput: each SDK endpoint (one namespace in one locale) with wrk, each run at the
#     same time as wrk on the /translations request that gives the same texts
#     (?filters[]=<locale>.<namespace>), half the connections each, so that other load on
#     the machine slows both alike;
#  2. bytes an app downloads: on a cold start (every namespace of its locale, as
#     i18next-http-backend asks for them, gzip) and on a warm one (the same requests with
#     the ETags it holds: 304s), against one /translations?filters[]=<locale> request.
#
#   benches/delivery.sh
#   DURATION=5s KEYS=5000 benches/delivery.sh
#
# Needs wrk, curl and python3 (Debian: apt-get install -y wrk curl). DEPOT_BIN=path skips
# the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
KEYS=${KEYS:-5000}
for tool in wrk curl python3; do
  command -v "$tool" >/dev/null || { echo "$tool is needed: apt-get install -y $tool" >&2; exit 1; }
done
. benches/common.sh

mkdir -p "$WORK/sheet"
python3 - "$WORK/sheet" "$KEYS" <<'PY'
import csv, os, sys
folder, keys = sys.argv[1], int(sys.argv[2])
locales = ["en", "de", "fr", "es", "it", "pt_BR", "pl", "nl", "sv", "ja"]
for t, tab in enumerate(["common", "home", "settings"]):
    with open(os.path.join(folder, f"{tab}.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow([">>>", ">>>"] + locales)
        n = 0
        per_tab = keys // 3 + (1 if t < keys % 3 else 0)
        for s in range((per_tab + 49) // 50):
            w.writerow([f"SECTION{s:02d}"])
            for k in range(min(50, per_tab - n)):
                n += 1
                w.writerow(["", f"KEY{k:02d}"] + [f"{l} {tab} text {n}: Hello {{name}}, you have new messages" for l in locales])
PY

PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
(cd "$WORK" && exec "$BIN" serve --listen "127.0.0.1:$PORT" --log-level warn \
  --set producer.source=sheet --set auth.admin_keys=bench-admin >/dev/null 2>daemon.log) &
PIDS+=($!)
for _ in $(seq 600); do curl -sf "$BASE/i18next/draft/en/common.json" >/dev/null && break; sleep 0.1; done
curl -sf -X POST -H "Authorization: Bearer bench-admin" "$BASE/channels/production/publish" >/dev/null

ACCEPT=(-H "Accept-Encoding: gzip, br")
HALF=$((CONNECTIONS / 2))
# "requests/s p99" of one URL from an output of wrk
summary() { awk '/Requests\/sec/{rps=$2} $1=="99%"{p99=$2} END{print rps, p99}' <<<"$1"; }

echo "## throughput ($KEYS keys, 3 namespaces, 10 locales; $DURATION, ${HALF} connections each, side by side)"
printf '| SDK endpoint | requests/s | p99 | /translations?filters[]=en.common | requests/s | p99 |\n|---|---|---|---|---|---|\n'
while IFS='|' read -r name path; do
  wrk -t1 -c"$HALF" -d"$DURATION" --latency "${ACCEPT[@]}" "$BASE$path" >"$WORK/sdk.out" &
  sdk=$!
  wrk -t1 -c"$HALF" -d"$DURATION" --latency "${ACCEPT[@]}" "$BASE/translations?filters%5B%5D=en.common" >"$WORK/tr.out"
  wait "$sdk"
  read -r s_rps s_p99 < <(summary "$(cat "$WORK/sdk.out")")
  read -r t_rps t_p99 < <(summary "$(cat "$WORK/tr.out")")
  printf '| %s | %s | %s | same run | %s | %s |\n' "$name" "$s_rps" "$s_p99" "$t_rps" "$t_p99"
done <<ROUTES
i18next /i18next/production/en/common.json|/i18next/production/en/common.json
locize /locize/depot/production/en/common|/locize/depot/production/en/common
Tolgee /tolgee/production/common/en.json|/tolgee/production/common/en.json
i18next multi-load ?lng=en&ns=common|/i18next/production?lng=en&ns=common
ROUTES

echo
echo "## bytes an app downloads (headers and gzip bodies), en"
# bytes of one request: header and body sizes; $2 = ETag to send, if any
fetch() {
  local url=$1 etag=${2:-}
  local args=(-s -o /dev/null -H "Accept-Encoding: gzip" -w '%{size_header} %{size_download} %{http_code}')
  [ -n "$etag" ] && args+=(-H "If-None-Match: $etag")
  curl "${args[@]}" "$url"
}
etag_of() { curl -s -D - -o /dev/null -H "Accept-Encoding: gzip" "$1" | awk 'tolower($1)=="etag:"{print $2}' | tr -d '\r'; }
printf '| app | cold start bytes (requests) | warm start bytes (304s) |\n|---|---|---|\n'
sdk_cold=0; sdk_warm=0; n=0
for ns in common home settings; do
  url="$BASE/i18next/production/en/$ns.json"
  read -r h b code < <(fetch "$url"); sdk_cold=$((sdk_cold + h + b)); n=$((n + 1))
  read -r h b code < <(fetch "$url" "$(etag_of "$url")"); sdk_warm=$((sdk_warm + h + b))
  [ "$code" = 304 ] || echo "expected 304 for $url, got $code" >&2
done
printf '| i18next-http-backend, 3 namespaces | %s (%s) | %s |\n' "$sdk_cold" "$n" "$sdk_warm"
url="$BASE/translations?filters%5B%5D=en"
read -r h b code < <(fetch "$url"); tr_cold=$((h + b))
read -r h b code < <(fetch "$url" "$(etag_of "$url")"); tr_warm=$((h + b))
printf '| /translations?filters[]=en | %s (1) | %s |\n' "$tr_cold" "$tr_warm"
url="$BASE/translations"
read -r h b code < <(fetch "$url"); all_cold=$((h + b))
printf '| /translations (every locale) | %s (1) | - |\n' "$all_cold"
