#!/bin/bash
# A real OpenStack Neutron on loopback for ipsync's integration tests and
# benchmarks: Debian's neutron-server with noauth, ML2 (vlan, vxlan, flat),
# routed networks (segments), network segment ranges, MariaDB (as in
# production; scripts/mariadb-up.sh) and the fake RPC transport; when asked,
# networking-baremetal's ML2 mechanism driver (Debian's
# python3-ironic-neutron-agent), which binds bare-metal ports (vnic_type
# baremetal) to the segments of the physical networks their node's agent
# reports. No Keystone, no agent processes; RabbitMQ only for
# notifications, when asked.
#
#   scripts/neutron-up.sh start              install packages if missing, write config, start, wait, print the URL
#   scripts/neutron-up.sh stop               stop the server this script started (by its pid file)
#   scripts/neutron-up.sh url                print the URL of the running server
#   scripts/neutron-up.sh map-host SEG HOST  map a routed-network segment to a host (agents do this in production)
#   scripts/neutron-up.sh report-agent NODE PHYSNET...
#                                            report a bare-metal node's agent state, as networking-baremetal's
#                                            ironic-neutron-agent does for each node it manages (below)
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
#   NEUTRON_TYPE_DRIVERS ML2 type_drivers (default flat,vlan,vxlan; add local for the test driver's
#                        hierarchical bindings)
#   NEUTRON_FILTER_VALIDATION  true (Neutron's default) or false; false lets lists take changed_since,
#                        which Neutron's filter validation refuses as an unknown filter
#   NEUTRON_MECH_DRIVERS ML2 mechanism_drivers (default none: a port with a host fails to bind);
#                        baremetal binds bare-metal ports on the nodes report-agent names;
#                        test (Neutron's own test driver) binds a port on host-hierarchical
#                        hierarchically: under a local network's segment it allocates a dynamic
#                        VLAN segment on physnet1 (give physnet1 a VLAN range, and the local
#                        type), and leaves it behind when the port unbinds; it refuses the
#                        ports baremetal binds, so the two go to Neutrons of their own
#                        networking-baremetal 6.0.0 answers 500 to a network created with
#                        several segments at once ("segments": [...]): its postcommit reads
#                        provider:network_type, which such a network lacks; create the
#                        network with one segment and add the others through /segments
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
PACKAGES="python3-neutron python3-ironic-neutron-agent python3-pymysql curl jq sqlite3"
MECH=${NEUTRON_MECH_DRIVERS:-}
TYPE_DRIVERS=${NEUTRON_TYPE_DRIVERS:-flat,vlan,vxlan}

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
# Agents report through report-agent, when a test says so, not every 30 s:
# an agent stays alive (bindable) for an hour after its last report.
agent_down_time = 3600
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
type_drivers = $TYPE_DRIVERS
tenant_network_types = vlan,vxlan
mechanism_drivers = $MECH
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
  # An L2 agent reports its state over RPC, which the fake transport cannot
  # carry from another process; this app hands a node's state, built by
  # networking-baremetal's own agent code, to the RPC endpoint that receives
  # it (AgentExtRpcCallback.report_state) inside the server. What follows
  # is the server's: the agents row, the segment host mappings of the
  # node's physical networks, and the driver binding ports to them.
  cat >"$D/etc/ipsync_test_rpc.py" <<'EOF'
import datetime
import json

import webob
import webob.dec
from networking_baremetal.agent import ironic_neutron_agent
from neutron.db import agents_db
from neutron_lib import constants
from neutron_lib import context
from neutron_lib.plugins import directory


def app_factory(global_conf, **local_conf):
    return report_state


@webob.dec.wsgify
def report_state(req):
    if req.method != 'POST':
        return webob.Response(status=405)
    body = json.loads(req.body)
    # As the agent's _report_state: one state per node, its physical
    # networks those of the node's Ironic ports; start_flag as when a
    # node's configuration changed.
    state = ironic_neutron_agent.BaremetalNeutronAgent.get_template_node_state(None, body['host'])
    for physnet in body['physical_networks']:
        state['configurations']['bridge_mappings'][physnet] = 'yes'
    state['start_flag'] = True
    time = datetime.datetime.utcnow().strftime(constants.ISO8601_TIME_FORMAT)
    status = agents_db.AgentExtRpcCallback(directory.get_plugin()).report_state(
        context.get_admin_context(), agent_state={'agent_state': state}, time=time)
    plugin = directory.get_plugin()
    # Whether anything binds the node's ports: the mechanism drivers loaded.
    drivers = sorted(plugin.mechanism_manager.mech_drivers)
    return webob.Response(json={'status': status, 'agent_state': state, 'mechanism_drivers': drivers})
EOF
  # Neutron's stock api-paste.ini, reduced to the noauth pipelines.
  cat >"$D/etc/api-paste.ini" <<EOF
[composite:neutron]
use = egg:Paste#urlmap
/: neutronversions_composite
/healthcheck: healthcheck
/v2.0: neutronapi_v2_0
/test-rpc/report-state: report_state

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

[app:report_state]
paste.app_factory = ipsync_test_rpc:app_factory

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
  PYTHONPATH="$D/etc" setsid nohup $PY -c 'import sys; from neutron.cmd.eventlet.server import main; sys.exit(main())' \
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

# report_agent NODE PHYSNET...: what networking-baremetal's agent reports
# for a node whose Ironic ports are on those physical networks.
report_agent() {
  running || { echo "neutron-server not running ($D)" >&2; return 1; }
  local host=$1 nets
  shift
  nets=$(printf '%s\n' "$@" | jq -R . | jq -sc .)
  curl -sS -f -X POST -H 'Content-Type: application/json' "$URL/test-rpc/report-state" \
    -d "$(jq -nc --arg h "$host" --argjson n "$nets" '{host: $h, physical_networks: $n}')"
  echo
}

case "${1:-}" in
start) start ;;
stop) stop ;;
url) if running; then echo "$URL"; else echo "neutron-server not running ($D)" >&2; exit 1; fi ;;
map-host)
  [ $# -eq 3 ] || { echo "usage: $0 map-host SEGMENT_ID HOST" >&2; exit 2; }
  map_host "$2" "$3"
  ;;
report-agent)
  [ $# -ge 3 ] || { echo "usage: $0 report-agent NODE PHYSNET..." >&2; exit 2; }
  shift
  report_agent "$@"
  ;;
*)
  echo "usage: $0 start|stop|url|map-host SEGMENT_ID HOST|report-agent NODE PHYSNET..." >&2
  exit 2
  ;;
esac
