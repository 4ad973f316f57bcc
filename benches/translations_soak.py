#!/usr/bin/env python3
"""Memory soak of `depot serve` with the translations changing under reads.

Starts the daemon on a loopback port in a temporary folder with a local CSV sheet as the
producer's source (synced every second), rewrites the sheet every 2 s, and keeps a few
readers asking for varied filters, formats and encodings. Prints the daemon's resident
memory (VmRSS) every 10 s; a daemon that holds on to old versions or renders shows it
rising. Bounded in time; only loopback traffic.

    cargo build --release
    python3 benches/translations_soak.py target/release/depot 240
"""

import http.client
import itertools
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

KEYS = 4000
LOCALES = ["en_US", "pl_PL", "de_DE", "fr_FR"]
FORMATS = ["json", "android", "ios", "yml", "xlf", "po"]
FILTERS = ["", "en_US", "pl_PL.S1", "tag1", "*.S2", "de_DE.S3.tag2", "S4"]
ENCODINGS = ["identity", "gzip", "br"]


def write_sheet(path, revision):
    lines = ["###,>>>,>>>," + ",".join(LOCALES)]
    for k in range(KEYS):
        tag = "tag1" if k % 3 == 0 else "tag2"
        section = f"S{(k // 50) % 10}" if k % 50 == 0 else ""
        texts = ",".join(f"{loc} text {k} rev {revision}" for loc in LOCALES)
        if section:
            lines.append(f",{section}")
        lines.append(f"{tag},,K{k},{texts}")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def reader(port, stop, counts):
    combos = itertools.cycle(itertools.product(FILTERS, FORMATS, ENCODINGS))
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    while not stop.is_set():
        flt, fmt, enc = next(combos)
        query = f"/translations?format={fmt}"
        if flt:
            query += f"&filters[]={flt}"
        try:
            conn.request("GET", query, headers={"Accept-Encoding": enc})
            response = conn.getresponse()
            response.read()
            counts[response.status] = counts.get(response.status, 0) + 1
        except (OSError, http.client.HTTPException):
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)


def main():
    binary = os.path.abspath(sys.argv[1])
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 240
    with tempfile.TemporaryDirectory() as work:
        sheet = os.path.join(work, "sheet.csv")
        write_sheet(sheet, 0)
        daemon = subprocess.Popen(
            [binary, "serve", "--listen", "127.0.0.1:0",
             "--set", "producer.source=sheet.csv", "--set", "producer.interval_secs=1"],
            cwd=work, stderr=subprocess.PIPE, text=True)
        port = None
        daemon_log = []
        deadline = time.time() + 30
        while port is None and time.time() < deadline:
            line = daemon.stderr.readline()
            daemon_log.append(line)
            found = re.search(r"address=\"?127\.0\.0\.1:(\d+)", line)
            if found:
                port = int(found.group(1))
        if port is None:
            daemon.kill()
            sys.exit("depot did not start: " + "".join(daemon_log))
        threading.Thread(target=lambda: [None for _ in daemon.stderr], daemon=True).start()
        stop = threading.Event()
        counts = {}
        readers = [threading.Thread(target=reader, args=(port, stop, counts)) for _ in range(4)]
        for r in readers:
            r.start()
        start = time.time()
        revision = 0
        next_sample = start
        try:
            while time.time() - start < seconds:
                if time.time() >= next_sample:
                    print(f"{time.time() - start:6.0f} s  rss {rss_kib(daemon.pid) / 1024:7.1f} MiB"
                          f"  requests {sum(counts.values())}", flush=True)
                    next_sample += 10
                time.sleep(2)
                revision += 1
                write_sheet(sheet, revision)
        finally:
            stop.set()
            for r in readers:
                r.join()
            print(f"end     rss {rss_kib(daemon.pid) / 1024:7.1f} MiB  statuses {counts}")
            daemon.terminate()
            daemon.wait(timeout=20)


if __name__ == "__main__":
    main()
