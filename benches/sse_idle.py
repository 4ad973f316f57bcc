# Idle event streams (benches/sse_idle.sh starts the daemon): opens CLIENTS
# `GET /translations/events` streams in batches (each must answer 200 and send the current
# version at once), lets them sit idle, and reports the daemon's RSS before and with them
# (memory per stream), /health latency without and with them, and whether a sync still
# reaches them: a SAMPLE of the streams, spread over all of them, read continuously and
# timestamp the new version's event; afterwards every other stream is read too.
#
#   python3 benches/sse_idle.py --base http://127.0.0.1:PORT --pid PID --admin-key KEY
#       --sheet /abs/sheet.csv [--clients 10000] [--batch 250] [--sample 200] [--idle 5]
# With --plain (on a fresh daemon), the same count of idle kept-alive connections that made
# one GET /health each instead: what an idle HTTP connection costs without a stream.
import argparse
import asyncio
import os
import resource
import sys
import time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sse_client import EventStream, read_head, request, summary, sync, write_sheet  # noqa: E402

CONNECT_TIMEOUT = 30.0  # seconds for one stream to open and send its first event
EVENT_TIMEOUT = 20.0  # seconds for the new version to reach a stream


def status_field(pid, name):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(name + ":"):
                return int(line.split()[1])
    raise KeyError(name)


def snapshot(pid):
    """RSS (KiB), threads and open fds of a process."""
    return {"rss": status_field(pid, "VmRSS"), "threads": status_field(pid, "Threads"),
            "fds": len(os.listdir(f"/proc/{pid}/fd"))}


