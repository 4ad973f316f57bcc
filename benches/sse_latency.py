# Sync-to-event latency (benches/sse_latency.sh starts the nodes): SYNCS times, the sheet
# gets a new mark (a new version), `POST /translations/sync` goes to node A, and the
# `GET /translations/events` clients (one per --events node, connected before the first
# sync and kept open) timestamp the `version` event that names the version the POST
# returned. Reported per client: from the moment the POST's answer was read, and from the
# moment it was sent. The event may arrive before the answer (the daemon announces the
# version before it answers the POST): a negative figure then.
#
#   python3 benches/sse_latency.py --sync http://A --events http://B [--events http://A]
#       --admin-key KEY --sheet /abs/sheet.csv [--syncs 100] [--keys N] [--locales N]
import argparse
import asyncio
import os
import sys
import time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sse_client import EventStream, summary, sync, write_sheet  # noqa: E402

EVENT_TIMEOUT = 10.0  # seconds an event may take before the run fails


def hostport(url):
    u = urlsplit(url)
    return u.hostname, u.port


class Watcher:
    """An open event stream that timestamps every `version` event it reads."""

    def __init__(self, url):
        self.url = url
        self.stream = EventStream(*hostport(url))
        self.seen = {}  # version -> monotonic time it was read
        self.order = []
        self.arrived = asyncio.Condition()
        self.error = None

    async def run(self):
        try:
            while True:
                event = await self.stream.next_event()
                now = time.monotonic()
                if event.get("event") != "version":
                    continue
                self.seen.setdefault(event["id"], now)
                self.order.append(event["id"])
                async with self.arrived:
                    self.arrived.notify_all()
        except Exception as e:  # noqa: BLE001 - reported by wait()
            self.error = e
            async with self.arrived:
                self.arrived.notify_all()

    async def wait(self, version):
        async def until():
            async with self.arrived:
                await self.arrived.wait_for(lambda: version in self.seen or self.error)
        try:
            await asyncio.wait_for(until(), EVENT_TIMEOUT)
        except TimeoutError:
            raise SystemExit(f"{self.url}: no event for version {version} within "
                             f"{EVENT_TIMEOUT:.0f} s (events seen: {self.order[-5:]})")
        if version not in self.seen:
            raise SystemExit(f"{self.url}: the event stream failed: {self.error!r}")
        return self.seen[version]


async def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sync", required=True)
    p.add_argument("--events", action="append", required=True)
    p.add_argument("--admin-key", required=True)
    p.add_argument("--sheet", required=True)
    p.add_argument("--syncs", type=int, default=100)
    p.add_argument("--keys", type=int, default=10000)
    p.add_argument("--locales", type=int, default=5)
    p.add_argument("--label", default="")
    a = p.parse_args()
    host, port = hostport(a.sync)

    # A first version (the sheet as the shell wrote it), then the streams: each must open
    # with that version, sent at once on connect.
    first = await sync(host, port, a.admin_key)
    watchers = [Watcher(url) for url in a.events]
    for w in watchers:
        await w.stream.connect()
    tasks = [asyncio.create_task(w.run()) for w in watchers]
    for w in watchers:
        await w.wait(first["version"])

    after_answer = {w.url: [] for w in watchers}
    after_send = {w.url: [] for w in watchers}
    early = {w.url: 0 for w in watchers}
    sync_ms = []
    for i in range(1, a.syncs + 1):
        write_sheet(a.sheet, a.keys, a.locales, f"sync{i}")
        sent = time.monotonic()
        answer = await sync(host, port, a.admin_key)
        answered = time.monotonic()
        sync_ms.append((answered - sent) * 1000)
        if not answer.get("changed"):
            raise SystemExit(f"sync {i}: the sheet changed but the answer says unchanged: {answer}")
        for w in watchers:
            seen = await w.wait(answer["version"])
            after_answer[w.url].append((seen - answered) * 1000)
            after_send[w.url].append((seen - sent) * 1000)
            early[w.url] += seen < answered
    for t in tasks:
        t.cancel()

    label = f"{a.label}: " if a.label else ""
    print(f"{label}{a.syncs} syncs of a {a.keys}-key x {a.locales}-locale sheet, POST to {a.sync}")
    print(f"  POST /translations/sync round trip: {summary(sync_ms)}")
    for w in watchers:
        extra = len(w.order) - (a.syncs + 1)
        print(f"  events on {w.url}:")
        print(f"    after the POST's answer: {summary(after_answer[w.url])} "
              f"({early[w.url]} of {a.syncs} events arrived before the answer)")
        print(f"    after the POST was sent: {summary(after_send[w.url])}")
        print(f"    events read: {len(w.order)} for {a.syncs + 1} versions"
              + (f" ({extra:+d})" if extra else "") + f", heartbeat comments: {w.stream.comments}")
        w.stream.close()


if __name__ == "__main__":
    asyncio.run(main())
