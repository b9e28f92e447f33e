#!/usr/bin/env bash
# mariadb-up.sh start|stop|socket
#
# Runs a private MariaDB for the test Neutrons (scripts/neutron-up.sh), as
# production Neutrons run on MySQL or MariaDB: SQLite cannot serve a
# neutron-server's concurrent requests (one greenthread's write waits on
# another's lock inside one OS thread, and the request fails with "database
# is locked"). The server listens on a Unix socket under its state dir only
# (no TCP), so it neither needs nor disturbs a system MariaDB; root has no
# password and the socket is private to the state dir's owner.
#
#   start   install Debian's mariadb-server if missing, initialise the data
#           dir once, start, wait, print the socket path on stdout
#   stop    stop the server this script started (by its pid file)
#   socket  print the socket path
#
# Environment:
#   MARIADB_DIR  state dir: data, socket, pid file, log
#                (default ${TMPDIR:-/tmp}/ipsync-mariadb)
set -euo pipefail

D=${MARIADB_DIR:-${TMPDIR:-/tmp}/ipsync-mariadb}
SOCK=$D/mysqld.sock
PIDFILE=$D/mysqld.pid

log() { printf 'mariadb-up: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install_packages() {
  dpkg-query -W -f='${Status}' mariadb-server 2>/dev/null | grep -q 'install ok installed' && return 0
  log "installing mariadb-server"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mariadb-server >&2
  # Debian may start a system server on install; this script's is the one used.
  if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    as_root systemctl disable --now mariadb >&2 || true
  elif command -v invoke-rc.d >/dev/null 2>&1; then
    as_root invoke-rc.d mariadb stop >&2 || true
  fi
}

running() { [ -s "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

ready() { mariadb --no-defaults --socket="$SOCK" -uroot -e 'select 1' >/dev/null 2>&1; }

start() {
  install_packages
  if running && ready; then echo "$SOCK"; return 0; fi
  mkdir -p "$D"
  chmod 700 "$D"
  if [ ! -d "$D/data/mysql" ]; then
    mariadb-install-db --no-defaults --datadir="$D/data" --user="$(id -un)" \
      --auth-root-authentication-method=normal --skip-test-db >"$D/install.log" 2>&1 ||
      { cat "$D/install.log" >&2; die "mariadb-install-db failed"; }
  fi
  # Durability is not what the tests measure: no binary log, the redo log
  # flushed once a second, and a buffer pool that holds a benchmark site.
  setsid nohup mariadbd --no-defaults --datadir="$D/data" --socket="$SOCK" --pid-file="$PIDFILE" \
    --skip-networking --user="$(id -un)" --log-error="$D/mariadb.log" \
    --innodb-buffer-pool-size=512M --innodb-flush-log-at-trx-commit=2 --skip-log-bin \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci \
    --max-connections=500 >/dev/null 2>&1 </dev/null &
  local launcher=$!
  for _ in $(seq 1 120); do
    if ready; then log "ready, socket $SOCK"; echo "$SOCK"; return 0; fi
    kill -0 "$launcher" 2>/dev/null || break
    sleep 0.25
  done
  tail -30 "$D/mariadb.log" >&2 || true
  die "mariadbd did not start; see $D/mariadb.log"
}

stop() {
  if ! running; then rm -f "$PIDFILE"; log "not running ($D)"; return 0; fi
  local pid; pid=$(cat "$PIDFILE")
  kill -TERM "$pid"
  for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
  rm -f "$PIDFILE"
  log "mariadbd $pid stopped"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
socket) echo "$SOCK" ;;
*)
  echo "usage: $0 start|stop|socket" >&2
  exit 2
  ;;
esac