def cpu_ms(pid):
    """User + system CPU time a process has used, in ms (clock ticks of 10 ms)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def fmt(s):
    return f"RSS {s['rss'] / 1024:.1f} MiB, {s['threads']} threads, {s['fds']} fds"


async def health_latency(host, port, n):
    """n /health requests one after another, each on a new connection: ms each."""
    out = []
    for _ in range(n):
        t = time.monotonic()
        status, _, _ = await request(host, port, "GET", "/health", timeout=10)
        if status != 200:
            raise SystemExit(f"/health answered {status}")
        out.append((time.monotonic() - t) * 1000)
    return out


async def open_stream(host, port, version):
    s = EventStream(host, port)
    async def go():
        await s.connect()
        first = await s.next_event()
        if first.get("id") != version:
            raise RuntimeError(f"first event names {first.get('id')}, not {version}")
    try:
        await asyncio.wait_for(go(), CONNECT_TIMEOUT)
        return s, None
    except Exception as e:  # noqa: BLE001 - counted and reported
        s.close()
        return None, f"{type(e).__name__}: {e}"


async def open_plain(host, port):
    """A kept-alive connection that made one GET /health and then sits idle."""
    async def go():
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(f"GET /health HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        await writer.drain()
        status, headers = await read_head(reader)
        await reader.readexactly(int(headers["content-length"]))
        if status != 200:
            raise RuntimeError(f"/health answered {status}")
        return writer
    try:
        return await asyncio.wait_for(go(), CONNECT_TIMEOUT), None
    except Exception as e:  # noqa: BLE001 - counted and reported
        return None, f"{type(e).__name__}: {e}"


async def plain(a, host, port):
    """--plain: the same count of idle kept-alive HTTP/1.1 connections, each after one
    GET /health, on a fresh daemon: what any idle connection costs, stream or not."""
    await asyncio.sleep(a.idle)
    before = snapshot(a.pid)
    writers, errors = [], {}
    for start in range(0, a.clients, a.batch):
        n = min(a.batch, a.clients - start)
        for w, err in await asyncio.gather(*(open_plain(host, port) for _ in range(n))):
            if w is not None:
                writers.append(w)
            else:
                errors[err] = errors.get(err, 0) + 1
    await asyncio.sleep(a.idle)
    after = snapshot(a.pid)
    n = len(writers)
    print(f"for comparison, {n} idle kept-alive connections after one GET /health each "
          f"(a fresh daemon):")
    for err, count in sorted(errors.items(), key=lambda kv: -kv[1]):
        print(f"  FAILED to open: {count} x {err}")
    print(f"  daemon before: {fmt(before)}; with them: {fmt(after)}")
    print(f"  per connection: {(after['rss'] - before['rss']) * 1024 / max(n, 1):.0f} bytes of RSS")
    for w in writers:
        w.close()
    if errors:
        raise SystemExit("FAILED: a connection did not open")


async def wait_new(stream, old):
    """(version, monotonic time) of the first `version` event on `stream` not naming `old`."""
    while True:
        event = await stream.next_event()
        if event.get("event") == "version" and event.get("id") != old:
            return event["id"], time.monotonic()


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--base", required=True)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--admin-key", required=True)
    p.add_argument("--sheet", required=True)
    p.add_argument("--clients", type=int, default=10000)
    p.add_argument("--batch", type=int, default=250)
    p.add_argument("--sample", type=int, default=200)
    p.add_argument("--idle", type=float, default=5.0)
    p.add_argument("--health", type=int, default=200)
    p.add_argument("--keys", type=int, default=1000)
    p.add_argument("--locales", type=int, default=5)
    p.add_argument("--plain", action="store_true",
                   help="idle kept-alive connections after one GET /health instead of streams")
    a = p.parse_args()
    u = urlsplit(a.base)
    host, port = u.hostname, u.port
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < a.clients + 100:
        raise SystemExit(f"the open-file limit ({hard}) is below {a.clients} streams")
    if a.plain:
        return await plain(a, host, port)

    await sync(host, port, a.admin_key)
    # A sync of a changed sheet without streams, to compare with the one with them.
    write_sheet(a.sheet, a.keys, a.locales, "no-streams")
    t = time.monotonic()
    first = await sync(host, port, a.admin_key)
    sync_alone_ms = (time.monotonic() - t) * 1000
    version = first["version"]
    health_before = await health_latency(host, port, a.health)
    await asyncio.sleep(a.idle)
    before = snapshot(a.pid)

    streams, errors = [], {}
    t0 = time.monotonic()
    for start in range(0, a.clients, a.batch):
        n = min(a.batch, a.clients - start)
        for s, err in await asyncio.gather(*(open_stream(host, port, version) for _ in range(n))):
            if s is not None:
                streams.append(s)
            else:
                errors[err] = errors.get(err, 0) + 1
    opened_secs = time.monotonic() - t0
    if not streams:
        raise SystemExit(f"no stream opened: {errors}")

    await asyncio.sleep(a.idle)
    with_streams = snapshot(a.pid)
    client = snapshot(os.getpid())
    health_with = await health_latency(host, port, a.health)
    t = time.monotonic()
    status, _, body = await request(host, port, "GET", "/translations?format=json", timeout=10)
    translations_ms = (time.monotonic() - t) * 1000
    if status != 200:
        raise SystemExit(f"/translations answered {status} with the streams open")

    # A sync with the streams open: the sample reads it as it comes, then the rest.
    step = max(1, len(streams) // a.sample)
    sample = streams[::step][:a.sample]
    sample_ids = {id(s) for s in sample}
    write_sheet(a.sheet, a.keys, a.locales, "idle-sync")
    # The sample's readers wait before the POST goes (the daemon announces a version before
    # it answers the POST, so an event may come first: a negative figure).
    pending = [asyncio.create_task(asyncio.wait_for(wait_new(s, version), EVENT_TIMEOUT)) for s in sample]
    await asyncio.sleep(0.5)
    cpu_before = cpu_ms(a.pid)
    sent = time.monotonic()
    answer = await sync(host, port, a.admin_key)
    answered = time.monotonic()
    new = answer["version"]
    if not answer.get("changed") or new == version:
        raise SystemExit(f"the sync did not store a new version: {answer}")
    results = await asyncio.gather(*pending, return_exceptions=True)
    sync_cpu_ms = cpu_ms(a.pid) - cpu_before
    sample_ms = [(r[1] - answered) * 1000 for r in results if isinstance(r, tuple) and r[0] == new]
    sample_sent_ms = [(r[1] - sent) * 1000 for r in results if isinstance(r, tuple) and r[0] == new]
    sample_missed = len(results) - len(sample_ms)
    rest = [s for s in streams if id(s) not in sample_ids]
    reached_rest = 0
    for start in range(0, len(rest), 1000):
        batch = rest[start:start + 1000]
        got = await asyncio.gather(*(asyncio.wait_for(wait_new(s, version), EVENT_TIMEOUT) for s in batch),
                                   return_exceptions=True)
        reached_rest += sum(isinstance(r, tuple) and r[0] == new for r in got)
    after_sync = snapshot(a.pid)

    for s in streams:
        s.close()
    await asyncio.sleep(a.idle)
    closed = snapshot(a.pid)
    health_closed = await health_latency(host, port, 50)

    n = len(streams)
    print(f"{n} of {a.clients} event streams open in {opened_secs:.1f} s "
          f"(batches of {a.batch}), each sent the current version at once")
    for err, count in sorted(errors.items(), key=lambda kv: -kv[1]):
        print(f"  FAILED to open: {count} x {err}")
    print(f"daemon before the streams ({a.idle:.0f} s idle): {fmt(before)}")
    print(f"daemon with {n} idle streams ({a.idle:.0f} s idle): {fmt(with_streams)}")
    print(f"  per stream: {(with_streams['rss'] - before['rss']) * 1024 / n:.0f} bytes of RSS, "
          f"{(with_streams['fds'] - before['fds']) / n:.2f} fds")
    print(f"daemon after the sync below: {fmt(after_sync)}")
    print(f"daemon {a.idle:.0f} s after the streams closed: {fmt(closed)}")
    print(f"client process with the streams: {fmt(client)}")
    print(f"/health, {a.health} requests one by one, new connection each:")
    print(f"  before the streams: {summary(health_before)}")
    print(f"  with {n} streams:    {summary(health_with)}")
    print(f"  after they closed ({len(health_closed)}): {summary(health_closed)}")
    print(f"GET /translations with the streams open: {status}, {len(body)} bytes, {translations_ms:.1f} ms")
    print(f"sync with the streams open: POST answered in {(answered - sent) * 1000:.1f} ms "
          f"(without streams: {sync_alone_ms:.1f} ms); daemon CPU from the POST to the "
          f"sample's last event: {sync_cpu_ms:.0f} ms")
    print(f"  sample of {len(sample)} streams: {len(sample_ms)} read the event"
          + (f", {sample_missed} did NOT within {EVENT_TIMEOUT:.0f} s" if sample_missed else "")
          + (f"; after the answer: {summary(sample_ms)}; after the POST was sent: "
             f"{summary(sample_sent_ms)}" if sample_ms else ""))
    print(f"  the other {len(rest)} streams: {reached_rest} read the event")
    if errors or sample_missed or reached_rest < len(rest):
        raise SystemExit("FAILED: a stream did not open, or did not read the new version")


if __name__ == "__main__":
    asyncio.run(main())
