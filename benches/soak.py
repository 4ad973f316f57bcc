#!/usr/bin/env python3
"""Soak driver for depot (run by benches/soak.sh against a release build on loopback).

For a bounded time it keeps a mixed load on one daemon: reads of every route, uploads and
deletes, the sheet rewritten every few seconds (the producer runs at a 1 s interval), and
edits of config/depot.toml. Every SAMPLE seconds it records the daemon's RSS, open file
descriptors and threads. At the end every upload still kept must download byte for byte.

Exit 1 when a response was a 5xx (or a connection failed), a kept upload differs, or the
RSS after warm-up grows by more than GROWTH_LIMIT. Prints the samples as a markdown table.
Only the standard library; only 127.0.0.1.
"""

import json
import os
import random
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

BASE = os.environ["BASE"]
PID = int(os.environ["PID"])
WORK = os.environ["WORK"]
ADMIN = os.environ["ADMIN_KEY"]
DURATION = float(os.environ.get("SOAK_SECS", "1800"))
SAMPLE = float(os.environ.get("SAMPLE_SECS", "30"))
WARMUP = float(os.environ.get("WARMUP_SECS", "120"))
GROWTH_LIMIT = float(os.environ.get("GROWTH_LIMIT", "1.25"))
READERS = int(os.environ.get("READERS", "4"))

deadline = time.monotonic() + DURATION
lock = threading.Lock()
counts = {"requests": 0, "uploads": 0, "deletes": 0, "sheet_edits": 0, "config_edits": 0}
failures = []
kept = {}  # key -> bytes


def note_failure(what):
    with lock:
        if len(failures) < 50:
            failures.append(what)


