#!/usr/bin/env bash
# `depot import` and `depot diff` of 50,000 keys x 20 locales, release build, hyperfine:
# the 50 MB sheet of benches/generate.sh (one key in ten a plural entry) is written by
# `depot generate` in each of the eleven formats (per-locale files: 20 or 21 files each,
# 22 for android and ios with the base copies, one catalog for xcstrings), then
#   1. `depot import <folder> --to sheet.csv` per format;
#   2. `depot import` of the json files into .xlsx and .ods;
#   3. `depot diff --source big.csv <folder>` per format (the files agree with the sheet).
#
#   benches/import.sh
#   RUNS=10 benches/import.sh
#   FORMATS=android,json benches/import.sh
#
# The machine's load average is printed before each set: on a shared machine the wall
# times wait for a core, so compare the CPU times (hyperfine's User + System) as well.
#
# Needs hyperfine (Debian: apt-get install hyperfine) and python3 (to write the sheet).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
FORMATS=${FORMATS:-android,ios,json,yml,po,xlf,xcstrings,arb,i18next,properties,resx}

command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 1; }
cargo build --release --quiet
BIN=$PWD/target/release/depot
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

python3 - big.csv <<'PY'
import csv, sys
locales = ["en_US", "pl_PL", "de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR", "nl_NL", "sv_SE",
           "da_DK", "fi_FI", "nb_NO", "cs_CZ", "sk_SK", "hu_HU", "ro_RO", "bg_BG", "el_GR",
           "tr_TR", "ja_JP"]
with open(sys.argv[1], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["###", ">>>", ">>>", ">>>"] + locales)
    n = 0
    for s in range(50):
        w.writerow(["", f"SECTION{s:02d}"])
        for sub in range(20):
            w.writerow([f"tag{sub % 5}", "", f"SUB{sub:02d}"])
            for k in range(50):
                n += 1
                if k % 10 == 5:
                    for form in ["one", "other"]:
                        w.writerow(["", "", "", f"KEY{k:03d}[{form}]"]
                                   + [f'{{count}} {l} {form} {n} with "quotes" & <b>tags</b>'
                                      for l in locales])
                    continue
                w.writerow(["", "", "", f"KEY{k:03d}"]
                           + [f'{{name}} {l} text {n} with "quotes" & <b>tags</b>' for l in locales])
PY

for format in ${FORMATS//,/ }; do
  "$BIN" generate --source big.csv -f "$format" -p "app-$format" --base en --placeholders convert -q
done
du -sh app-* >&2

uptime >&2
hyperfine --runs "$RUNS" --warmup 1 -N -L format "$FORMATS" \
    -n "import {format}" "$BIN import app-{format} --to sheet-{format}.csv"
if [[ ",$FORMATS," == *",json,"* ]]; then
  uptime >&2
  hyperfine --runs "$RUNS" --warmup 1 -N -L kind xlsx,ods \
      -n "import json to .{kind}" "$BIN import app-json --to sheet.{kind}"
fi
uptime >&2
hyperfine --runs "$RUNS" --warmup 1 -N -L format "$FORMATS" \
    -n "diff {format}" "$BIN diff --source big.csv app-{format} --placeholders convert"
