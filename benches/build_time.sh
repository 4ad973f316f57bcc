#!/usr/bin/env bash
# From-scratch build times of the profiles, in one run on one machine:
#   before   the release profile as it was (one codegen unit everywhere, fat LTO)
#   release  today's release profile (the README's first command)
#   dist     the packagers' profile (`cargo build --profile dist`)
# Each builds into a fresh target folder (the registry's sources are already downloaded,
# so no network time is counted). Prints wall and CPU (user+sys) seconds per profile.
#   benches/build_time.sh            all three
#   PROFILES="release dist" benches/build_time.sh
set -euo pipefail
cd "$(dirname "$0")/.."
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
