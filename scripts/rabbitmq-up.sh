#!/usr/bin/env bash
# rabbitmq-up.sh start|stop|restart|status|url|purge|install
#
# Runs a private RabbitMQ node for the internal/events integration tests on a
# machine without systemd: loopback only, its own ports, cookie, data and log
# directories under a state dir, so it neither needs nor disturbs a system
# RabbitMQ. Data survives stop/start/restart (durable queues and persistent
# messages are what the fault tests check); `purge` removes it.
#
# `start` (and `install`) installs Debian's rabbitmq-server when it is
# missing (as root, or through sudo), and stops the system node Debian
# starts on install: the node this script runs is the only one.
#
# Environment:
#   IPSYNC_RABBITMQ_PORT   AMQP port (default 5672)
#   IPSYNC_RABBITMQ_STATE  state dir (default ${TMPDIR:-/tmp}/ipsync-rabbitmq-<port>)
#   IPSYNC_RABBITMQ_BIN    directory of rabbitmq-server/rabbitmqctl
#                          (default /usr/lib/rabbitmq/bin, Debian's unwrapped scripts)
#   IPSYNC_RABBITMQ_TIMEOUT seconds to wait for the node (default 90)
#
# `start` prints the AMQP URL on stdout; everything else goes to stderr.
set -euo pipefail

port=${IPSYNC_RABBITMQ_PORT:-5672}
state=${IPSYNC_RABBITMQ_STATE:-${TMPDIR:-/tmp}/ipsync-rabbitmq-${port}}
bin=${IPSYNC_RABBITMQ_BIN:-/usr/lib/rabbitmq/bin}
timeout=${IPSYNC_RABBITMQ_TIMEOUT:-90}

# Derived ports keep several nodes (one per AMQP port) apart: Erlang
# distribution and a private epmd, so stopping ours never touches another's.
dist_port=$((port + 20000))
epmd_port=$((port + 21000))
node="ipsync-${port}@localhost"
pidfile="${state}/rabbit.pid"
url="amqp://guest:guest@127.0.0.1:${port}/"

