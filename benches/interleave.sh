#!/usr/bin/env bash
# Runs criterion bench binaries one after the other, ROUNDS times over, and prints each
# run's per-iteration minimum and median (benches/samples.py): before/after comparisons on
# this shared machine, whose speed drifts by 20% within minutes, need both sides measured
# in the same minutes.
#
#   benches/interleave.sh ROUNDS FILTER NAME=BINARY...
#
# e.g., with the binaries `cargo bench --no-run` printed for two checkouts:
#   benches/interleave.sh 4 convert before=../old/target/release/deps/translations_model-… \
#     after=target/release/deps/translations_model-…
set -euo pipefail
rounds=$1 filter=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for round in $(seq "$rounds"); do
  for pair in "$@"; do
    name=${pair%%=*} binary=${pair#*=}
    rm -rf "${scratch:?}/$name"
    CRITERION_HOME="$scratch/$name" "$binary" --bench --sample-size "${SAMPLES:-20}" \
      --warm-up-time 1 --measurement-time "${SECONDS_EACH:-3}" "$filter" >/dev/null 2>&1
    python3 "$here/samples.py" "$scratch/$name" | sed "s|^|$name round $round: |"
  done
done
