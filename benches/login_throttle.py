# Wrong console logins from one client address (benches/login_throttle.sh starts the
# daemon): WORKERS kept-alive HTTP/1.1 connections POST /console/login with a wrong key as
# fast as the daemon answers, for SECONDS; counts the answers by status. A 401 is a key the
# daemon compared (an attempt an attacker gets), a 429 one it refused unseen (throttled).
#
#   python3 benches/login_throttle.py --base http://127.0.0.1:PORT [--seconds 10] [--workers 8]
import argparse
import asyncio
import os
import sys
import time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sse_client import read_head  # noqa: E402

BODY = b"key=wrong-key-0000&next=%2F"


async def worker(host, port, deadline, counts, seconds_of_401):
    reader, writer = await asyncio.open_connection(host, port)
    head = (f"POST /console/login HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {len(BODY)}\r\n\r\n").encode() + BODY
    start = time.monotonic()
    try:
        while time.monotonic() < deadline:
            writer.write(head)
            await writer.drain()
            status, headers = await read_head(reader)
            await reader.readexactly(int(headers.get("content-length", "0")))
            counts[status] = counts.get(status, 0) + 1
            if status == 401:
                seconds_of_401.append(time.monotonic() - start)
            if headers.get("connection", "").lower() == "close":
                writer.close()
                reader, writer = await asyncio.open_connection(host, port)
    finally:
        writer.close()


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base", required=True)
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--workers", type=int, default=8)
    a = p.parse_args()
    u = urlsplit(a.base)
    counts, seconds_of_401 = {}, []
    t0 = time.monotonic()
    deadline = t0 + a.seconds
    await asyncio.gather(*(worker(u.hostname, u.port, deadline, counts, seconds_of_401)
                           for _ in range(a.workers)))
    elapsed = time.monotonic() - t0
    total = sum(counts.values())
    compared = counts.get(401, 0)
    print(f"{total} wrong logins in {elapsed:.1f} s from one address ({total / elapsed:.0f}/s "
          f"answered), {a.workers} kept-alive connections")
    for status, n in sorted(counts.items()):
        print(f"  {status}: {n}")
    print(f"keys compared (401): {compared}, {compared / elapsed:.2f} per second; "
          f"refused unseen (429): {counts.get(429, 0)}")
    late = [s for s in seconds_of_401 if s >= 1.0]
    print(f"keys compared after the first second: {len(late)} "
          f"({len(late) / max(elapsed - 1.0, 1e-9):.2f} per second)")


asyncio.run(main())
