# Write-to-visible latency across two depot nodes on one PostgreSQL database: POST /files
# on node A (returns after commit), then poll GET /files?fileName=<unique> on node B, whose
# cache held the empty answer. Nodes need DEPOT_ADMIN_KEYS=adm and the same
# DEPOT_DATABASE_URL. Usage: python3 benches/visible.py http://A http://B SAMPLES
import json, subprocess, time, urllib.request, uuid, statistics, sys
A, B, N = sys.argv[1], sys.argv[2], int(sys.argv[3])
lat = []
for i in range(N):
    name = "vis-%s.txt" % uuid.uuid4().hex
    open("/tmp/" + name, "w").write("x")
    # Node B has this query cached (empty) before the write.
    urllib.request.urlopen(B + "/files?fileName=" + name).read()
    out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer adm",
                          "-F", "file=@/tmp/" + name, A + "/files"], capture_output=True, text=True).stdout
    assert out == "201", out
    t0 = time.monotonic()
    while True:
        body = json.loads(urllib.request.urlopen(B + "/files?fileName=" + name).read())
        if body["meta"]["total"] == "1":
            break
    lat.append((time.monotonic() - t0) * 1000)
lat.sort()
print("n=%d p50=%.1fms p99=%.1fms max=%.1fms" % (N, lat[len(lat)//2], lat[int(len(lat)*0.99)-1], lat[-1]))
