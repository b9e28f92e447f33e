#!/usr/bin/env bash
# A real NetBox on loopback for ipsync's integration tests and benchmarks:
# NetBox from PyPI in a venv, PostgreSQL and Redis from Debian's packages,
# each a private instance under the state dir (no systemd, nothing shared
# with another server these scripts run).
#
#   scripts/netbox-up.sh start   install what is missing, start, wait, print the URL
#   scripts/netbox-up.sh stop    stop NetBox, PostgreSQL and Redis of this state dir
#   scripts/netbox-up.sh url     print the URL of the running server
#   scripts/netbox-up.sh token   print its v2 API token (nbt_<key>.<secret>; send it as "Bearer <token>")
#   scripts/netbox-up.sh token reviewer
#                                with NETBOX_REVIEW_PLUGINS=1: the token of the
#                                second user, the one the review policy names
#   scripts/netbox-up.sh stall S stop its gunicorn workers for S seconds (SIGSTOP, then SIGCONT in the background)
#
# Env:
#   NETBOX_VERSION   4.7.3 (default; the 4.7 line)
#   NETBOX_PORT      port on 127.0.0.1 (default 8000); PostgreSQL listens on
#                    PORT+10000 and Redis on PORT+11000
#   NETBOX_DIR       state dir of this server: database, Redis, config, logs
#                    (default ${TMPDIR:-/tmp}/ipsync-netbox-$NETBOX_PORT)
#   NETBOX_CACHE     where the venv, the dumps and the token of each version are
#                    kept (default NETBOX_DIR); servers on other ports given the
#                    same cache start warm
#   NETBOX_WORKERS   gunicorn worker processes (default 3)
#   NETBOX_TIME_ZONE its TIME_ZONE (default UTC): the zone of the timestamps
#                    its JSON carries, which its ETags do not
#   NETBOX_PYTHON    interpreter for the venv (default: the first Python 3.12+
#                    found on PATH or under ~/.pyenv/versions)
#   NETBOX_REVIEW_PLUGINS
#                    1: also enable netbox-branching and netbox-change-control
#                    (versions below), run their migrations and a background
#                    worker (branch provisioning, sync and merge are background
#                    jobs), and seed a second superuser "reviewer" with its own
#                    token and a policy "ipsync review" that applies to every
#                    branch and needs one approval by "reviewer" (the admin
#                    cannot approve its own change request). Its dumps and
#                    tokens carry the suffix -review in NETBOX_CACHE, beside
#                    the plain ones. Its database starts from the plain
#                    migrated one when that dump is in the cache, with only
#                    the plugins' migrations to run: minutes less than
#                    migrating NetBox again.
#                    Default 0: the plugins installed, not enabled; no worker.
#
# NetBox serves with gunicorn, as its own deployment guide does, rather than
# runserver: several workers answer concurrent bulk writes the way a
# production NetBox does, and runserver's autoreloader is not wanted here.
#
# The first start of a version creates its venv and migrates a new database,
# then keeps a dump of it (migrated, and seeded with the superuser, token and
# what the tests refer to); every later start restores the seeded dump, so
# each start begins with the same clean database. Phase times go to stderr;
# the URL to stdout.
set -euo pipefail

VERSION=${NETBOX_VERSION:-4.7.3}
case "$VERSION" in
4.7.*) ;;
*) echo "netbox-up: unsupported NETBOX_VERSION $VERSION (4.7.x)" >&2; exit 2 ;;
esac
PORT=${NETBOX_PORT:-8000}
PG_PORT=$((PORT + 10000))
REDIS_PORT=$((PORT + 11000))
D=${NETBOX_DIR:-${TMPDIR:-/tmp}/ipsync-netbox-$PORT}
WORKERS=${NETBOX_WORKERS:-3}
TIME_ZONE=${NETBOX_TIME_ZONE:-UTC}
CACHE=${NETBOX_CACHE:-$D}
REVIEW=${NETBOX_REVIEW_PLUGINS:-0}
case "$REVIEW" in
0) SUFFIX= ;;
1) SUFFIX=-review ;;
*) echo "netbox-up: NETBOX_REVIEW_PLUGINS is 0 or 1, not $REVIEW" >&2; exit 2 ;;
esac
# The plugins of NETBOX_REVIEW_PLUGINS=1, pinned: both follow NetBox's minor
# versions closely (these two are the 4.7 line).
REVIEW_PACKAGES="netboxlabs-netbox-branching==1.2.2 netbox-change-control==0.6.0"
VENV=$CACHE/venv-$VERSION
PLAIN_MIGRATED=$CACHE/migrated-$VERSION.pgdump
MIGRATED=$CACHE/migrated-$VERSION$SUFFIX.pgdump
# The token (and the pepper that hashes it) are in the seeded dump, so they
# are kept beside it.
TOKEN=$CACHE/token-$VERSION$SUFFIX
PEPPER=$CACHE/pepper-$VERSION$SUFFIX
REVIEWER_TOKEN=$CACHE/token-reviewer-$VERSION$SUFFIX
URL=http://127.0.0.1:$PORT
LOG_NAME=netbox-up
DB_NAME=netbox
PACKAGES="postgresql redis-server curl"
# shellcheck source=scripts/lib/loopback-db.sh
. "$(dirname "$0")/lib/loopback-db.sh"

