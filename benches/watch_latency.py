#!/usr/bin/env python3
"""Time from saving a local sheet to a new ETag of /translations (SPEC §10 item 10 of
issue 23): SAVES saves, each a new version of the sheet written to a temporary file and
renamed over it (as editors save); after each, GET /translations (one key, so the body is
small) is polled every millisecond until its ETag changes. Prints p50/p99/max.

Usage: watch_latency.py --url BASE --sheet PATH --saves 50 --keys 10000 --locales 5
"""
import argparse
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sse_client import summary, write_sheet  # noqa: E402


def etag(url):
    with urllib.request.urlopen(url) as response:
        response.read()
        return response.headers.get("ETag")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--sheet", required=True)
    p.add_argument("--saves", type=int, default=50)
    p.add_argument("--keys", type=int, default=10000)
    p.add_argument("--locales", type=int, default=5)
    p.add_argument("--label", default="")
    a = p.parse_args()
    url = a.url + "/translations?filters%5B%5D=SECTION0000.KEY00"
    last = etag(url)
    took = []
    for n in range(1, a.saves + 1):
        # write_sheet renames the finished file over the sheet: that rename is the save,
        # and the clock starts right after it.
        write_sheet(a.sheet, a.keys, a.locales, f"save{n}")
        renamed = time.perf_counter()
        deadline = renamed + 30
        while True:
            now = etag(url)
            if now != last:
                break
            if time.perf_counter() > deadline:
                sys.exit(f"save {n}: no new ETag within 30 s")
            time.sleep(0.001)
        took.append((time.perf_counter() - renamed) * 1000)
        last = now
        # let the sync of this save end before the next one starts
        time.sleep(0.2)
    print(f"{a.label}: {a.saves} saves of {a.keys} keys x {a.locales} locales, save -> new ETag: "
          f"{summary(took)}")


if __name__ == "__main__":
    main()
