# Shared by benches/sse_latency.py and benches/sse_idle.py (Python 3.11 standard library
# only): a sheet writer, one-shot HTTP/1.1 requests, and a raw-socket client of
# `GET /translations/events` (HTTP/1.1, chunked body decoded, Server-Sent Events parsed).
import asyncio
import csv
import json
import math
import os
import time

LOCALES = ["en_US", "pl_PL", "de_DE", "fr_FR", "es_ES"]


def write_sheet(path, keys, nlocales, mark):
    """A sheet of `keys` keys x `nlocales` locales in sections of 50 keys; `mark` goes into
    every text of the first key, so a new mark is a new version. Written to a temporary
    file and renamed, so that the producer never reads half a sheet."""
    locales = (LOCALES + [f"l{i:02d}_XX" for i in range(nlocales)])[:nlocales]
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["###", ">>>", ">>>"] + locales)
        for n in range(keys):
            if n % 50 == 0:
                w.writerow(["", f"SECTION{n // 50:04d}"])
            extra = f" {mark}" if n == 0 else ""
            w.writerow(["", "", f"KEY{n % 50:02d}"] + [f"{l} text {n}{extra}" for l in locales])
    os.replace(tmp, path)


def percentile(sorted_values, q):
    """Nearest rank: the smallest value with at least q of the values at or below it."""
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


def summary(values):
    """p50/p99/max/min of a list of milliseconds, as text."""
    v = sorted(values)
    return (f"p50 {percentile(v, 0.5):.2f} ms, p99 {percentile(v, 0.99):.2f} ms, "
            f"min {v[0]:.2f} ms, max {v[-1]:.2f} ms")


async def read_head(reader):
    """Status code and lower-cased headers of a response."""
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionError("connection closed before a response")
    status = int(status_line.split()[1])
    headers = {}
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers


async def read_chunk(reader):
    """One chunk of a chunked body; b"" at its end."""
    size_line = await reader.readline()
    if not size_line:
        raise ConnectionError("connection closed inside a chunked body")
    size = int(size_line.split(b";")[0].strip(), 16)
    if size == 0:
        await reader.readline()  # the empty trailer
        return b""
    data = await reader.readexactly(size)
    await reader.readexactly(2)
    return data


async def request(host, port, method, path, headers=(), body=b"", timeout=30):
    """One request on its own connection: (status, headers, body bytes)."""
    async def go():
        reader, writer = await asyncio.open_connection(host, port)
        try:
            head = [f"{method} {path} HTTP/1.1", f"Host: {host}:{port}", "Connection: close",
                    f"Content-Length: {len(body)}", *headers]
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
            await writer.drain()
            status, hdrs = await read_head(reader)
            if "content-length" in hdrs:
                data = await reader.readexactly(int(hdrs["content-length"]))
            elif "chunked" in hdrs.get("transfer-encoding", ""):
                parts = []
                while chunk := await read_chunk(reader):
                    parts.append(chunk)
                data = b"".join(parts)
            else:
                data = await reader.read()
            return status, hdrs, data
        finally:
            writer.close()
    return await asyncio.wait_for(go(), timeout)


async def sync(host, port, admin_key):
    """POST /translations/sync: its JSON answer (raises unless 200)."""
    status, _, data = await request(host, port, "POST", "/translations/sync",
                                    [f"Authorization: Bearer {admin_key}"])
    if status != 200:
        raise RuntimeError(f"POST /translations/sync answered {status}: {data[:300]!r}")
    return json.loads(data)


class EventStream:
    """One `GET /translations/events` connection."""

    def __init__(self, host, port, last_event_id=None):
        self.host, self.port, self.last_event_id = host, port, last_event_id
        self.reader = self.writer = None
        self.chunked = False
        self.text = ""  # decoded, not yet parsed
        self.comments = 0

    async def connect(self):
        """Opens the stream and reads the response head (raises unless 200 text/event-stream)."""
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        head = [f"GET /translations/events HTTP/1.1", f"Host: {self.host}:{self.port}",
                "Accept: text/event-stream", "Cache-Control: no-cache"]
        if self.last_event_id is not None:
            head.append(f"Last-Event-ID: {self.last_event_id}")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode())
        await self.writer.drain()
        status, headers = await read_head(self.reader)
        if status != 200 or not headers.get("content-type", "").startswith("text/event-stream"):
            raise RuntimeError(f"/translations/events answered {status} {headers}")
        self.chunked = "chunked" in headers.get("transfer-encoding", "")

    async def _more(self):
        data = await read_chunk(self.reader) if self.chunked else await self.reader.read(65536)
        if not data:
            raise ConnectionError("the event stream ended")
        self.text += data.decode("utf-8")

    async def next_event(self):
        """The next event as a dict of its fields (`event`, `id`, `data`); comment lines
        (heartbeats) are counted and skipped."""
        while True:
            self.text = self.text.replace("\r\n", "\n")
            while "\n\n" in self.text:
                block, _, self.text = self.text.partition("\n\n")
                fields = {}
                for line in block.split("\n"):
                    if line.startswith(":"):
                        self.comments += 1
                        continue
                    name, _, value = line.partition(":")
                    fields[name] = fields.get(name, "") + (value[1:] if value.startswith(" ") else value)
                if "data" in fields or "id" in fields:
                    return fields
            await self._more()

    def close(self):
        if self.writer is not None:
            self.writer.close()
