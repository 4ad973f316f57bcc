#!/usr/bin/env bash
# Direct uploads (SPEC §13) on a release build, against s3s-fs (an S3 server that verifies
# signatures and checksums):
#
#  1. one file (1 GiB) PUT straight to s3s-fs through the URL of `POST /files/uploads`, then
#     completed: the bytes the node read and wrote meanwhile (/proc/PID/io rchar + wchar,
#     every socket and file byte), its RSS before and after and its peak (VmRSS, VmHWM), the
#     time of the PUT and of the completion, against the same PUT sent by botocore on its
#     own (`put_object` with the same file and checksum);
#  2. a multipart upload of several parts end to end (files.single_put_max lowered): begin,
#     the parts PUT two at a time, complete;
#  3. expiry: a single and a multipart upload begun, bytes sent, never completed; the time
#     until the endpoint holds nothing of them (no object, no parts, no upload).
#
#   benches/direct_upload.sh                          # 1 GiB; multipart 512 MiB in 64 MiB parts
#   SIZE_MIB=256 MULTI_MIB=128 PART_MIB=16 benches/direct_upload.sh
#
# Needs curl, python3 with botocore and s3s-fs (scripts/test installs both). DEPOT_BIN=path
# skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MIB=${SIZE_MIB:-1024}
MULTI_MIB=${MULTI_MIB:-512}
PART_MIB=${PART_MIB:-64}
S3S_FS=${S3S_FS:-$(command -v s3s-fs || echo "$HOME/.cargo/bin/s3s-fs")}
[ -x "$S3S_FS" ] || { echo "s3s-fs is needed: cargo install s3s-fs --version 0.14.1 --locked --features binary" >&2; exit 1; }
python3 -c 'import botocore' 2>/dev/null || { echo "botocore is needed: pip install botocore" >&2; exit 1; }
. benches/common.sh
ACCESS=AKIADIRECTBENCH00001
SECRET=direct-bench-secret
ADMIN=bench-admin
status() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }
io() { awk '$1 == "rchar:" || $1 == "wchar:" { n += $2 } END { print n }' "/proc/$1/io"; }
now() { date +%s.%N; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$@"; }

head -c "$((SIZE_MIB * 1024 * 1024))" /dev/urandom > "$WORK/file.bin"
head -c "$((MULTI_MIB * 1024 * 1024))" /dev/urandom > "$WORK/multi.bin"
SUM=$(sha256sum "$WORK/file.bin" | cut -d' ' -f1)
S3_PORT=$(free_port)
mkdir -p "$WORK/s3/depot"
"$S3S_FS" --host 127.0.0.1 --port "$S3_PORT" --access-key "$ACCESS" --secret-key "$SECRET" \
  "$WORK/s3" >/dev/null 2>&1 &
PIDS+=($!)
ENDPOINT="http://127.0.0.1:$S3_PORT"

# Starts a node on the endpoint with the extra settings given; sets NODE (its pid) and BASE.
start_node() {
  local name=$1 port; shift
  port=$(free_port)
  mkdir -p "$WORK/$name"
  (cd "$WORK/$name" && exec env DEPOT_ADMIN_KEYS=$ADMIN DEPOT_PRODUCER_ENABLED=false \
    DEPOT_SIGNING_ENDPOINT="$ENDPOINT" DEPOT_SIGNING_ACCESS_KEY_ID=$ACCESS \
    DEPOT_SIGNING_SECRET_ACCESS_KEY=$SECRET "$@" \
    "$BIN" serve --listen "127.0.0.1:$port" --log-level info 2>"$WORK/$name/daemon.log") &
  NODE=$!
  PIDS+=($NODE)
  BASE="http://127.0.0.1:$port"
  for _ in $(seq 100); do curl -sf "$BASE/health" >/dev/null && break; sleep 0.1; done
}
start_node node DEPOT_FILES_SINGLE_PUT_MAX=$(((SIZE_MIB + 1) * 1024 * 1024))
post() { curl -sf -X POST -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' "$@"; }

echo "## 1. ${SIZE_MIB} MiB PUT straight to s3s-fs"
sleep 2 # the node settles (first probe of the endpoint, first expiry sweep)
# What an idle node reads and writes by itself (SQLite's change poll every 100 ms, the
# expiry sweep, the endpoint's probe), for comparison.
idle_before=$(io $NODE); sleep 2; idle=$(( $(io $NODE) - idle_before ))
rss_before=$(status $NODE VmRSS); io_before=$(io $NODE)
post -o "$WORK/plan.json" "$BASE/files/uploads" \
  -d "{\"fileName\":\"file.bin\",\"size\":$((SIZE_MIB * 1024 * 1024)),\"sha256\":\"$SUM\"}"
KEY=$(json "$WORK/plan.json" 'd["key"]')
URL=$(json "$WORK/plan.json" 'd["upload"]["url"]')
CHECKSUM=$(json "$WORK/plan.json" 'd["upload"]["headers"]["x-amz-checksum-sha256"]')
t0=$(now)
curl -sf -T "$WORK/file.bin" -H "x-amz-checksum-sha256: $CHECKSUM" -H 'If-None-Match: *' "$URL" -o /dev/null
t1=$(now)
post -o "$WORK/record.json" "$BASE/files/uploads/$KEY/complete"
t2=$(now)
io_after=$(io $NODE); rss_after=$(status $NODE VmRSS); peak=$(status $NODE VmHWM)
cmp "$WORK/file.bin" "$WORK/s3/depot/$KEY"
[ "$(json "$WORK/record.json" 'd["sha256"]')" = "$SUM" ]
echo "the object is byte-identical; the record has its size and SHA-256"

# The same PUT by botocore alone (signed in its header: it hashes the body for the
# signature, as it does over http, and adds its default CRC32; the checksum as above).
t3=$(now)
python3 - "$ENDPOINT" "$ACCESS" "$SECRET" "$WORK/file.bin" "$CHECKSUM" <<'PY'
import sys, botocore.session
from botocore.config import Config
endpoint, access, secret, path, checksum = sys.argv[1:]
s3 = botocore.session.get_session().create_client("s3", endpoint_url=endpoint,
    region_name="us-east-1", aws_access_key_id=access, aws_secret_access_key=secret,
    config=Config(s3={"addressing_style": "path"}, signature_version="s3v4"))
with open(path, "rb") as body:
    s3.put_object(Bucket="depot", Key="botocore-alone.bin", Body=body, ChecksumSHA256=checksum)
PY
t4=$(now)
python3 - "$SIZE_MIB" "$t0" "$t1" "$t2" "$t3" "$t4" "$io_before" "$io_after" "$rss_before" "$rss_after" "$peak" "$idle" <<'PY'
import sys
size, t0, t1, t2, t3, t4 = int(sys.argv[1]), *map(float, sys.argv[2:7])
io_before, io_after, rss_before, rss_after, peak, idle = map(int, sys.argv[7:])
put, complete, boto = t1 - t0, t2 - t1, t4 - t3
print("| what | figure |")
print("|---|---|")
print(f"| PUT to the presigned URL (curl) | {put:.2f} s ({size / put:.0f} MiB/s) |")
print(f"| completion (HEAD with the checksum, record) | {complete * 1000:.0f} ms |")
print(f"| the same PUT by botocore alone | {boto:.2f} s ({size / boto:.0f} MiB/s): the direct upload takes {(put + complete) / boto:.2f}x its time |")
print(f"| bytes the node read and wrote from the plan to the record (rchar + wchar: sockets, files, SQLite) | {io_after - io_before:,} ({(io_after - io_before) / (size * 1024 * 1024) * 100:.4f}% of the file); an idle node in 2 s: {idle:,} |")
print(f"| node RSS before / after / peak since start | {rss_before / 1024:.1f} / {rss_after / 1024:.1f} / {peak / 1024:.1f} MB |")
PY

echo
echo "## 2. multipart: ${MULTI_MIB} MiB in ${PART_MIB} MiB parts (files.single_put_max lowered to ${PART_MIB} MiB)"
BIG=$((MULTI_MIB * 1024 * 1024))
MULTI_SUM=$(sha256sum "$WORK/multi.bin" | cut -d' ' -f1)
# A second node whose files.single_put_max is lowered to one part.
start_node node2 DEPOT_FILES_SINGLE_PUT_MAX=$((PART_MIB * 1024 * 1024)) \
  DEPOT_FILES_PART_SIZE=$((PART_MIB * 1024 * 1024))
NODE2=$NODE
BASE2=$BASE
io_before=$(io $NODE2)
t0=$(now)
post -o "$WORK/multi-plan.json" "$BASE2/files/uploads" \
  -d "{\"fileName\":\"multi.bin\",\"size\":$BIG,\"sha256\":\"$MULTI_SUM\"}"
t1=$(now)
MKEY=$(json "$WORK/multi-plan.json" 'd["key"]')
PARTS=$(json "$WORK/multi-plan.json" 'len(d["parts"])')
python3 - "$WORK/multi-plan.json" "$WORK/multi.bin" "$WORK/parts.json" <<'PY'
import json, sys, urllib.request
from concurrent.futures import ThreadPoolExecutor
plan, path, out = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
size = plan["partSize"]
def send(part):
    with open(path, "rb") as f:
        f.seek((part["partNumber"] - 1) * size)
        body = f.read(size)
    request = urllib.request.Request(part["url"], data=body, method="PUT")
    with urllib.request.urlopen(request) as response:
        return {"partNumber": part["partNumber"], "etag": response.headers["ETag"]}
with ThreadPoolExecutor(2) as pool:
    parts = list(pool.map(send, plan["parts"]))
json.dump({"parts": parts}, open(out, "w"))
PY
t2=$(now)
post -o "$WORK/multi-record.json" "$BASE2/files/uploads/$MKEY/complete" -d @"$WORK/parts.json"
t3=$(now)
io_after=$(io $NODE2)
cmp "$WORK/multi.bin" "$WORK/s3/depot/$MKEY"
[ "$(json "$WORK/multi-record.json" 'd["sha256"]')" = "$MULTI_SUM" ]
python3 - "$MULTI_MIB" "$PARTS" "$t0" "$t1" "$t2" "$t3" "$io_before" "$io_after" <<'PY'
import sys
size, parts, t0, t1, t2, t3 = int(sys.argv[1]), int(sys.argv[2]), *map(float, sys.argv[3:7])
io = int(sys.argv[8]) - int(sys.argv[7])
print("| what | figure |")
print("|---|---|")
print(f"| plan ({parts} parts, CreateMultipartUpload at s3s-fs) | {(t1 - t0) * 1000:.0f} ms |")
print(f"| the parts PUT, two at a time | {t2 - t1:.2f} s ({size / (t2 - t1):.0f} MiB/s) |")
print(f"| completion (CompleteMultipartUpload at s3s-fs, HEAD, record) | {t3 - t2:.2f} s |")
print(f"| end to end | {t3 - t0:.2f} s ({size / (t3 - t0):.0f} MiB/s) |")
note = ("the object read back once to check the declared SHA-256: the endpoint gave no whole-object checksum"
        if io > size * 1024 * 1024 // 2 else "the endpoint reported the whole object's SHA-256")
print(f"| bytes the node read and wrote | {io:,} ({note}) |")
PY
echo "the object is byte-identical; the record has its SHA-256"

echo
echo "## 3. expiry (files.upload_ttl_secs = 3)"
start_node node3 DEPOT_FILES_UPLOAD_TTL_SECS=3 DEPOT_FILES_SINGLE_PUT_MAX=$((PART_MIB * 1024 * 1024)) \
  DEPOT_FILES_PART_SIZE=$((PART_MIB * 1024 * 1024))
t_begin=$(now)
post -o "$WORK/forgot.json" "$BASE/files/uploads" -d '{"fileName":"forgot.bin","size":1048576}'
post -o "$WORK/forgot-multi.json" "$BASE/files/uploads" \
  -d "{\"fileName\":\"forgot-multi.bin\",\"size\":$((PART_MIB * 3 * 1024 * 1024 / 2))}"
FKEY=$(json "$WORK/forgot.json" 'd["key"]')
FMKEY=$(json "$WORK/forgot-multi.json" 'd["key"]')
head -c 1048576 /dev/urandom > "$WORK/forgot.bin"
head -c $((PART_MIB * 1024 * 1024)) "$WORK/file.bin" > "$WORK/forgot-part.bin"
curl -sf -T "$WORK/forgot.bin" -H 'If-None-Match: *' "$(json "$WORK/forgot.json" 'd["upload"]["url"]')" -o /dev/null
curl -sf -T "$WORK/forgot-part.bin" "$(json "$WORK/forgot-multi.json" 'd["parts"][0]["url"]')" -o /dev/null
left() { { ls -A "$WORK/s3" | grep '^\.upload' || true; [ -e "$WORK/s3/depot/$FKEY" ] && echo "$FKEY" || true; } | wc -l; }
echo "left at s3s-fs after the PUTs: $(left) (the object, the upload and its part)"
t0=$(now)
while [ "$(left)" -gt 0 ]; do sleep 0.2; done
t1=$(now)
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $ADMIN" "$BASE/files/uploads/$FKEY/complete")
python3 -c "import sys; b, t0, t1 = map(float, sys.argv[1:4]); print(f'nothing left at s3s-fs {t1 - b:.1f} s after the uploads began ({t1 - t0:.1f} s after their bytes were sent; expiry 3 s, then a margin of 3 s for other nodes\\' clocks, sweeps every 1.5 s); a completion then: {sys.argv[4]}')" "$t_begin" "$t0" "$t1" "$code"
grep -h "expired uploads removed" "$WORK/node3/daemon.log" | tail -1
