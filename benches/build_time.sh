#!/usr/bin/env bash
# From-scratch build times of the profiles, in one run on one machine:
#   before   the release profile as it was (one codegen unit everywhere, fat LTO)
#   release  today's release profile (the README's first command)
#   dist     the packagers' profile (`cargo build --profile dist`)
# Each builds into a fresh target folder (the registry's sources are already downloaded,
# so no network time is counted). Prints wall and CPU (user+sys) seconds per profile.
#   benches/build_time.sh            all three
#   PROFILES="release dist" benches/build_time.sh
#
# `rebuild` mode: what a one-line change in one renderer costs, in this worktree's own
# target folder (both profiles built first, untimed): one statement is added to the first
# line of `pub fn write(` in REBUILD_FILE (default src/formats/po/write.rs), then
# `cargo build --release` and `cargo build` (dev) are timed; the file is put back (a second
# rebuild of each, timed too) and restored on any exit. RUNS edit/revert pairs (default 1);
# CARGO_FLAGS go to every build (another profile setting to compare, say).
#   benches/build_time.sh rebuild
#   RUNS=2 REBUILD_FILE=src/formats/json/write.rs benches/build_time.sh rebuild
#   CARGO_FLAGS="--config profile.release.incremental=true" benches/build_time.sh rebuild
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = rebuild ]; then
  file=${REBUILD_FILE:-src/formats/po/write.rs}
  grep -q '^pub fn write(' "$file" || { echo "$file has no line starting 'pub fn write('" >&2; exit 2; }
  saved=$(mktemp "${TMPDIR:-/tmp}/depot-rebuild.XXXXXX")
  cp -p "$file" "$saved"
  trap 'cp "$saved" "$file"; rm -f "$saved"' EXIT
  echo "cores: $(nproc); warming up both profiles (untimed)"
  read -r -a flags <<< "${CARGO_FLAGS:-}"
  cargo build --quiet --locked --release "${flags[@]}"
  cargo build --quiet --locked "${flags[@]}"
  timed() { # label, cargo args...
    local label=$1 start end; shift
    start=$(date +%s.%N)
    /usr/bin/time -f "%U %S" -o "$saved.cpu" cargo build --quiet --locked "$@" "${flags[@]}"
    end=$(date +%s.%N)
    read -r user sys < "$saved.cpu"
    printf '%-24s wall %6.1f s  cpu %6.1f s  load after %s\n' "$label" \
      "$(echo "$end - $start" | bc)" "$(echo "$user + $sys" | bc)" "$(cut -d' ' -f1 /proc/loadavg)"
  }
  for run in $(seq "${RUNS:-1}"); do
    echo "run $run; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    # a statement that reaches the machine code (a comment would be skipped by incremental builds)
    sed -i "0,/^pub fn write(.*{\$/s//& std::hint::black_box(${run}_u32);/" "$file"
    timed "release, line changed" --release
    timed "dev, line changed"
    cp "$saved" "$file" # a new mtime: cargo rebuilds
    timed "release, line reverted" --release
    timed "dev, line reverted"
  done
  rm -f "$saved.cpu"
  exit 0
fi
profiles=${PROFILES:-"before release dist"}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/depot-build-time.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
cargo fetch --quiet
echo "cores: $(nproc); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for profile in $profiles; do
  target="$scratch/$profile"
  case $profile in
    before) args=(--release); env=(CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1) ;;
    release) args=(--release); env=() ;;
    dist) args=(--profile dist); env=() ;;
    *) echo "unknown profile $profile (before, release, dist)" >&2; exit 2 ;;
  esac
  start=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$scratch/$profile.cpu" \
    env "${env[@]}" CARGO_TARGET_DIR="$target" cargo build --quiet --locked "${args[@]}"
  end=$(date +%s.%N)
  read -r user sys < "$scratch/$profile.cpu"
  printf '%-8s wall %6.1f s  cpu %6.1f s  binary %s MB  load after %s\n' "$profile" \
    "$(echo "$end - $start" | bc)" "$(echo "$user + $sys" | bc)" \
    "$(du -m "$target"/*/depot | cut -f1 | head -1)" "$(cut -d' ' -f1 /proc/loadavg)"
  rm -rf "$target"
done
