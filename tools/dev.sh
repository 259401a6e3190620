#!/usr/bin/env bash
# `task dev`: build, run the server, and rebuild + restart whenever a Go, templ, island,
# CSS or migration file changes. A failed build keeps the last good server running.
set -uo pipefail
cd "$(dirname "$0")/.."

export PORT="${PORT:-8080}"
# Without APP_ENV the server applies the production rules and refuses to start on
# development defaults (issue 24): the development loop says it is one.
export APP_ENV="${APP_ENV:-development}"
pid=""
stamp=$(mktemp)
trap 'rm -f "$stamp"; [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; exit 0' EXIT INT TERM

build() {
  go tool -modfile=tools/go.mod templ generate >/dev/null &&
    npm run -s build >/dev/null &&
    go build -o bin/server ./cmd/server
}

start() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  bin/server &
  pid=$!
}

changed() {
  # Every folder of Go, templ, island, CSS or migration files (not the build output, the
  # npm packages or the local data).
  find . \( -path ./node_modules -o -path ./static/dist -o -path ./.data -o -path ./bin -o -path ./.git -o -path ./test-results \) -prune -o -type f \
    \( -name '*.go' -o -name '*.templ' -o -name '*.ts' -o -name '*.tsx' -o -name '*.css' -o -name '*.sql' -o -name '*.mjs' -o -name '*.json' \) \
    ! -name '*_templ.go' -newer "$stamp" -print -quit 2>/dev/null
}

touch "$stamp"
echo "dev: building…"
build || exit 1
start
echo "dev: watching for changes (Ctrl-C to stop)"
while sleep 1; do
  f=$(changed)
  if [ -n "$f" ]; then
    touch "$stamp"
    echo "dev: $f changed, rebuilding…"
    if build; then start; else echo "dev: build failed; the previous server keeps running"; fi
  fi
  if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
    echo "dev: the server exited; fix the problem and save a file to restart"
    pid=""
  fi
done
