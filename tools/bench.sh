#!/usr/bin/env bash
# `task bench`: the signed-in payment history page under load (issue 12). Builds nothing
# (the Taskfile builds bin/server first); starts bin/server on a free port with a fresh
# database (cardpay_bench) and the demo data, gives the demo corporation 2,000 more
# payments (`bin/server -seed-payments 2000`), runs the vegeta bench (tools/bench) and
# stops the server whatever happens. It prints figures and never fails on them.
set -euo pipefail

cd "$(dirname "$0")/.."
# Without APP_ENV the server applies the production rules (issue 24); the server and every
# bin/server command the tests run here are development.
export APP_ENV=development
if [[ ! -x bin/server ]]; then
	echo "bench: bin/server is missing: go build -o bin/server ./cmd/server" >&2
	exit 1
fi

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
PORT=$(free_port)
PSP_PORT=$(free_port)
while [[ $PSP_PORT == "$PORT" ]]; do PSP_PORT=$(free_port); done
DEMO_PASSWORD=$(node -e 'console.log(require("crypto").randomBytes(18).toString("base64url"))')
DB=${BENCH_DATABASE_NAME:-cardpay_bench}
LOG=$(mktemp -t cardpay-bench.XXXXXX)
PID=""

stop_server() {
	if [[ -n $PID ]] && kill -0 "$PID" 2>/dev/null; then
		kill -TERM "$PID" 2>/dev/null || true
		for _ in $(seq 1 50); do
			kill -0 "$PID" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL "$PID" 2>/dev/null || true
		wait "$PID" 2>/dev/null || true
	fi
	PID=""
}
trap stop_server EXIT

# Production-like where it matters for speed: no dev reloading, the default job workers.
# PPROF_ADDR (e.g. 127.0.0.1:6060) is passed on: profile the server while the bench runs.
PORT=$PORT SANDBOX_PSP_PORT=$PSP_PORT DEMO_PASSWORD=$DEMO_PASSWORD DATABASE_NAME=$DB RESET_DATABASE=1 APP_ENV=development \
	PPROF_ADDR=${PPROF_ADDR:-} bin/server >"$LOG" 2>&1 &
PID=$!
for _ in $(seq 1 300); do
	grep -q "^listening on http://localhost:$PORT" "$LOG" && break
	if ! kill -0 "$PID" 2>/dev/null; then
		echo "bench: the server exited. Its log:" >&2
		sed 's/^/  | /' "$LOG" >&2
		exit 1
	fi
	sleep 0.2
done
grep -q "^listening on http://localhost:$PORT" "$LOG" || { echo "bench: the server did not start" >&2; exit 1; }

DATABASE_NAME=$DB bin/server -seed-payments 2000 2>>"$LOG"

# The idle server: no request for 30 s. Its CPU from /proc (user + system ticks of the
# process) and the transactions PostgreSQL ended meanwhile in its database (its own
# statistics, read by `bin/server -db-commits` before and after: one reading's start-up
# and autovacuum's work on the seeded tables count too).
IDLE=${BENCH_IDLE_SECONDS:-30}
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
# The seeding's and start-up's jobs settle, and PostgreSQL's idle backends report their
# counts (up to 10 s late): what the window counts is then the idle server's own.
sleep 12
c0=$(DATABASE_NAME=$DB bin/server -db-commits 2>>"$LOG")
t0=$(ticks)
sleep "$IDLE"
t1=$(ticks)
c1=$(DATABASE_NAME=$DB bin/server -db-commits 2>>"$LOG")
hz=$(getconf CLK_TCK)
awk -v t="$((t1 - t0))" -v hz="$hz" -v s="$IDLE" -v c="$((c1 - c0))" 'BEGIN {
	printf "Idle server (no requests for %d s): %.2f %% of a core in the app, %.2f transactions a second in PostgreSQL (%d in all).\n\n", s, 100 * t / hz / s, c / s, c
}'
# A second instance on the same database (its own ports, no reset), for the scale-out run.
PORT2=$(free_port)
PSP_PORT2=$(free_port)
LOG2=$(mktemp -t cardpay-bench2.XXXXXX)
PORT=$PORT2 SANDBOX_PSP_PORT=$PSP_PORT2 DEMO_PASSWORD=$DEMO_PASSWORD DATABASE_NAME=$DB APP_ENV=development PPROF_ADDR= \
	bin/server >"$LOG2" 2>&1 &
PID2=$!
trap 'stop_server; kill -TERM "$PID2" 2>/dev/null || true; wait "$PID2" 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do
	grep -q "^listening on http://localhost:$PORT2" "$LOG2" && break
	kill -0 "$PID2" 2>/dev/null || { echo "bench: the second instance exited:" >&2; sed 's/^/  | /' "$LOG2" >&2; exit 1; }
	sleep 0.2
done

(cd tools && BASE_URL="http://localhost:$PORT" BASE_URL2="http://localhost:$PORT2" SERVER_PIDS="$PID" \
	DEMO_PASSWORD=$DEMO_PASSWORD go run ./bench)
