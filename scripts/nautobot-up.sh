#!/usr/bin/env bash
# A real Nautobot on loopback for ipsync's integration tests and benchmarks:
# Nautobot and nautobot-bgp-models from PyPI in a venv, PostgreSQL and Redis
# from Debian's packages, each a private instance under the state dir (no
# systemd, nothing shared with another Nautobot this script runs).
#
#   scripts/nautobot-up.sh start   install what is missing, start, wait, print the URL
#   scripts/nautobot-up.sh stop    stop Nautobot, PostgreSQL and Redis of this state dir
#   scripts/nautobot-up.sh url     print the URL of the running server
#   scripts/nautobot-up.sh token   print its API token (40 characters)
#
# Env:
#   NAUTOBOT_VERSION   3.2.7 (default; the 3.x line) or a 2.4.x (the LTM line)
#   NAUTOBOT_BGP_VERSION  nautobot-bgp-models version (default: matching the line)
#   NAUTOBOT_PORT      port on 127.0.0.1 (default 8080); PostgreSQL listens on
#                      PORT+10000 and Redis on PORT+11000
#   NAUTOBOT_DIR       state dir of this server: database, Redis, config, logs
#                      (default ${TMPDIR:-/tmp}/ipsync-nautobot-$NAUTOBOT_PORT)
#   NAUTOBOT_CACHE     where the venv, the clean dump and its token of each version
#                      are kept (default NAUTOBOT_DIR); servers on other ports
#                      given the same cache start warm
#   NAUTOBOT_WORKERS   uWSGI worker processes (default 3)
#   NAUTOBOT_PYTHON    interpreter for the venv (default: the first of
#                      python3.12, python3.11, python3.10 on PATH)
#
# The first start of a version creates its venv and migrates a new database,
# then keeps a dump of it (migrated, with the superuser, token and seed data);
# every later start restores that dump, so each start begins with the same
# clean database. Phase times go to stderr; the URL to stdout.
set -euo pipefail

VERSION=${NAUTOBOT_VERSION:-3.2.7}
case "$VERSION" in
3.*) BGP_DEFAULT=3.2.0 ;;
2.4.*) BGP_DEFAULT=2.4.1 ;;
*) echo "nautobot-up: unsupported NAUTOBOT_VERSION $VERSION (3.x or 2.4.x)" >&2; exit 2 ;;
esac
BGP_VERSION=${NAUTOBOT_BGP_VERSION:-$BGP_DEFAULT}
PORT=${NAUTOBOT_PORT:-8080}
PG_PORT=$((PORT + 10000))
REDIS_PORT=$((PORT + 11000))
D=${NAUTOBOT_DIR:-${TMPDIR:-/tmp}/ipsync-nautobot-$PORT}
WORKERS=${NAUTOBOT_WORKERS:-3}
CACHE=${NAUTOBOT_CACHE:-$D}
VENV=$CACHE/venv-$VERSION
DUMP=$CACHE/clean-$VERSION.pgdump
# The token is in the dump, so it is kept beside it.
TOKEN=$CACHE/token-$VERSION
PGDATA=$D/pg
URL=http://127.0.0.1:$PORT
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
PACKAGES="postgresql redis-server curl"

log() { printf 'nautobot-up: %s\n' "$*" >&2; }
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

pick_python() {
  if [ -n "${NAUTOBOT_PYTHON:-}" ]; then echo "$NAUTOBOT_PYTHON"; return; fi
  local p
  for p in python3.12 python3.11 python3.10; do
    if command -v "$p" >/dev/null && "$p" -c 'import venv, ensurepip' 2>/dev/null; then echo "$p"; return; fi
  done
  echo "nautobot-up: no python3.10-3.12 with venv found; set NAUTOBOT_PYTHON" >&2
  return 1
}