def request(method, url, body=None, headers=None):
    """Returns (status, body); 5xx and connection errors are recorded as failures."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            status, data = resp.status, resp.read()
    except urllib.error.HTTPError as e:
        status, data = e.code, e.read()
    except Exception as e:  # connection refused, reset, timeout
        note_failure(f"{method} {url}: {e!r}")
        return 0, b""
    with lock:
        counts["requests"] += 1
    if status >= 500:
        note_failure(f"{method} {url}: {status} {data[:200]!r}")
    return status, data


def multipart(fields, filename, content):
    boundary = "soak%016x" % random.getrandbits(64)
    parts = []
    for name, value in fields.items():
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
        )
    parts.append(
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()
        + content
        + b"\r\n"
    )
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


def reader(seed):
    rng = random.Random(seed)
    filters = ["en_US", "pl_PL.SECTION01", "tag1", "de_DE.SECTION02.tag2", "*.SECTION03"]
    formats = ["json", "android", "ios", "yml", "xlf", "po"]
    while time.monotonic() < deadline:
        pick = rng.random()
        if pick < 0.3:
            q = {"page": rng.randint(1, 400), "limit": rng.choice([10, 25, 100])}
            if rng.random() < 0.3:
                q["fileName"] = rng.choice(["img", "holiday", "png", "report", "zz"])
            request("GET", f"{BASE}/files?{urllib.parse.urlencode(q)}")
        elif pick < 0.6:
            q = [("filters[]", rng.choice(filters)), ("format", rng.choice(formats))]
            request("GET", f"{BASE}/translations?{urllib.parse.urlencode(q)}",
                    headers={"Accept-Encoding": rng.choice(["br", "gzip", "identity"])})
        elif pick < 0.8:
            with lock:
                key = rng.choice(list(kept)) if kept else None
            if key is None:
                continue
            status, body = request("GET", f"{BASE}/file?key={urllib.parse.quote(key, safe='')}",
                                   headers={"Authorization": f"Bearer {ADMIN}"})
            if status == 200:
                url = json.loads(body)["signedUrl"]
                request("GET", url)
        elif pick < 0.9:
            request("GET", f"{BASE}/health")
        else:
            request("GET", f"{BASE}/metrics")


def writer():
    rng = random.Random(7)
    while time.monotonic() < deadline:
        if rng.random() < 0.6 or len(kept) < 20:
            size = rng.choice([0, 1, 100, 4096, 65536, 1 << 20])
            content = os.urandom(size)
            body, ctype = multipart({"bucket": "soak", "permission": rng.choice(["public", "private"]),
                                     "description": "soak"}, f"f{rng.randint(0, 1 << 30)}.bin", content)
            status, data = request("POST", f"{BASE}/files", body,
                                   {"Content-Type": ctype, "Authorization": f"Bearer {ADMIN}"})
            if status == 201:
                with lock:
                    kept[json.loads(data)["key"]] = content
                    counts["uploads"] += 1
            elif status:
                note_failure(f"upload answered {status}: {data[:200]!r}")
        else:
            with lock:
                key = rng.choice(list(kept))
                del kept[key]
            status, data = request("DELETE", f"{BASE}/file?key={urllib.parse.quote(key, safe='')}",
                                   headers={"Authorization": f"Bearer {ADMIN}"})
            if status == 204:
                with lock:
                    counts["deletes"] += 1
            elif status:
                note_failure(f"delete answered {status}: {data[:200]!r}")
        time.sleep(0.05)


def write_sheet(path, generation):
    locales = ["en_US", "pl_PL", "de_DE", "fr_FR", "es_ES"]
    rows = [["###", ">>>", ">>>", ">>>"] + locales]
    for s in range(10):
        rows.append(["", f"SECTION{s:02d}"])
        for k in range(100):
            tag = f"tag{k % 3}"
            rows.append([tag, "", "", f"KEY{k:03d}"] + [f"{l} {s}.{k} v{generation}" for l in locales])
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for r in rows:
            f.write(",".join(r) + "\n")
    os.replace(tmp, path)


def sheet_editor():
    generation = 0
    while time.monotonic() < deadline:
        generation += 1
        write_sheet(os.path.join(WORK, "sheet.csv"), generation)
        with lock:
            counts["sheet_edits"] += 1
        time.sleep(3)


def config_editor():
    limit = 25
    path = os.path.join(WORK, "config", "depot.toml")
    base = open(path).read()
    while time.monotonic() < deadline:
        time.sleep(10)
        limit = 30 if limit == 25 else 25
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            f.write(base.replace("default_limit = 25", f"default_limit = {limit}"))
        os.replace(tmp, path)
        with lock:
            counts["config_edits"] += 1


def sample():
    status = open(f"/proc/{PID}/status").read()
    def field(name):
        return int(next(l.split()[1] for l in status.splitlines() if l.startswith(name + ":")))

    # RssAnon is the heap (what depot allocates); RssFile is mapped files (the binary, and
    # SQLite's pages when it maps the database), shown apart to tell the two kinds of growth.
    fds = len(os.listdir(f"/proc/{PID}/fd"))
    return field("VmRSS"), field("RssAnon"), field("RssFile"), fds, field("Threads")


def main():
    start = time.monotonic()
    workers = [threading.Thread(target=reader, args=(i,), daemon=True) for i in range(READERS)]
    workers += [threading.Thread(target=f, daemon=True) for f in (writer, sheet_editor, config_editor)]
    for w in workers:
        w.start()
    series = []
    while time.monotonic() < deadline:
        time.sleep(min(SAMPLE, max(0.0, deadline - time.monotonic())))
        rss, anon, mapped, fds, threads = sample()
        with lock:
            series.append((time.monotonic() - start, rss, fds, threads, counts["requests"], anon, mapped))
        print(f"t={series[-1][0]:6.0f}s rss={rss / 1024:.1f}MB anon={anon / 1024:.1f}MB "
              f"file={mapped / 1024:.1f}MB fds={fds} threads={threads} "
              f"requests={series[-1][4]}", file=sys.stderr, flush=True)
    for w in workers:
        w.join(timeout=60)

    # Every kept upload downloads byte for byte.
    mismatched = 0
    for key, content in list(kept.items()):
        status, body = request("GET", f"{BASE}/file?key={urllib.parse.quote(key, safe='')}",
                               headers={"Authorization": f"Bearer {ADMIN}"})
        if status != 200:
            mismatched += 1
            continue
        status, data = request("GET", json.loads(body)["signedUrl"])
        if status != 200 or data != content:
            mismatched += 1

    print("| t (s) | RSS (MB) | of it heap (MB) | of it files (MB) | open fds | threads | requests so far |")
    print("|---|---|---|---|---|---|---|")
    for t, rss, fds, threads, n, anon, mapped in series:
        print(f"| {t:.0f} | {rss / 1024:.1f} | {anon / 1024:.1f} | {mapped / 1024:.1f} | {fds} | {threads} | {n} |")
    print()
    print("counts:", json.dumps(counts), f"kept uploads checked: {len(kept)}, mismatched: {mismatched}")

    after = [s for s in series if s[0] >= WARMUP]
    ok = True
    if failures:
        ok = False
        print(f"FAIL: {len(failures)} failed requests, first ones:", *failures[:10], sep="\n  ")
    if mismatched:
        ok = False
        print(f"FAIL: {mismatched} kept uploads did not download byte for byte")
    if len(after) >= 2:
        first, peak = after[0][1], max(s[1] for s in after)
        print(f"RSS after warm-up: first {first / 1024:.1f} MB, peak {peak / 1024:.1f} MB, "
              f"last {after[-1][1] / 1024:.1f} MB")
        if peak > first * GROWTH_LIMIT:
            ok = False
            print(f"FAIL: RSS grew by more than {GROWTH_LIMIT}x after warm-up")
        if after[-1][2] > after[0][2] + 20:
            ok = False
            print("FAIL: open file descriptors grew")
    print("soak: " + ("passed" if ok else "FAILED"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
