# Sourced by the bench scripts that start processes: the depot binary to measure (BIN: the
# release build, made here, unless DEPOT_BIN names one), a scratch folder (WORK) removed at
# exit, the processes listed in PIDS stopped at exit, free_port, and the wrk settings the
# load scripts share (each overridable from the environment).

DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}

if [ -z "${DEPOT_BIN:-}" ]; then cargo build --release --quiet; fi
BIN=${DEPOT_BIN:-$PWD/target/release/depot}
unset DEPOT_BIN # not a setting of depot: it would warn about an unknown variable
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# A free TCP port on the loopback interface.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
