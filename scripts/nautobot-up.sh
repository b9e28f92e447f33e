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
#   scripts/nautobot-up.sh stall S stop its uWSGI workers for S seconds (SIGSTOP, then SIGCONT in the background)
#   scripts/nautobot-up.sh shell   run the Python on stdin in its nautobot-server shell
#                                  (shell --command CODE: run CODE, which may read stdin)
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
# Two dumps per version: the migrated database, and that database seeded.
# The seeded one is named by a hash of the seed, so a changed seed costs a
# re-seed (seconds), not a re-migration (minutes).
MIGRATED=$CACHE/migrated-$VERSION.pgdump
# The token is in the seeded dump, so it is kept beside it.
TOKEN=$CACHE/token-$VERSION
URL=http://127.0.0.1:$PORT
LOG_NAME=nautobot-up
DB_NAME=nautobot
PACKAGES="postgresql redis-server curl"
# shellcheck source=scripts/lib/loopback-db.sh
. "$(dirname "$0")/lib/loopback-db.sh"

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
  venv_install "$VENV" "$py" "nautobot==$VERSION" "nautobot-bgp-models==$BGP_VERSION"
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
  [ -f "$TOKEN" ] || head -c 40 /dev/urandom | od -An -tx1 | tr -d ' \n' | head -c 40 >"$TOKEN"
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

# seed_script creates what ipsync's tests and examples refer to and
# Nautobot owns, idempotently: a superuser and its token, a location type
# allowing the IPAM content types, locations, roles, tenants, and tags
# allowed on the IPAM kinds and the BGP app's ASNs. Statuses stay as
# Nautobot ships them.
seed_script() {
  cat <<'EOF'
import os
from django.contrib.contenttypes.models import ContentType
from nautobot.users.models import Token, User
from nautobot.dcim.models import Location, LocationType
from nautobot.extras.models import Role, Status, Tag
from nautobot.tenancy.models import Tenant

u = User.objects.filter(username="admin").first() or User.objects.create_superuser("admin", "admin@example.net", os.environ["SEED_PASSWORD"])
Token.objects.filter(user=u).exclude(key=os.environ["SEED_TOKEN"]).delete()
Token.objects.get_or_create(user=u, key=os.environ["SEED_TOKEN"])
ct = ContentType.objects.get_by_natural_key
ipam = [ct("ipam", m) for m in ("namespace", "vlangroup", "vlan", "prefix", "ipaddress")]
lt, _ = LocationType.objects.get_or_create(name="Site", defaults={"nestable": True})
lt.content_types.set(ipam + [ct("dcim", "device")])
active = Status.objects.get(name="Active")
for name in ("DC-A11", "DC-B22", "a11", "a12"):
    Location.objects.get_or_create(name=name, location_type=lt, defaults={"status": active})
for name in ("provisioning", "storage", "oob", "loopback", "tenant-net"):
    Role.objects.get_or_create(name=name)[0].content_types.set(ipam)
for name in ("platform", "netops", "acme"):
    Tenant.objects.get_or_create(name=name)
for name in ("routed", "pxe", "blue", "red"):
    Tag.objects.get_or_create(name=name)[0].content_types.set(ipam + [ct("nautobot_bgp_models", "autonomoussystem")])
print("seeded")
EOF
}

migrate() {
  "$VENV/bin/nautobot-server" migrate --no-input >"$D/log/migrate.log" 2>&1 || { tail -30 "$D/log/migrate.log" >&2; return 1; }
}

seed() {
  seed_script | SEED_TOKEN=$(cat "$TOKEN") SEED_PASSWORD=$(head -c 20 "$D/secret") \
    "$VENV/bin/nautobot-server" shell --interface python >"$D/log/seed.log" 2>&1
  grep -q '^seeded' "$D/log/seed.log" || { cat "$D/log/seed.log" >&2; return 1; }
}

# uWSGI's master stops its workers gracefully on SIGINT.
stop_nautobot() { stop_pidfile "$D/uwsgi.pid" INT; }

stop() {
  stop_nautobot
  stop_pg_redis
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
  clean_db "$CACHE/clean-$VERSION-$(seed_script | sha1sum | head -c 8).pgdump" "$MIGRATED" migrate seed
  # setsid: the server outlives the shell that started it.
  setsid nohup "$VENV/bin/nautobot-server" start --ini "$D/uwsgi.ini" >"$D/log/nautobot.out" 2>&1 </dev/null &
  if wait_ready "$URL/api/status/" "Token $(cat "$TOKEN")"; then
    phase "serve ($WORKERS uWSGI workers)"
    log "nautobot $VERSION ready after $(($(now_ms) - T0)) ms, state in $D"
    echo "$URL"
    return 0
  fi
  log "nautobot failed to start; see $D/log/"
  tail -30 "$D/log/nautobot.out" "$D/log/uwsgi.log" >&2 2>/dev/null || true
  return 1
}

case "${1:-}" in
start) start ;;
stop) stop ;;
url) if pidfile_running "$D/uwsgi.pid"; then echo "$URL"; else log "not running ($D)"; exit 1; fi ;;
token) cat "$TOKEN" ;;
stall)
  [ $# -eq 2 ] || { echo "usage: $0 stall SECONDS" >&2; exit 2; }
  stall_workers "$D/uwsgi.pid" "$2"
  ;;
shell)
  # Runs the Python on stdin in the instance's nautobot-server shell, for
  # loading benchmark data straight into the database; further arguments
  # go to the shell (--command CODE runs CODE, leaving stdin to it).
  shift
  nautobot_env
  exec "$VENV/bin/nautobot-server" shell --interface python "$@"
  ;;
*)
  echo "usage: $0 start|stop|url|token|shell|stall SECONDS" >&2
  exit 2
  ;;
esac