pick_python() {
  if [ -n "${NETBOX_PYTHON:-}" ]; then echo "$NETBOX_PYTHON"; return; fi
  local p
  for p in python3.13 python3.12 "$HOME"/.pyenv/versions/3.13*/bin/python3.13 "$HOME"/.pyenv/versions/3.12*/bin/python3.12; do
    if command -v "$p" >/dev/null && "$p" -c 'import venv, ensurepip, ssl' 2>/dev/null; then echo "$p"; return; fi
  done
  echo "netbox-up: NetBox needs Python 3.12 or newer with venv and ssl; none found on PATH or under ~/.pyenv; set NETBOX_PYTHON" >&2
  return 1
}

# make_venv: NetBox and the review plugins in one venv. The plugins have no
# requirements of their own and do nothing unless PLUGINS lists them, so the
# plain server runs the same packages as it would without them, and a
# second server of the version needs no second install.
make_venv() {
  mkdir -p "$CACHE"
  if [ -x "$VENV/bin/netbox" ] && "$VENV/bin/python" -c 'import netbox_branching, netbox_change_control' 2>/dev/null; then
    return 0
  fi
  local py; py=$(pick_python)
  [ -x "$VENV/bin/netbox" ] || rm -rf "$VENV"
  # shellcheck disable=SC2086 # one requirement a word
  venv_install "$VENV" "$py" "netbox==$VERSION" $REVIEW_PACKAGES
}

random_text() { head -c 96 /dev/urandom | base64 | tr -d '/+=\n' | head -c "$1"; }

write_config() {
  mkdir -p "$D/conf" "$D/media"
  [ -f "$D/secret" ] || random_text 60 >"$D/secret"
  [ -f "$PEPPER" ] || random_text 60 >"$PEPPER"
  [ -f "$TOKEN" ] || printf 'nbt_%s.%s' "$(random_text 12)" "$(random_text 40)" >"$TOKEN"
  cat >"$D/conf/configuration.py" <<EOF
# ipsync test server: loopback only, throwaway database.
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "NAME": "$DB_NAME", "USER": "postgres",
                         "PASSWORD": "", "HOST": "127.0.0.1", "PORT": "$PG_PORT", "CONN_MAX_AGE": 300}}
REDIS = {
    "tasks": {"HOST": "127.0.0.1", "PORT": $REDIS_PORT, "USERNAME": "", "PASSWORD": "", "DATABASE": 0, "SSL": False},
    "caching": {"HOST": "127.0.0.1", "PORT": $REDIS_PORT, "USERNAME": "", "PASSWORD": "", "DATABASE": 1, "SSL": False},
}
SECRET_KEY = "$(cat "$D/secret")"
API_TOKEN_PEPPERS = {1: "$(cat "$PEPPER")"}
MEDIA_ROOT = "$D/media"
CENSUS_REPORTING_ENABLED = False
ISOLATED_DEPLOYMENT = True
LOGIN_REQUIRED = True
TIME_ZONE = "$TIME_ZONE"
EOF
  [ "$REVIEW" = 1 ] && write_review_config
  export NETBOX_ROOT=$D
}

