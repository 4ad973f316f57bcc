#!/usr/bin/env bash
# Peak memory of the daemon while it takes one large upload through `POST /files`, to the
# S3 endpoint (s3s-fs, which verifies signatures) and to the embedded store. The upload
# is spooled to disk as it arrives and streamed from there, so the peak RSS (VmHWM) must
# not depend on the upload's size.
#
#   benches/upload_rss.sh                 # 1 GiB
#   SIZE_MB=256 benches/upload_rss.sh
#
# Needs curl, python3 and s3s-fs (`cargo install s3s-fs --version 0.14.1 --locked
# --features binary`, as scripts/test does). DEPOT_BIN=path skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MB=${SIZE_MB:-1024}
S3S_FS=${S3S_FS:-$(command -v s3s-fs || echo "$HOME/.cargo/bin/s3s-fs")}
[ -x "$S3S_FS" ] || { echo "s3s-fs is needed: cargo install s3s-fs --version 0.14.1 --locked --features binary" >&2; exit 1; }
. benches/common.sh
field() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }

head -c "$((SIZE_MB * 1024 * 1024))" /dev/urandom > "$WORK/upload.bin"
S3_PORT=$(free_port)
mkdir -p "$WORK/s3/depot"
"$S3S_FS" --host 127.0.0.1 --port "$S3_PORT" --access-key AKIAUPLOADBENCH00001 \
  --secret-key upload-bench-secret "$WORK/s3" >/dev/null 2>&1 &
PIDS+=($!)

# One daemon per target; prints "target, seconds, MB/s, RSS before, peak RSS".
run() {
  local name=$1; shift
  local dir=$WORK/$name port
  mkdir -p "$dir"
  port=$(free_port)
  (cd "$dir" && exec env DEPOT_ADMIN_KEYS=bench-admin DEPOT_BODY_LIMIT_BYTES=$((4 << 30)) "$@" \
    "$BIN" serve --listen "127.0.0.1:$port" --log-level warn 2>"$dir/daemon.log") &
  local pid=$!
  PIDS+=($pid)
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
  local before start end
  before=$(field "$pid" VmRSS)
  start=$(date +%s.%N)
  curl -sf -o "$dir/reply.json" -H "Authorization: Bearer bench-admin" \
    -F "file=@$WORK/upload.bin" -F bucket=depot "http://127.0.0.1:$port/files"
  end=$(date +%s.%N)
  python3 - "$name" "$start" "$end" "$before" "$(field "$pid" VmHWM)" "$SIZE_MB" <<'PY'
import sys
name, start, end, before, peak, size = sys.argv[1:]
secs = float(end) - float(start)
print(f"| {name} | {size} MiB | {secs:.1f} s | {int(size) / secs:.0f} MiB/s | {int(before) / 1024:.1f} MB | {int(peak) / 1024:.1f} MB |")
PY
  kill "$pid"
}

echo "| target | upload | time | rate | RSS before | peak RSS (VmHWM) |"
echo "|---|---|---|---|---|---|"
run s3 DEPOT_SIGNING_ENDPOINT="http://127.0.0.1:$S3_PORT" \
  DEPOT_SIGNING_ACCESS_KEY_ID=AKIAUPLOADBENCH00001 DEPOT_SIGNING_SECRET_ACCESS_KEY=upload-bench-secret
key=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$WORK/s3/reply.json")
cmp "$WORK/upload.bin" "$WORK/s3/depot/$key" && echo "(the object at the S3 endpoint is byte-identical)"
run embedded
