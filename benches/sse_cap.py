# The caps of `GET /translations/events` (benches/sse_cap.sh starts the daemon): opens
# streams from one address until it is refused (limits.events_per_client), then from many
# loopback addresses (127.0.x.y, every one reaches the daemon) until the node is full
# (limits.events_total); checks that each refusal is a 429 naming its cap, reports the
# daemon's RSS before, with the cap reached, after every stream closed and with the cap
# reached a second time (the count went back to zero and the memory is used again), and
# that a closed stream's place is free again.
#
#   python3 benches/sse_cap.py --base http://127.0.0.1:PORT --pid PID
#       [--per-client 16] [--total 10000] [--batch 250] [--idle 5] [--rounds 3]
import argparse
import asyncio
import json
import os
import resource
import sys
import time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sse_client import read_head  # noqa: E402

TIMEOUT = 30.0


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise KeyError("VmRSS")


def fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def address(n):
    """The n-th client address: 127.0.1.1, 127.0.1.2, ... (skipping .0 and .255)."""
    return f"127.0.{1 + n // 254}.{1 + n % 254}"


async def open_stream(host, port, source):
    """(status, writer or None, body of a refusal) of one stream opened from `source`."""
    async def go():
        reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
        writer.write((f"GET /translations/events HTTP/1.1\r\nHost: {host}:{port}\r\n"
                      "Accept: text/event-stream\r\n\r\n").encode())
        await writer.drain()
        status, headers = await read_head(reader)
        if status == 200:
            return status, writer, None
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        writer.close()
        return status, None, json.loads(body)
    return await asyncio.wait_for(go(), TIMEOUT)


async def open_all(host, port, sources, batch):
    """Opens one stream from each of `sources` (all must be accepted), `batch` at a time."""
    writers = []
    for start in range(0, len(sources), batch):
        results = await asyncio.gather(*(open_stream(host, port, s) for s in sources[start:start + batch]))
        for status, w, body in results:
            if status != 200:
                raise SystemExit(f"a stream below the caps answered {status}: {body}")
            writers.append(w)
    return writers


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base", required=True)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--per-client", type=int, default=16)
    p.add_argument("--total", type=int, default=10000)
    p.add_argument("--batch", type=int, default=250)
    p.add_argument("--idle", type=float, default=5.0)
    p.add_argument("--rounds", type=int, default=3, help="fills after the first")
    a = p.parse_args()
    u = urlsplit(a.base)
    host, port = u.hostname, u.port
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    await asyncio.sleep(a.idle)
    before, fds_before = rss_kib(a.pid), fds(a.pid)

    # One address: per_client streams, then a refusal naming limits.events_per_client.
    writers = []
    for _ in range(a.per_client):
        status, w, body = await open_stream(host, port, "127.0.0.1")
        if status != 200:
            raise SystemExit(f"stream {len(writers) + 1} from 127.0.0.1 answered {status}: {body}")
        writers.append(w)
    status, _, body = await open_stream(host, port, "127.0.0.1")
    if status != 429 or "limits.events_per_client" not in body["message"]:
        raise SystemExit(f"stream {a.per_client + 1} from one address: {status} {body}")
    print(f"one address: {a.per_client} streams open, the next one 429: {body['message']}")

    # Many addresses, per_client each, until the node is full.
    t0 = time.monotonic()
    plan = [address(n // a.per_client) for n in range(a.total - a.per_client)]
    writers += await open_all(host, port, plan, a.batch)
    opened = time.monotonic() - t0
    status, _, body = await open_stream(host, port, address(len(plan) // a.per_client + 1))
    if status != 429 or "limits.events_total" not in body["message"]:
        raise SystemExit(f"stream {a.total + 1} of the node: {status} {body}")
    print(f"{len(writers)} streams open from {len(plan) // a.per_client + 1} addresses "
          f"(opened in {opened:.1f} s), the next one 429: {body['message']}")

    await asyncio.sleep(a.idle)
    at_cap, fds_at_cap = rss_kib(a.pid), fds(a.pid)

    # Close one: its place is free again (once the daemon sees the connection gone).
    writers.pop().close()
    t = time.monotonic()
    while True:
        status, w, _ = await open_stream(host, port, address(len(plan) // a.per_client + 1))
        if status == 200:
            writers.append(w)
            break
        if time.monotonic() - t > TIMEOUT:
            raise SystemExit("a closed stream's place never came free")
        await asyncio.sleep(0.05)
    freed_ms = (time.monotonic() - t) * 1000

    for w in writers:
        w.close()
    await asyncio.sleep(a.idle)
    after, fds_after = rss_kib(a.pid), fds(a.pid)
    # The cap again, from the same addresses, ROUNDS times: every place came back, and the
    # memory of closed streams is used again (RSS levels off instead of growing per round).
    refills = []
    for _ in range(a.rounds):
        again = await open_all(host, port, ["127.0.0.1"] * a.per_client + plan, a.batch)
        await asyncio.sleep(a.idle)
        refilled = rss_kib(a.pid)
        for w in again:
            w.close()
        await asyncio.sleep(a.idle)
        refills.append((refilled, rss_kib(a.pid), fds(a.pid)))

    n = len(writers)
    print(f"a closed stream's place was free again after {freed_ms:.0f} ms")
    print(f"daemon RSS before: {before / 1024:.1f} MiB ({fds_before} fds)")
    print(f"daemon RSS with the cap reached ({n} streams): {at_cap / 1024:.1f} MiB "
          f"({fds_at_cap} fds), {(at_cap - before) * 1024 / n:.0f} bytes per stream")
    print(f"daemon RSS {a.idle:.0f} s after every stream closed: {after / 1024:.1f} MiB "
          f"({fds_after} fds)")
    for i, (full, empty, fds_empty) in enumerate(refills, 2):
        print(f"round {i}: RSS with the cap reached again {full / 1024:.1f} MiB, "
              f"after they closed {empty / 1024:.1f} MiB ({fds_empty} fds)")


asyncio.run(main())