# write_review_config appends what the two plugins' install guides ask for:
# netbox-branching routes each request to its branch's schema, so DATABASES
# is its DynamicSchemaDict and its router is installed; netbox-change-control
# is listed before netbox-branching (which must come last), and its own
# models are exempt from branching, or a change request opened while a
# branch is active would be written into that branch. Change control's
# defaults stand: a merge needs an approved change request (enforce_merge_gate);
# how many approvals, and which checks, the policies in the database say.
write_review_config() {
  [ -f "$REVIEWER_TOKEN" ] || printf 'nbt_%s.%s' "$(random_text 12)" "$(random_text 40)" >"$REVIEWER_TOKEN"
  cat >>"$D/conf/configuration.py" <<'EOF'

# Reviewed changes: netbox-branching and netbox-change-control.
from netbox_branching.utilities import DynamicSchemaDict

DATABASES = DynamicSchemaDict(DATABASES)
DATABASE_ROUTERS = ["netbox_branching.database.BranchAwareRouter"]
PLUGINS = ["netbox_change_control", "netbox_branching"]
PLUGINS_CONFIG = {
    "netbox_branching": {"exempt_models": ["netbox_change_control.*"]},
    "netbox_change_control": {},
}
EOF
}

# seed_script creates what ipsync's tests refer to and NetBox owns,
# idempotently: a superuser and its v2 token, sites, roles, tenants, tags
# and an RIR for ASNs.
seed_script() {
  cat <<'EOF'
import os
from django.utils.text import slugify
from users.models import Token, User
from dcim.models import Site
from ipam.models import RIR, Role
from tenancy.models import Tenant
from extras.models import Tag

u = User.objects.filter(username="admin").first() or User.objects.create_superuser("admin", "admin@example.net", os.environ["SEED_PASSWORD"])
key, secret = os.environ["SEED_TOKEN"].removeprefix("nbt_").split(".", 1)
Token.objects.filter(user=u).exclude(key=key).delete()
if not Token.objects.filter(user=u, key=key).exists():
    Token(user=u, version=2, key=key, token=secret, write_enabled=True).save()
for name in ("DC-A11", "DC-B22", "a11", "a12"):
    Site.objects.get_or_create(name=name, defaults={"slug": slugify(name)})
for name in ("provisioning", "storage", "oob", "loopback", "tenant-net"):
    Role.objects.get_or_create(name=name, defaults={"slug": slugify(name)})
for name in ("platform", "netops", "acme"):
    Tenant.objects.get_or_create(name=name, defaults={"slug": slugify(name)})
for name in ("routed", "pxe", "blue", "red"):
    Tag.objects.get_or_create(name=name, defaults={"slug": slugify(name)})
RIR.objects.get_or_create(name="private", defaults={"slug": "private", "is_private": True})
EOF
  [ "$REVIEW" = 1 ] && review_seed_script
  echo 'print("seeded")'
}

# review_seed_script: the reviewer (a superuser, so that permissions are not
# what a test meets first) with its token, and the policy every branch gets:
# one approval by the reviewer, no required checks (a test PATCHes "checks"
# onto the policy to require one).
review_seed_script() {
  cat <<'EOF'
from netbox_change_control.models import Policy, PolicyRule

r = User.objects.filter(username="reviewer").first() or User.objects.create_superuser("reviewer", "reviewer@example.net", os.environ["SEED_PASSWORD"])
key, secret = os.environ["SEED_REVIEWER_TOKEN"].removeprefix("nbt_").split(".", 1)
Token.objects.filter(user=r).exclude(key=key).delete()
if not Token.objects.filter(user=r, key=key).exists():
    Token(user=r, version=2, key=key, token=secret, write_enabled=True).save()
policy, _ = Policy.objects.get_or_create(name="ipsync review", defaults={"description": "every branch: one approval by reviewer"})
rule, _ = PolicyRule.objects.get_or_create(policy=policy, name="reviewer approves", defaults={"min_reviews": 1})
rule.users.add(r)
EOF
}

# migrate: with the plugins, from the plain migrated database when there is
# one: only the plugins' migrations are left to run.
migrate() {
  if [ "$REVIEW" = 1 ] && [ -f "$PLAIN_MIGRATED" ]; then
    restore_db "$PLAIN_MIGRATED"
    phase "restore the plain migrated database"
  fi
  "$VENV/bin/netbox" upgrade --no-input --skip-static >"$D/log/upgrade.log" 2>&1 || { tail -30 "$D/log/upgrade.log" >&2; return 1; }
}

