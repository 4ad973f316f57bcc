#!/usr/bin/env bash
# `depot generate` on a 50,000-key x 20-locale local sheet (a 50 MB CSV whose texts all
# hold quotes, an ampersand and markup, so every format escapes), release build, hyperfine:
#   1. all six formats in one run, into an empty folder (the files are all new);
#   2. the same run again (every file unchanged, so none is rewritten);
#   3. all six in one run with --sync (every file forced to disk);
#   4. each format in a run of its own, into an empty folder.
#
#   benches/generate.sh
#   RUNS=10 benches/generate.sh
#   PLURALS=1 benches/generate.sh    # one key in ten a plural entry (KEY[one], KEY[other])
#   FORMATS=json,properties,resx benches/generate.sh   # other formats than the first six
#
# Needs hyperfine (Debian: apt-get install hyperfine) and python3 (to write the sheet).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
PLURALS=${PLURALS:-0}

command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 1; }
cargo build --release --quiet
BIN=$PWD/target/release/depot
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

python3 - big.csv "$PLURALS" <<'PY'
import csv, sys
plurals = sys.argv[2] == "1"
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
                if plurals and k % 10 == 5:
                    for form in ["one", "other"]:
                        w.writerow(["", "", "", f"KEY{k:03d}[{form}]"]
                                   + [f'{{count}} {l} {form} {n} with "quotes" & <b>tags</b>'
                                      for l in locales])
                    continue
                w.writerow(["", "", "", f"KEY{k:03d}"]
                           + [f'{l} text {n} with "quotes" & <b>tags</b>' for l in locales])
PY

ALL=${FORMATS:-json,android,ios,yml,xlf,po}
hyperfine --runs "$RUNS" --warmup 1 -N --prepare 'rm -rf out-all' \
    -n "formats $ALL, one run, new files" "$BIN generate --source big.csv -f $ALL -p out-all -q"
hyperfine --runs "$RUNS" --warmup 1 -N \
    -n "formats $ALL, one run, files unchanged" "$BIN generate --source big.csv -f $ALL -p out-all -q"
hyperfine --runs "$RUNS" --warmup 1 -N --prepare 'rm -rf out-sync' \
    -n "formats $ALL, one run, new files, --sync" "$BIN generate --source big.csv -f $ALL -p out-sync -q --sync"
hyperfine --runs "$RUNS" --warmup 1 -N --prepare 'rm -rf out-{format}' -L format "$ALL" \
    "$BIN generate --source big.csv -f {format} -p out-{format} -q"