log() { printf 'rabbitmq-up: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# The Debian wrapper in /usr/sbin switches to the rabbitmq user and writes to
# /var/log; the scripts behind it honour these variables instead.
setup_env() {
	export HOME="${state}" # .erlang.cookie lives here, private to this node
	export RABBITMQ_NODENAME="${node}"
	export RABBITMQ_NODE_IP_ADDRESS=127.0.0.1
	export RABBITMQ_NODE_PORT="${port}"
	export RABBITMQ_DIST_PORT="${dist_port}"
	export ERL_EPMD_PORT="${epmd_port}"
	export ERL_EPMD_ADDRESS=127.0.0.1
	export RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
	export RABBITMQ_MNESIA_BASE="${state}/mnesia"
	export RABBITMQ_LOG_BASE="${state}/log"
	export RABBITMQ_PID_FILE="${pidfile}"
	export RABBITMQ_CONFIG_FILE="${state}/rabbitmq.conf"
	export RABBITMQ_ADVANCED_CONFIG_FILE="${state}/advanced.config"
	export RABBITMQ_ENABLED_PLUGINS_FILE="${state}/enabled_plugins"
	export RABBITMQ_CONF_ENV_FILE="${state}/rabbitmq-env.conf"
}

ctl() { "${bin}/rabbitmqctl" -q -n "${node}" "$@"; }

as_root() { if [[ "$(id -u)" == 0 ]]; then "$@"; else sudo "$@"; fi; }

# install_packages installs RabbitMQ from Debian when it is missing. apt's
# chatter goes to stderr: `start` prints only the URL on stdout.
install_packages() {
	if dpkg-query -W -f='${Status}' rabbitmq-server 2>/dev/null | grep -q 'install ok installed'; then
		return 0
	fi
	log "installing rabbitmq-server"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends rabbitmq-server >&2
	# Debian starts a system node on install, on the port ours wants.
	if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null 2>&1; then
		as_root systemctl disable --now rabbitmq-server >&2 || true
	elif command -v invoke-rc.d >/dev/null 2>&1; then
		as_root invoke-rc.d rabbitmq-server stop >&2 || true
	fi
}

# running_pid prints the node's pid when the pid file names a live process
# that is this node: a pid reused by something else must never be signalled.
running_pid() {
	[[ -s "${pidfile}" ]] || return 1
	local pid
	pid=$(<"${pidfile}")
	[[ "${pid}" =~ ^[0-9]+$ ]] && kill -0 "${pid}" 2>/dev/null || return 1
	# The node's command line carries its HOME, our state dir.
	tr '\0' ' ' <"/proc/${pid}/cmdline" 2>/dev/null | grep -qF -- "-home ${state} " || return 1
	printf '%s' "${pid}"
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

ready() {
	ctl await_startup --timeout "${timeout}" >/dev/null 2>&1 &&
		"${bin}/rabbitmq-diagnostics" -q -n "${node}" check_port_connectivity >/dev/null 2>&1
}

start() {
	[[ -x "${bin}/rabbitmq-server" ]] || install_packages
	setup_env
	if running_pid >/dev/null && ready; then
		log "already running (pid $(running_pid))"
		echo "${url}"
		return
	fi
	if port_busy "${port}"; then
		die "port ${port} is in use by another process; set IPSYNC_RABBITMQ_PORT"
	fi
	[[ -x "${bin}/rabbitmq-server" ]] || die "no rabbitmq-server in ${bin}; set IPSYNC_RABBITMQ_BIN to where the package put it"
	mkdir -p "${state}/mnesia" "${state}/log"
	chmod 700 "${state}"
	# Empty files make the node ignore /etc/rabbitmq: no plugins, defaults only.
	[[ -e "${RABBITMQ_CONFIG_FILE}" ]] || printf 'loopback_users.guest = true\n' >"${RABBITMQ_CONFIG_FILE}"
	[[ -e "${RABBITMQ_ADVANCED_CONFIG_FILE}" ]] || printf '[].\n' >"${RABBITMQ_ADVANCED_CONFIG_FILE}"
	[[ -e "${RABBITMQ_ENABLED_PLUGINS_FILE}" ]] || printf '[].\n' >"${RABBITMQ_ENABLED_PLUGINS_FILE}"
	[[ -e "${RABBITMQ_CONF_ENV_FILE}" ]] || : >"${RABBITMQ_CONF_ENV_FILE}"
	rm -f "${pidfile}"

	log "starting node ${node} on 127.0.0.1:${port} (state ${state})"
	setsid "${bin}/rabbitmq-server" >>"${state}/log/console.log" 2>&1 </dev/null &
	local launcher=$! waited=0
	until [[ -s "${pidfile}" ]]; do
		if ! kill -0 "${launcher}" 2>/dev/null; then
			tail -n 30 "${state}/log/console.log" >&2 || true
			die "rabbitmq-server exited during start"
		fi
		((waited++ < timeout * 5)) || die "no pid file after ${timeout}s"
		sleep 0.2
	done
	# `wait` returns once the rabbit application runs, or fails when the
	# pid dies first.
	if ! ctl wait --timeout "${timeout}" "${pidfile}" >/dev/null 2>&1 || ! ready; then
		tail -n 30 "${state}/log/console.log" >&2 || true
		die "node did not become ready within ${timeout}s"
	fi
	log "ready (pid $(running_pid))"
	echo "${url}"
}

stop() {
	setup_env
	local pid
	if ! pid=$(running_pid); then
		log "not running"
		stop_epmd
		return
	fi
	log "stopping node ${node} (pid ${pid})"
	# With the pid file, stop returns only after the OS process is gone.
	if ! ctl stop "${pidfile}" >/dev/null 2>&1; then
		log "rabbitmqctl stop failed; sending TERM to ${pid}"
		kill -TERM "${pid}" 2>/dev/null || true
		local waited=0
		while kill -0 "${pid}" 2>/dev/null; do
			((waited++ < timeout * 5)) || die "pid ${pid} still alive after ${timeout}s"
			sleep 0.2
		done
	fi
	rm -f "${pidfile}"
	stop_epmd
	log "stopped"
}

# Our epmd serves only this node, so once it is gone epmd can go too; -kill
# refuses while any node is still registered.
stop_epmd() {
	command -v epmd >/dev/null 2>&1 || return 0
	epmd -port "${epmd_port}" -kill >/dev/null 2>&1 || true
}

status() {
	setup_env
	local pid
	if pid=$(running_pid) && ready; then
		log "running (pid ${pid})"
		echo "${url}"
		return
	fi
	log "not running"
	return 3
}

purge() {
	stop
	[[ "${state}" == / || -z "${state}" ]] && die "refusing to remove state dir '${state}'"
	rm -rf -- "${state}"
	log "removed ${state}"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
restart)
	stop
	start
	;;
status) status ;;
url) echo "${url}" ;;
purge) purge ;;
install) install_packages ;;
*)
	echo "usage: $0 start|stop|restart|status|url|purge|install" >&2
	exit 2
	;;
esac
