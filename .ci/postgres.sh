#!/usr/bin/env bash
# A throwaway Postgres cluster for the durable-run tests, on 127.0.0.1 and a socket in its own folder.
#
#   eval "$(.ci/postgres.sh start)"   # prints `export TOOLWIRE_TEST_POSTGRES_URL=... TOOLWIRE_TEST_POSTGRES_DIR=...`
#   .ci/postgres.sh stop              # stops the cluster named by TOOLWIRE_TEST_POSTGRES_DIR and removes it
#
# Uses Debian's `postgresql` package (installed if missing, when apt-get is usable). Root cannot run
# Postgres: as root the cluster belongs to the `postgres` user the package creates. When Postgres
# cannot be installed or started it prints nothing to evaluate, and the Postgres tests skip saying so.
set -euo pipefail

bin_dir() {
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1
}

as_owner() {
  if [ "$(id -u)" = "0" ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

start() {
  if [ -z "$(bin_dir)" ] && command -v apt-get >/dev/null && [ "$(id -u)" = "0" ]; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; } >/dev/null 2>&1 \
      || echo "postgres.sh: apt-get could not install postgresql" >&2
  fi
  local bin
  bin="$(bin_dir)"
  if [ -z "$bin" ]; then
    echo "postgres.sh: no Postgres installation found" >&2
    return 0
  fi
  local dir port
  dir="$(mktemp -d /tmp/toolwire-pg.XXXXXX)"
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  if [ "$(id -u)" = "0" ]; then
    chown postgres "$dir"
  fi
  if ! as_owner "$bin/initdb" -D "$dir/data" -A trust -U toolwire >"$dir/initdb.log" 2>&1 \
    || ! as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -o "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null 2>&1; then
    echo "postgres.sh: the cluster did not start (see $dir)" >&2
    return 0
  fi
  echo "export TOOLWIRE_TEST_POSTGRES_URL=postgresql://toolwire@127.0.0.1:$port/postgres"
  echo "export TOOLWIRE_TEST_POSTGRES_DIR=$dir"
}

stop() {
  local dir="${TOOLWIRE_TEST_POSTGRES_DIR:-}"
  if [ -z "$dir" ] || [ ! -d "$dir/data" ]; then
    return 0
  fi
  as_owner "$(bin_dir)/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}

"$1"