seed() {
  SEED_TOKEN=$(cat "$TOKEN") SEED_REVIEWER_TOKEN=$(cat "$REVIEWER_TOKEN" 2>/dev/null || true) SEED_PASSWORD=$(head -c 20 "$D/secret") \
    "$VENV/bin/netbox" nbshell -c "$(seed_script)" >"$D/log/seed.log" 2>&1
  grep -q '^seeded' "$D/log/seed.log" || { cat "$D/log/seed.log" >&2; return 1; }
}

# start_worker: the RQ worker that runs NetBox's background jobs (with the
# review plugins: branch provisioning, sync, merge, revert), on all of
# NetBox's queues.
start_worker() {
  NETBOX_ROOT=$D setsid nohup "$VENV/bin/netbox" rqworker >"$D/log/rqworker.log" 2>&1 </dev/null &
  echo $! >"$D/rqworker.pid"
}

# wait_worker: NetBox's status counts the workers that have registered in Redis.
wait_worker() {
  for _ in $(seq 1 240); do
    curl -s -H "Authorization: Bearer $(cat "$TOKEN")" "$URL/api/status/" | grep -q '"rq-workers-running": *[1-9]' && return 0
    pidfile_running "$D/rqworker.pid" || break
    sleep 0.5
  done
  log "the worker did not start; see $D/log/rqworker.log"
  tail -20 "$D/log/rqworker.log" >&2 || true
  return 1
}

stop() {
  stop_pidfile "$D/rqworker.pid" TERM
  stop_pidfile "$D/gunicorn.pid" TERM
  stop_pg_redis
  log "stopped ($D)"
}

start() {
  install_packages
  mkdir -p "$D/log"
  phase "packages"
  stop_pidfile "$D/rqworker.pid" TERM
  stop_pidfile "$D/gunicorn.pid" TERM
  make_venv
  phase "venv (netbox $VERSION and $REVIEW_PACKAGES)"
  start_pg
  start_redis
  phase "postgresql and redis"
  write_config
  clean_db "$CACHE/clean-$VERSION$SUFFIX-$(seed_script | sha1sum | head -c 8).pgdump" "$MIGRATED" migrate seed
  # setsid: the server outlives the shell that started it. A bulk write of
  # hundreds of objects can take minutes on a small machine: no worker
  # timeout cuts it off. --preload loads Django once, before the workers fork.
  NETBOX_ROOT=$D setsid nohup "$VENV/bin/gunicorn" --bind "127.0.0.1:$PORT" --workers "$WORKERS" --timeout 900 --preload \
    --keep-alive 30 --pid "$D/gunicorn.pid" --error-logfile "$D/log/gunicorn.log" netbox.wsgi \
    >"$D/log/netbox.out" 2>&1 </dev/null &
  [ "$REVIEW" = 1 ] && start_worker
  if wait_ready "$URL/api/status/" "Bearer $(cat "$TOKEN")"; then
    phase "serve ($WORKERS gunicorn workers)"
    if [ "$REVIEW" = 1 ]; then
      wait_worker || return 1
      phase "background worker"
    fi
    log "netbox $VERSION ready after $(($(now_ms) - T0)) ms, state in $D"
    echo "$URL"
    return 0
  fi
  log "netbox failed to start; see $D/log/"
  tail -30 "$D/log/netbox.out" "$D/log/gunicorn.log" >&2 2>/dev/null || true
  return 1
}

case "${1:-}" in
start) start ;;
stop) stop ;;
url) if pidfile_running "$D/gunicorn.pid"; then echo "$URL"; else log "not running ($D)"; exit 1; fi ;;
token)
  case "${2:-}" in
  "") cat "$TOKEN" ;;
  reviewer)
    [ "$REVIEW" = 1 ] || { echo "netbox-up: the reviewer exists with NETBOX_REVIEW_PLUGINS=1 only" >&2; exit 2; }
    cat "$REVIEWER_TOKEN"
    ;;
  *) echo "usage: $0 token [reviewer]" >&2; exit 2 ;;
  esac
  ;;
stall)
  [ $# -eq 2 ] || { echo "usage: $0 stall SECONDS" >&2; exit 2; }
  stall_workers "$D/gunicorn.pid" "$2"
  ;;
*)
  echo "usage: $0 start|stop|url|token [reviewer]|stall SECONDS" >&2
  exit 2
  ;;
esac
