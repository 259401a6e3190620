#!/usr/bin/env bash
# Browser tests and page weight against a real server and real Chromium (DESIGN.md §5, §6).
#
# Assumes the app was built (the Taskfile does it first):
#   go tool -modfile=tools/go.mod templ generate && npm run build && go build -o bin/server ./cmd/server
#   go build -o bin/cardscan ./cmd/cardscan
# Then: ensures Chromium and node_modules, starts bin/server on a free port with a fresh
# database (cardpay_e2e) and a random demo password, runs `node --test tools/e2e/`, then
# `node tools/pageweight.mjs`, and stops the server whatever happens.
# Output: test-results/ (server log, failure screenshots, e2e.tap, pageweight.md).
set -euo pipefail

cd "$(dirname "$0")/.."
# Without APP_ENV the server applies the production rules (issue 24); the server and every
# bin/server command the tests run here are development.
export APP_ENV=development
ROOT=$(pwd)
RESULTS="$ROOT/test-results"
CHROMIUM=/usr/bin/chromium
SUITE_START=$(date +%s.%N)

elapsed() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f s", e - s }'; }
log() { printf '\n==> %s\n' "$*"; }

if [[ ! -x bin/server ]]; then
	echo "e2e: bin/server is missing. Build the app first:" >&2
	echo "  go tool -modfile=tools/go.mod templ generate && npm run build && go build -o bin/server ./cmd/server" >&2
	exit 1
fi

# --- Chromium (from Debian, never from npx playwright install) ---------------------------
if [[ ! -x $CHROMIUM ]]; then
	cmd="apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk"
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		log "installing Chromium: $cmd"
		t=$(date +%s.%N)
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null
		echo "Chromium installed in $(elapsed "$t")"
	else
		echo "e2e: $CHROMIUM is missing. Install it (with Japanese fonts for screenshots) as root:" >&2
		echo "  $cmd" >&2
		exit 1
	fi
fi

# Japanese text in failure screenshots needs a CJK font; the tests pass without one.
if command -v fc-list >/dev/null && [[ -z $(fc-list :lang=ja 2>/dev/null | head -n 1) ]]; then
	if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
		log "installing fonts-noto-cjk (Japanese in screenshots)"
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null ||
			echo "e2e: warning: could not install fonts-noto-cjk; screenshots will show boxes for Japanese" >&2
	else
		echo "e2e: warning: no Japanese font; for readable screenshots run as root: apt-get install -y fonts-noto-cjk" >&2
	fi
fi

# --- node_modules -------------------------------------------------------------------------
if [[ ! -d node_modules/playwright-core || ! -d node_modules/@axe-core/playwright ]]; then
	log "npm ci"
	t=$(date +%s.%N)
	npm ci --no-audit --no-fund
	echo "npm ci took $(elapsed "$t")"
fi

mkdir -p "$RESULTS"
rm -rf "$RESULTS/e2e"

# --- server -------------------------------------------------------------------------------
free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
PORT=$(free_port)
# The sandbox PSP listens on its own origin beside the app, as a real PSP would.
PSP_PORT=$(free_port)
while [[ $PSP_PORT == "$PORT" ]]; do PSP_PORT=$(free_port); done
DEMO_PASSWORD=$(node -e 'console.log(require("crypto").randomBytes(18).toString("base64url"))')
SERVER_LOG="$RESULTS/e2e-server.log"
SERVER_PID=""

stop_server() {
	if [[ -n $SERVER_PID ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
		kill -TERM "$SERVER_PID" 2>/dev/null || true
		for _ in $(seq 1 50); do
			kill -0 "$SERVER_PID" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
	fi
	SERVER_PID=""
}
trap stop_server EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log "starting bin/server on port $PORT (log: ${SERVER_LOG#"$ROOT"/})"
t=$(date +%s.%N)
# Every browser test comes from 127.0.0.1 and signs the demo accounts in from fresh
# browsers many times over: the rate limits would stop the suite, so they are raised
# here; the security suite (task test:security) tests them at their defaults.
# The database is the run's own: its commits need not wait for the disk (as the Go tests'
# databases, devdb.Server.Throwaway).
PGOPTIONS='-c synchronous_commit=off' PORT=$PORT SANDBOX_PSP_PORT=$PSP_PORT DEMO_PASSWORD=$DEMO_PASSWORD DATABASE_NAME="${E2E_DATABASE_NAME:-cardpay_e2e}" RESET_DATABASE=1 API_ACCESS_TOKEN_TTL=3s APP_ENV=development \
	RATE_LIMITS='*.ip=1000000/1m,*.target=1000000/1m' \
	bin/server >"$SERVER_LOG" 2>&1 &
SERVER_PID=$!

ready=""
for _ in $(seq 1 300); do # 300 × 0.2 s = 60 s
	if grep -q "^listening on http://localhost:$PORT" "$SERVER_LOG"; then
		ready=1
		break
	fi
	if ! kill -0 "$SERVER_PID" 2>/dev/null; then
		break
	fi
	sleep 0.2
done
if [[ -z $ready ]]; then
	if kill -0 "$SERVER_PID" 2>/dev/null; then
		echo "e2e: the server did not print its listening line within 60 s. Its log:" >&2
	else
		echo "e2e: the server exited before it was ready. Its log:" >&2
	fi
	sed 's/^/  | /' "$SERVER_LOG" >&2
	exit 1
fi
echo "server ready in $(elapsed "$t")"

export BASE_URL="http://localhost:$PORT"
export PSP_URL="http://localhost:$PSP_PORT"
export DEMO_PASSWORD
# The database's name, for tests that run `bin/server -send-back` against it.
export E2E_DB_NAME="${E2E_DATABASE_NAME:-cardpay_e2e}"

failed=()
timings=()

step() { # step NAME COMMAND...: runs it, records its time and whether it failed
	local name=$1 t rc=0
	shift
	log "$name"
	t=$(date +%s.%N)
	"$@" || rc=$?
	timings+=("$(printf '%-12s %8s  %s' "$name" "$(elapsed "$t")" "$([[ $rc -eq 0 ]] && echo ok || echo "FAILED (exit $rc)")")")
	[[ $rc -eq 0 ]] || failed+=("$name")
}

# spec for people, TAP in test-results/ for CI artefacts; both end with the summary lines.
# The files are listed (not the folder) so that Node versions that take globs agree.
step "e2e tests" node --test --test-concurrency=1 \
	--test-reporter=spec --test-reporter-destination=stdout \
	--test-reporter=tap --test-reporter-destination="$RESULTS/e2e.tap" \
	${E2E_TESTS:-tools/e2e/*.test.mjs}
step "page weight" node tools/pageweight.mjs

stop_server

# The card data rule, on everything the run wrote: the e2e database (the app's and the
# sandbox PSP's tables) and every log, including the Go tests' output when it is there.
logs=("$SERVER_LOG" "$RESULTS/e2e.tap")
[[ -f $RESULTS/go-test.log ]] && logs+=("$RESULTS/go-test.log")
step "card data" bin/cardscan -database "${E2E_DATABASE_NAME:-cardpay_e2e}" "${logs[@]}"

log "timings"
printf '  %s\n' "${timings[@]}"
printf '  %-12s %8s\n' "total" "$(elapsed "$SUITE_START")"

if ((${#failed[@]})); then
	echo "e2e: FAILED: ${failed[*]} (server log: ${SERVER_LOG#"$ROOT"/}; screenshots: test-results/e2e/)" >&2
	exit 1
fi
echo "e2e: all passed"
