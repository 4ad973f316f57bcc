#!/usr/bin/env python3
"""Per-iteration minimum and median of criterion's raw samples under a directory.

Criterion's own estimate is a mean, which a busy neighbour on this shared machine moves by
20% or more from run to run; the fastest iterations and the median move far less.
Usage: benches/samples.py [CRITERION_DIR] (default target/criterion).
"""
import glob
import json
import os
import statistics
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
for path in sorted(glob.glob(os.path.join(root, "**", "new", "sample.json"), recursive=True)):
    with open(path) as f:
        data = json.load(f)
    per_iteration = [t / i for t, i in zip(data["times"], data["iters"])]
    name = os.path.relpath(os.path.dirname(os.path.dirname(path)), root)
    print(
        f"{name:45s} min {min(per_iteration) / 1e6:8.2f} ms"
        f"  median {statistics.median(per_iteration) / 1e6:8.2f} ms  n={len(per_iteration)}"
    )
