#!/bin/bash
# A real OpenStack Neutron on loopback for ipsync's integration tests and
# benchmarks: Debian's neutron-server with noauth, ML2 (vlan, vxlan, flat),
# routed networks (segments), network segment ranges, MariaDB (as in
# production; scripts/mariadb-up.sh) and the fake RPC transport. No
# Keystone, no agents; RabbitMQ only for notifications, when asked.
#
#   scripts/neutron-up.sh start              install packages if missing, write config, start, wait, print the URL
#   scripts/neutron-up.sh stop               stop the server this script started (by its pid file)
#   scripts/neutron-up.sh url                print the URL of the running server
#   scripts/neutron-up.sh map-host SEG HOST  map a routed-network segment to a host (agents do this in production)
#
# Env:
#   NEUTRON_PORT         port on 127.0.0.1 (default 9696)
#   NEUTRON_DIR          state dir: config, logs, pid file, SQLite database
#                        (default ${TMPDIR:-/tmp}/ipsync-neutron-$NEUTRON_PORT)
#   NEUTRON_DB           mariadb (default): database neutron_$NEUTRON_PORT in the
#                        MariaDB of scripts/mariadb-up.sh (MARIADB_DIR), started
#                        if it is not running; sqlite: a file in NEUTRON_DIR,
#                        which fails concurrent writes now and then
#   NEUTRON_VLAN_RANGES  ML2 network_vlan_ranges; physical network names are VLAN group names
#   NEUTRON_VNI_RANGES   ML2 vxlan vni_ranges (default 1:1000)
#   NEUTRON_API_WORKERS  API worker processes (default 1)
#   NEUTRON_KEEP_DB=1    keep the database of a previous start instead of starting empty
#   NEUTRON_NOTIFY_URL   rabbit://user:pass@host:port/ to publish oslo notifications to (default: none)
#   NEUTRON_FILTER_VALIDATION  true (Neutron's default) or false; false lets lists take changed_since,
#                        which Neutron's filter validation refuses as an unknown filter
#
# Each start begins with an empty database unless NEUTRON_KEEP_DB=1.
set -euo pipefail

PORT=${NEUTRON_PORT:-9696}
D=${NEUTRON_DIR:-${TMPDIR:-/tmp}/ipsync-neutron-$PORT}
VLAN_RANGES=${NEUTRON_VLAN_RANGES:-a11-12-network:150:199,a11-13-network:150:199,b22-1-network:250:298,b22-2-network:250:298}
VNI_RANGES=${NEUTRON_VNI_RANGES:-1:1000}
WORKERS=${NEUTRON_API_WORKERS:-1}
PY=/usr/bin/python3 # Debian's interpreter, whatever python3 is first on PATH
PIDFILE=$D/neutron-server.pid
URL=http://127.0.0.1:$PORT
DB=${NEUTRON_DB:-mariadb}
DBNAME=neutron_$PORT
HERE=$(cd "$(dirname "$0")" && pwd)
PACKAGES="python3-neutron python3-pymysql curl jq sqlite3"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

install_packages() {
  local missing=() p
  for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing ${missing[*]}" >&2
  # python3-neutron is the library and entry points only: no dbconfig-common
  # prompts, no systemd units, no generated /etc/neutron.
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

running() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

stop() {
  if ! running; then rm -f "$PIDFILE"; echo "neutron-server not running ($D)"; return 0; fi
  local pid; pid=$(cat "$PIDFILE")
  kill -TERM "$pid" # the parent stops its API workers
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
  rm -f "$PIDFILE"
  echo "neutron-server $pid stopped"
}

write_config() {
  mkdir -p "$D/etc" "$D/lock" "$D/log" "$D/state"
  cat >"$D/etc/neutron.conf" <<EOF
[DEFAULT]
bind_host = 127.0.0.1
bind_port = $PORT
auth_strategy = noauth
core_plugin = ml2
service_plugins = router,segments,network_segment_range
api_workers = $WORKERS
rpc_workers = 0
rpc_state_report_workers = 0
transport_url = fake:/
api_paste_config = $D/etc/api-paste.ini
filter_validation = ${NEUTRON_FILTER_VALIDATION:-true}
state_path = $D/state
notify_nova_on_port_status_changes = false
notify_nova_on_port_data_changes = false
dns_domain = site.example.
debug = false
log_file = $D/log/neutron-server.log
[database]
connection = $(db_url)
[oslo_concurrency]
lock_path = $D/lock
[quotas]
# a test server holds a whole site's worth of records
quota_network = -1
quota_subnet = -1
quota_port = -1
[ml2]
type_drivers = flat,vlan,vxlan
tenant_network_types = vlan,vxlan
mechanism_drivers =
extension_drivers = port_security,dns
[ml2_type_vlan]
network_vlan_ranges = $VLAN_RANGES
[ml2_type_flat]
flat_networks = *
[ml2_type_vxlan]
vni_ranges = $VNI_RANGES
EOF
  if [ -n "${NEUTRON_NOTIFY_URL:-}" ]; then
    # Publish oslo notifications (network.create.end, ...) to RabbitMQ, as a
    # production Neutron does; RPC stays on the fake transport.
    cat >>"$D/etc/neutron.conf" <<EOF
[oslo_messaging_notifications]
driver = messagingv2
transport_url = $NEUTRON_NOTIFY_URL
topics = notifications
EOF
  fi
  # Neutron's stock api-paste.ini, reduced to the noauth pipelines.
  cat >"$D/etc/api-paste.ini" <<EOF
[composite:neutron]
use = egg:Paste#urlmap
/: neutronversions_composite
/healthcheck: healthcheck
/v2.0: neutronapi_v2_0

[composite:neutronapi_v2_0]
use = call:neutron.auth:pipeline_factory
noauth = cors http_proxy_to_wsgi request_id fake_project_id catch_errors extensions neutronapiapp_v2_0

[composite:neutronversions_composite]
use = call:neutron.auth:pipeline_factory
noauth = cors http_proxy_to_wsgi neutronversions

[filter:request_id]
paste.filter_factory = oslo_middleware:RequestId.factory

[filter:catch_errors]
paste.filter_factory = oslo_middleware:CatchErrors.factory

[filter:cors]
paste.filter_factory = oslo_middleware.cors:filter_factory
oslo_config_project = neutron

[filter:fake_project_id]
paste.filter_factory = neutron.auth:NoauthFakeProjectId.factory

[filter:http_proxy_to_wsgi]
paste.filter_factory = oslo_middleware.http_proxy_to_wsgi:HTTPProxyToWSGI.factory

[filter:extensions]
paste.filter_factory = neutron.api.extensions:plugin_aware_extension_middleware_factory

[app:neutronversions]
paste.app_factory = neutron.pecan_wsgi.app:versions_factory

[app:neutronapiapp_v2_0]
paste.app_factory = neutron.api.v2.router:APIRouter.factory

[app:healthcheck]
paste.app_factory = oslo_middleware:Healthcheck.app_factory
backends = disable_by_file
disable_by_file_path = $D/healthcheck_disable
EOF
}

case "$DB" in
mariadb | sqlite) ;;
*) echo "NEUTRON_DB=$DB: want mariadb or sqlite" >&2; exit 2 ;;
esac

