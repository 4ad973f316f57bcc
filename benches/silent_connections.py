"""Opens COUNT TCP connections to HOST:PORT that never send a byte, holds them for HOLD
seconds, and prints one JSON line: how many opened, how many the server closed and when
(seconds after the connection was opened), how many are still open at the end.

    python3 benches/silent_connections.py HOST PORT COUNT HOLD READY_FILE

READY_FILE gets a line once every connection is open (benches/silent_connections.sh waits
for it before it measures). Standard library only."""

import json
import resource
import selectors
import socket
import sys
import time

host, port, count, hold, ready = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

selector = selectors.DefaultSelector()
opened_at = {}
failed = 0
start = time.monotonic()
for _ in range(count):
    s = socket.socket()
    s.settimeout(10)
    try:
        s.connect((host, port))
    except OSError:
        failed += 1
        s.close()
        continue
    s.setblocking(False)
    opened_at[s.fileno()] = (s, time.monotonic())
    selector.register(s, selectors.EVENT_READ)
open_secs = time.monotonic() - start
with open(ready, "a") as f:
    f.write("%d\n" % len(opened_at))

closed_after = []
deadline = time.monotonic() + hold
while opened_at and time.monotonic() < deadline:
    for key, _ in selector.select(timeout=max(0.0, deadline - time.monotonic())):
        s, at = opened_at.pop(key.fd)
        try:
            data = s.recv(1)
        except OSError:
            data = b""
        if data:
            # The server answered a request nobody sent: count it as closed, note it.
            closed_after.append(-1.0)
        else:
            closed_after.append(time.monotonic() - at)
        selector.unregister(s)
        s.close()

print(json.dumps({
    "opened": len(opened_at) + len(closed_after),
    "failed": failed,
    "open_secs": round(open_secs, 3),
    "closed": len(closed_after),
    "closed_after": sorted(round(c, 2) for c in closed_after),
    "still_open": len(opened_at),
}))
