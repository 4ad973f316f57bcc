#!/usr/bin/env bash
# Exact names (SPEC §12.1) at scale: `depot generate`, `depot import` and `depot diff` of
# 50,000 keys x 20 locales, with and without a name column, side by side in one run
# (release build, hyperfine), so that load on the machine slows both alike:
#   plain  the 50 MB sheet of benches/import.sh (one key in ten a plural entry, every text
#          with a placeholder), keys named by depot (`section00_sub00_key000`);
#   named  the same sheet with an `@@@` column: every key named as an app would name it
#          (`Section00.Sub00.keyName000`, mixed case and dotted, so every flat format
#          writes the name and import writes the column back).
# For each kind: generate of the formats into an empty folder; import of each format's
# folder to .csv; diff of each folder against the kind's sheet (exit 0: they agree).
#
#   benches/app_names.sh
#   RUNS=3 FORMATS=android,ios benches/app_names.sh
#   SECTIONS=2 RUNS=1 DEPOT_BIN=target/debug/depot benches/app_names.sh   # a quick try
#   COUNT=instructions SECTIONS=5 benches/app_names.sh   # callgrind instead of hyperfine
#
# COUNT=instructions counts each import and diff's instructions with valgrind's callgrind
# (all threads; deterministic, where wall times on a shared 2-core VM move by 15% between
# runs of the same pair) and prints named/plain per format. 5 sections (5,000 keys x 20
# locales) take a few minutes; needs valgrind (apt-get install valgrind).
#
# Needs hyperfine (Debian: apt-get install hyperfine) and python3 (to write the sheets).
# DEPOT_BIN=path skips the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
FORMATS=${FORMATS:-android,ios,po,xlf,xcstrings,arb,i18next,properties,resx}
# 1,000 keys per section: SECTIONS=2 for a quick try of the script itself
SECTIONS=${SECTIONS:-50}

command -v hyperfine >/dev/null || { echo "hyperfine is needed: apt-get install hyperfine" >&2; exit 1; }
if [[ -z ${DEPOT_BIN:-} ]]; then
  cargo build --release --quiet
  DEPOT_BIN=$PWD/target/release/depot
fi
BIN=$DEPOT_BIN
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

python3 - "$SECTIONS" <<'PY'
import csv, sys
locales = ["en_US", "pl_PL", "de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR", "nl_NL", "sv_SE",
           "da_DK", "fi_FI", "nb_NO", "cs_CZ", "sk_SK", "hu_HU", "ro_RO", "bg_BG", "el_GR",
           "tr_TR", "ja_JP"]
for kind in ["plain", "named"]:
    named = kind == "named"
    with open(f"{kind}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["###", ">>>", ">>>", ">>>"] + (["@@@"] if named else []) + locales)
        n = 0
        for s in range(int(sys.argv[1])):
            w.writerow(["", f"SECTION{s:02d}"])
            for sub in range(20):
                w.writerow([f"tag{sub % 5}", "", f"SUB{sub:02d}"])
                for k in range(50):
                    n += 1
                    name = [f"Section{s:02d}.Sub{sub:02d}.keyName{k:03d}"] if named else []
                    if k % 10 == 5:
                        for form in ["one", "other"]:
                            w.writerow(["", "", "", f"KEY{k:03d}[{form}]"] + name
                                       + [f'{{count}} {l} {form} {n} with "quotes" & <b>tags</b>'
                                          for l in locales])
                        continue
                    w.writerow(["", "", "", f"KEY{k:03d}"] + name
                               + [f'{{name}} {l} text {n} with "quotes" & <b>tags</b>'
                                  for l in locales])
PY

for kind in plain named; do
  for format in ${FORMATS//,/ }; do
    "$BIN" generate --source "$kind.csv" -f "$format" -p "app-$kind-$format" --base en -q
  done
done
du -sh app-* >&2

if [[ ${COUNT:-} == instructions ]]; then
  command -v valgrind >/dev/null || { echo "valgrind is needed: apt-get install valgrind" >&2; exit 1; }
  # millions of instructions of one run, every thread
  ir() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null \
      | sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | awk '{printf "%.1f", $1 / 1e6}'
  }
  printf '%-11s %22s %22s\n' format "import plain/named" "diff plain/named"
  for format in ${FORMATS//,/ }; do
    ip=$(ir "$BIN" import "app-plain-$format" --to p.csv -q)
    in=$(ir "$BIN" import "app-named-$format" --to n.csv -q)
    dp=$(ir "$BIN" diff --source plain.csv "app-plain-$format" -q)
    dn=$(ir "$BIN" diff --source named.csv "app-named-$format" -q)
    awk -v f="$format" -v ip="$ip" -v nn="$in" -v dp="$dp" -v dn="$dn" 'BEGIN {
      printf "%-11s %7.1fM %7.1fM %.3fx %7.1fM %7.1fM %.3fx\n", f, ip, nn, nn / ip, dp, dn, dn / dp }'
  done
  exit 0
fi

uptime >&2
hyperfine --runs "$RUNS" --warmup 1 -N --prepare 'rm -rf out-{kind}' -L kind plain,named \
    -n "generate {kind}: $FORMATS" "$BIN generate --source {kind}.csv -f $FORMATS -p out-{kind} --base en -q"
uptime >&2
hyperfine --runs "$RUNS" --warmup 1 -N -L format "$FORMATS" -L kind plain,named \
    -n "import {kind} {format}" "$BIN import app-{kind}-{format} --to sheet-{kind}-{format}.csv -q"
uptime >&2
hyperfine --runs "$RUNS" --warmup 1 -N -L format "$FORMATS" -L kind plain,named \
    -n "diff {kind} {format}" "$BIN diff --source {kind}.csv app-{kind}-{format} -q"
