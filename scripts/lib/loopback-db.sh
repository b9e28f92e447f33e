# Shared by the scripts that start a real source of truth on loopback
# (nautobot-up.sh, netbox-up.sh): a private PostgreSQL and Redis from
# Debian's packages under the server's state dir, dumps of its database,
# and phase timing. Sourced, not run. The caller sets:
#   LOG_NAME   prefix of log lines
#   D          state dir (logs in $D/log)
#   PG_PORT, REDIS_PORT, DB_NAME
#   PACKAGES   Debian packages the server needs

PGDATA=$D/pg
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)

log() { printf '%s: %s\n' "$LOG_NAME" "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
# PostgreSQL refuses to run as root; run it as Debian's postgres user then.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
T0=$(now_ms)
PHASE_T=$T0
phase() { local t; t=$(now_ms); log "$1: $((t - PHASE_T)) ms"; PHASE_T=$t; }

install_packages() {
  local missing=() p
  for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  fi
}

# venv_install VENV PYTHON REQUIREMENT...: the venv VENV (made with PYTHON
# when it is not there) with the requirements installed by its pip.
venv_install() {
  local venv=$1 py=$2
  shift 2
  mkdir -p "$CACHE"
  if [ ! -x "$venv/bin/python" ]; then
    "$py" -m venv "$venv" >"$D/log/pip.log" 2>&1 || { tail -20 "$D/log/pip.log" >&2; return 1; }
  fi
  "$venv/bin/pip" install -q --disable-pip-version-check "$@" >>"$D/log/pip.log" 2>&1 ||
    { tail -20 "$D/log/pip.log" >&2; return 1; }
}

pg_running() { [ -f "$PGDATA/postmaster.pid" ] && as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; }

start_pg() {
  if [ ! -f "$PGDATA/PG_VERSION" ]; then
    mkdir -p "$PGDATA"
    if [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$D"; then
      log "the postgres user cannot enter $D; make it and its parents world-searchable (chmod o+x)"
      return 1
    fi
    chmod 700 "$PGDATA"
    [ "$(id -u)" = 0 ] && chown postgres: "$PGDATA"
    # trust on loopback only: a throwaway test database.
    as_pg "$PG_BIN/initdb" -D "$PGDATA" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$D/log/initdb.log"
  fi
  mkdir -p "$D/pgrun"
  [ "$(id -u)" = 0 ] && chown postgres: "$D/pgrun" "$D/log"
  # Durability off: a test database that is restored from a dump anyway.
  pg_running || as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$D/log/postgres.log" -w -o \
    "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $D/pgrun -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" start >/dev/null
}

psql_() { as_pg "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 -q "$@"; }

start_redis() {
  mkdir -p "$D/redis"
  if [ -f "$D/redis.pid" ] && kill -0 "$(cat "$D/redis.pid")" 2>/dev/null; then
    redis-cli -p "$REDIS_PORT" flushall >/dev/null
    return
  fi
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --daemonize yes --pidfile "$D/redis.pid" \
    --dir "$D/redis" --save '' --appendonly no --logfile "$D/log/redis.log" >/dev/null
  for _ in $(seq 1 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return; sleep 0.1; done
  log "redis did not start; see $D/log/redis.log"
  return 1
}

create_db() {
  psql_ -c "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)" -c "CREATE DATABASE $DB_NAME"
}

dump_db() {
  as_pg "$PG_BIN/pg_dump" -h 127.0.0.1 -p "$PG_PORT" -U postgres -Fc -f "$D/pgrun/dump" "$DB_NAME"
  mv "$D/pgrun/dump" "$1"
}

restore_db() {
  as_pg "$PG_BIN/pg_restore" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d "$DB_NAME" --no-owner -j 2 "$1"
}

stop_pg_redis() {
  if [ -f "$D/redis.pid" ]; then kill "$(cat "$D/redis.pid")" 2>/dev/null || true; rm -f "$D/redis.pid"; fi
  if [ -n "$PG_BIN" ] && pg_running; then as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null; fi
}

# pidfile_running PIDFILE: the process it names is alive.
pidfile_running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# stall_workers PIDFILE SECONDS: stop the worker processes of the server
# whose master PIDFILE names (SIGSTOP), and let them go on after SECONDS
# (SIGCONT), in the background; returns once they are stopped. A request a
# worker holds, or one waiting in the listen queue, is then still being
# processed after a client that gave up on it: the server-side half of a
# lost answer. The master keeps running, as when one worker hangs.
stall_workers() {
  pidfile_running "$1" || { log "not running"; return 1; }
  local workers; workers=$(pgrep -P "$(cat "$1")" | tr '\n' ' ')
  [ -n "$workers" ] || { log "no workers under $(cat "$1")"; return 1; }
  # shellcheck disable=SC2086 # one pid a word
  kill -STOP $workers
  # shellcheck disable=SC2086
  setsid nohup sh -c "sleep $2; kill -CONT $workers" >/dev/null 2>&1 </dev/null &
  log "workers $workers stalled for $2 s"
}

# stop_pidfile PIDFILE SIGNAL: signal the process, wait up to 15 s, then kill it.
stop_pidfile() {
  if pidfile_running "$1"; then
    local pid; pid=$(cat "$1")
    kill "-$2" "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
}

# wait_ready URL AUTH: poll the API until it answers 200, for up to 2 minutes.
wait_ready() {
  for _ in $(seq 1 240); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: $2" "$1")" = 200 ] && return 0
    sleep 0.5
  done
  return 1
}

# clean_db SEEDED MIGRATED MIGRATE SEED: give the server the clean database:
# restore the seeded dump, or else the migrated dump (or run the command
# MIGRATE and dump its result) seeded by the command SEED, dumped in turn.
# The seeded dump is named by a hash of the seed, so a changed seed costs a
# re-seed (seconds), not a re-migration (minutes).
clean_db() {
  create_db
  if [ -f "$1" ]; then
    restore_db "$1"
    phase "restore the clean database"
    return
  fi
  if [ -f "$2" ]; then
    restore_db "$2"
    phase "restore the migrated database"
  else
    "$3"
    phase "migrate"
    dump_db "$2"
  fi
  "$4"
  phase "superuser, token, seed"
  dump_db "$1"
  phase "dump the clean database"
}