make_venv() {
  mkdir -p "$CACHE"
  [ -x "$VENV/bin/nautobot-server" ] && return 0
  local py; py=$(pick_python)
  rm -rf "$VENV"
  "$py" -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check "nautobot==$VERSION" "nautobot-bgp-models==$BGP_VERSION" >"$D/log/pip.log" 2>&1 ||
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

nautobot_env() {
  export NAUTOBOT_CONFIG=$D/nautobot_config.py NAUTOBOT_ROOT=$D/root
  export NAUTOBOT_DB_HOST=127.0.0.1 NAUTOBOT_DB_PORT=$PG_PORT NAUTOBOT_DB_NAME=nautobot NAUTOBOT_DB_USER=postgres NAUTOBOT_DB_PASSWORD=
  export NAUTOBOT_REDIS_HOST=127.0.0.1 NAUTOBOT_REDIS_PORT=$REDIS_PORT
  export NAUTOBOT_ALLOWED_HOSTS="127.0.0.1 localhost"
  export NAUTOBOT_SECRET_KEY=$(cat "$D/secret")
  export NAUTOBOT_INSTALLATION_METRICS_ENABLED=false NAUTOBOT_LOG_LEVEL=WARNING
}

write_config() {
  mkdir -p "$D/root"
  [ -f "$D/secret" ] || head -c 48 /dev/urandom | base64 | tr -d '/+=\n' | head -c 50 >"$D/secret"
  [ -f "$DUMP" ] && [ -f "$TOKEN" ] || head -c 40 /dev/urandom | od -An -tx1 | tr -d ' \n' | head -c 40 >"$TOKEN"
  nautobot_env
  if [ ! -f "$D/nautobot_config.py" ] || ! grep -q "nautobot_bgp_models" "$D/nautobot_config.py"; then
    "$VENV/bin/nautobot-server" init "$D/nautobot_config.py" </dev/null >"$D/log/init.log" 2>&1 ||
      { cat "$D/log/init.log" >&2; return 1; }
    cat >>"$D/nautobot_config.py" <<'EOF'

# ipsync test server: the BGP app serves ASNs at /api/plugins/bgp/.
PLUGINS = ["nautobot_bgp_models"]
EOF
  fi
  cat >"$D/uwsgi.ini" <<EOF
[uwsgi]
http = 127.0.0.1:$PORT
master = true
enable-threads = true
processes = $WORKERS
die-on-term = true
vacuum = true
buffer-size = 65535
post-buffering = 65536
http-keepalive = 1
# A bulk write of hundreds of IP addresses can take minutes on a small
# machine (change logging serializes every object); the router's default
# 60 s would cut it off mid-write.
http-timeout = 900
socket-timeout = 900
http-auto-chunked = true
add-header = Connection: Keep-Alive
pidfile = $D/uwsgi.pid
logto = $D/log/uwsgi.log
disable-logging = true
EOF
}

# seed creates what ipsync's tests and examples refer to and Nautobot owns:
# a location type allowing the IPAM content types, locations, roles,
# tenants and tags. Statuses stay as Nautobot ships them.
seed() {
  "$VENV/bin/nautobot-server" shell --interface python >"$D/log/seed.log" 2>&1 <<EOF
from django.contrib.contenttypes.models import ContentType
from nautobot.users.models import Token, User
from nautobot.dcim.models import Location, LocationType
from nautobot.extras.models import Role, Status, Tag
from nautobot.tenancy.models import Tenant

u = User.objects.create_superuser("admin", "admin@example.net", "$(cat "$D/secret" | head -c 20)")
Token.objects.create(user=u, key="$(cat "$TOKEN")")
ipam = [ContentType.objects.get_by_natural_key("ipam", m) for m in ("namespace", "vlangroup", "vlan", "prefix", "ipaddress")]
lt = LocationType.objects.create(name="Site", nestable=True)
lt.content_types.set(ipam + [ContentType.objects.get_by_natural_key("dcim", "device")])
active = Status.objects.get(name="Active")
for name in ("DC-A11", "DC-B22", "a11", "a12"):
    Location.objects.create(name=name, location_type=lt, status=active)
for name in ("provisioning", "storage", "oob", "loopback", "tenant-net"):
    Role.objects.create(name=name).content_types.set(ipam)
for name in ("platform", "netops", "acme"):
    Tenant.objects.create(name=name)
for name in ("routed", "pxe", "blue", "red"):
    Tag.objects.create(name=name).content_types.set(ipam)
print("seeded")
EOF
  grep -q '^seeded' "$D/log/seed.log" || { cat "$D/log/seed.log" >&2; return 1; }
}

create_db() {
  psql_ -c "DROP DATABASE IF EXISTS nautobot WITH (FORCE)" -c "CREATE DATABASE nautobot"
}

running() { [ -f "$D/uwsgi.pid" ] && kill -0 "$(cat "$D/uwsgi.pid")" 2>/dev/null; }

stop_nautobot() {
  if running; then
    local pid; pid=$(cat "$D/uwsgi.pid")
    kill -INT "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$D/uwsgi.pid"
}

stop() {
  stop_nautobot
  if [ -f "$D/redis.pid" ]; then kill "$(cat "$D/redis.pid")" 2>/dev/null || true; rm -f "$D/redis.pid"; fi
  if [ -n "$PG_BIN" ] && pg_running; then as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null; fi
  log "stopped ($D)"
}

start() {
  install_packages
  mkdir -p "$D/log"
  phase "packages"
  stop_nautobot
  make_venv
  phase "venv (nautobot $VERSION, nautobot-bgp-models $BGP_VERSION)"
  start_pg
  start_redis
  phase "postgresql and redis"
  write_config
  create_db
  if [ -f "$DUMP" ] && [ -f "$TOKEN" ]; then
    as_pg "$PG_BIN/pg_restore" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d nautobot --no-owner -j 2 "$DUMP"
    phase "restore the clean database"
  else
    "$VENV/bin/nautobot-server" migrate --no-input >"$D/log/migrate.log" 2>&1 || { tail -30 "$D/log/migrate.log" >&2; return 1; }
    phase "migrate"
    seed
    phase "superuser, token, seed"
    as_pg "$PG_BIN/pg_dump" -h 127.0.0.1 -p "$PG_PORT" -U postgres -Fc -f "$D/pgrun/dump" nautobot
    mv "$D/pgrun/dump" "$DUMP"
    phase "dump the clean database"
  fi
  # setsid: the server outlives the shell that started it.
  setsid nohup "$VENV/bin/nautobot-server" start --ini "$D/uwsgi.ini" >"$D/log/nautobot.out" 2>&1 </dev/null &
  local tok; tok=$(cat "$TOKEN")
  for _ in $(seq 1 240); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Token $tok" "$URL/api/status/")" = 200 ]; then
      phase "serve ($WORKERS uWSGI workers)"
      log "nautobot $VERSION ready after $(($(now_ms) - T0)) ms, state in $D"
      echo "$URL"
      return 0
    fi
    sleep 0.5
  done
  log "nautobot failed to start; see $D/log/"
  tail -30 "$D/log/nautobot.out" "$D/log/uwsgi.log" >&2 2>/dev/null || true
  return 1
}

case "${1:-}" in
start) start ;;
stop) stop ;;
url) if running; then echo "$URL"; else log "not running ($D)"; exit 1; fi ;;
token) cat "$TOKEN" ;;
*)
  echo "usage: $0 start|stop|url|token" >&2
  exit 2
  ;;
esac
