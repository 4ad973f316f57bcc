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

# Starts a throwaway redis-server on a free loopback port (data in $WORK/redis, stopped by
# cleanup) and sets REDIS_PORT once it answers.
start_redis() {
  REDIS_PORT=$(free_port)
  mkdir -p "$WORK/redis"
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$WORK/redis" --save "" \
    --appendonly no --logfile redis.log &
  PIDS+=($!)
  for _ in $(seq 100); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.05; done
}

# A free TCP port on the loopback interface.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