sock() { "$HERE/mariadb-up.sh" socket; }

db_url() {
  if [ "$DB" = sqlite ]; then echo "sqlite:///$D/neutron.sqlite"; return; fi
  echo "mysql+pymysql://root@localhost/$DBNAME?unix_socket=$(sock)&charset=utf8"
}

sql() { mariadb --no-defaults --socket="$(sock)" -uroot "$@"; }

db_exists() {
  if [ "$DB" = sqlite ]; then [ -f "$D/neutron.sqlite" ]; return; fi
  [ -n "$(sql -N -e "show databases like '$DBNAME'")" ]
}

create_db() {
  # The schema comes from the models (as Neutron's own unit tests do) and is
  # then stamped as current, on either database: "neutron-db-manage upgrade
  # heads" cannot ALTER constraints on SQLite.
  if [ "$DB" = sqlite ]; then
    rm -f "$D/neutron.sqlite"
  else
    sql -e "drop database if exists $DBNAME; create database $DBNAME character set utf8"
  fi
  $PY - "$(db_url)" <<'EOF'
import sys, sqlalchemy as sa
from neutron.db.migration.models import head
head.get_metadata().create_all(sa.create_engine(sys.argv[1]))
EOF
  $PY -c 'import sys; from neutron.db.migration.cli import main; sys.exit(main())' \
    --config-file "$D/etc/neutron.conf" stamp heads >"$D/log/db-stamp.log" 2>&1
}

start() {
  install_packages
  if running; then stop >/dev/null; fi
  if [ "$DB" = mariadb ]; then "$HERE/mariadb-up.sh" start >/dev/null; fi
  write_config
  if [ -z "${NEUTRON_KEEP_DB:-}" ] || ! db_exists; then create_db; fi
  local t0; t0=$(date +%s%N)
  # setsid: the server outlives the shell that started it.
  setsid nohup $PY -c 'import sys; from neutron.cmd.eventlet.server import main; sys.exit(main())' \
    --config-file "$D/etc/neutron.conf" >"$D/log/neutron-server.out" 2>&1 </dev/null &
  echo $! >"$PIDFILE"
  for _ in $(seq 1 240); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/v2.0/network-segment-ranges")" = 200 ]; then
      echo "neutron-server pid $(cat "$PIDFILE") ready after $(( ($(date +%s%N) - t0) / 1000000 )) ms, state in $D" >&2
      echo "$URL"
      return 0
    fi
    running || break
    sleep 0.5
  done
  echo "neutron-server failed to start; see $D/log/" >&2
  tail -30 "$D/log/neutron-server.log" >&2 || true
  stop >&2
  return 1
}

# Segment-to-host mappings of routed networks are reported by L2 agents over
# RPC, which the fake transport cannot carry; write them to the database.
map_host() {
  db_exists || { echo "no database for $URL; run start first" >&2; return 1; }
  local seg=${1//\'/} host=${2//\'/}
  if [ "$DB" = sqlite ]; then
    sqlite3 "$D/neutron.sqlite" "INSERT OR IGNORE INTO segmenthostmappings(segment_id,host) VALUES('$seg','$host')"
  else
    sql "$DBNAME" -e "INSERT IGNORE INTO segmenthostmappings(segment_id,host) VALUES('$seg','$host')"
  fi
}

case "${1:-}" in
start) start ;;
stop) stop ;;
url) if running; then echo "$URL"; else echo "neutron-server not running ($D)" >&2; exit 1; fi ;;
map-host)
  [ $# -eq 3 ] || { echo "usage: $0 map-host SEGMENT_ID HOST" >&2; exit 2; }
  map_host "$2" "$3"
  ;;
*)
  echo "usage: $0 start|stop|url|map-host SEGMENT_ID HOST" >&2
  exit 2
  ;;
esac
