#!/usr/bin/env bash
# Makes sure the app will find PostgreSQL the way DESIGN.md §3 orders it. The server
# itself connects to DATABASE_URL, or 127.0.0.1:5432, or starts a cluster under .data/
# from the installed binaries; this script only covers the step it cannot do: install
# the binaries when none exist (as root, with apt). `stop` stops the .data/ cluster.
set -euo pipefail
cd "$(dirname "$0")/.."

find_bin() {
  if command -v pg_ctl >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1; then
    dirname "$(command -v pg_ctl)"; return
  fi
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

if [ "${1:-}" = "stop" ]; then
  bin=$(find_bin)
  if [ -f .data/postgres/postmaster.pid ] && [ -n "$bin" ]; then
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$bin/pg_ctl" -D "$PWD/.data/postgres" stop; else "$bin/pg_ctl" -D .data/postgres stop; fi
  else
    echo "no project-local cluster is running"
  fi
  exit 0
fi

if [ -n "${DATABASE_URL:-}" ]; then
  echo "postgres: using DATABASE_URL"; exit 0
fi
if (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; then
  echo "postgres: a server answers on 127.0.0.1:5432"; exit 0
fi
if [ -n "$(find_bin)" ]; then
  echo "postgres: binaries in $(find_bin); the app starts a cluster under .data/postgres"; exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "postgres: none found; installing Debian's postgresql package"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  echo "postgres: installed $(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
  exit 0
fi
cat >&2 <<'MSG'
PostgreSQL was not found. Do one of these, then run the command again:
  - set DATABASE_URL=postgres://user@host:5432/dbname
  - start a PostgreSQL server on 127.0.0.1:5432 (trust or password auth for user postgres)
  - install the server binaries: sudo apt-get install postgresql
MSG
exit 1
