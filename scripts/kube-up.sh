#!/usr/bin/env bash
# kube-up.sh install|start|stop|status|kubeconfig|token NAME|helm|stall S
#
# Runs a real Kubernetes API server on loopback for the tests of what ipsync
# does with Kubernetes (the Lease, the Helm chart applied with server-side
# dry-run): Debian's etcd and a kube-apiserver built from the Go module proxy
# (no release binary or container runtime is needed). There is no kubelet,
# scheduler or controller manager: objects are validated and stored, Pods
# never run, which is all these tests ask of it.
#
#   install      installs etcd-server from Debian and builds kube-apiserver
#                and helm into the cache dir (skipped when already there)
#   start        starts etcd and the API server; prints the admin kubeconfig's path
#   stop         stops both; the state dir stays
#   kubeconfig   prints the admin kubeconfig's path
#   token NAME   prints a one-hour token of ServiceAccount NAME (namespace
#                KUBE_TOKEN_NAMESPACE, default "default"): what a Pod of it would get
#   helm         prints the helm binary's path (building it when missing)
#   stall S      stops the API server for S seconds (SIGSTOP, then SIGCONT in
#                the background): connections are accepted and never answered
#
# Environment:
#   KUBE_VERSION  kube-apiserver's release (default v1.34.2)
#   HELM_VERSION  helm's release (default v4.3.2)
#   KUBE_PORT     the API server's port (default 16443); etcd uses KUBE_PORT+7347 and +7357
#   KUBE_DIR      state dir (default ${TMPDIR:-/tmp}/ipsync-kube-<port>)
#   KUBE_CACHE    where the built binaries are kept (default ${TMPDIR:-/tmp}/ipsync-kube-cache)
#   KUBE_TIMEOUT  seconds to wait for the API server (default 120)
#
# Logs go to stderr; `start`, `kubeconfig`, `token` and `helm` print only
# their answer on stdout.
set -euo pipefail

version=${KUBE_VERSION:-v1.34.2}
helm_version=${HELM_VERSION:-v4.3.2}
port=${KUBE_PORT:-16443}
state=${KUBE_DIR:-${TMPDIR:-/tmp}/ipsync-kube-${port}}
cache=${KUBE_CACHE:-${TMPDIR:-/tmp}/ipsync-kube-cache}
timeout=${KUBE_TIMEOUT:-120}
etcd_port=$((port + 7347))
etcd_peer=$((port + 7357))
apiserver="${cache}/bin/kube-apiserver-${version}"
helm="${cache}/bin/helm-${helm_version}"
kubeconfig="${state}/admin.kubeconfig"

log() { printf 'kube-up: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }
as_root() { if [[ "$(id -u)" == 0 ]]; then "$@"; else sudo "$@"; fi; }

install_etcd() {
	if command -v etcd >/dev/null 2>&1; then
		return 0
	fi
	log "installing etcd-server"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends etcd-server openssl >&2
	# Debian starts a system etcd on 2379; ours has its own ports, but an
	# idle second etcd only costs memory.
	if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null 2>&1; then
		as_root systemctl disable --now etcd >&2 || true
	fi
}

# build_apiserver builds kube-apiserver from k8s.io/kubernetes's module zip.
# Its go.mod replaces every k8s.io staging module with ./staging/src/...,
# which the zip leaves out; pinning them to the published release of the
# same minor (v0.x.y for v1.x.y) builds the same code.
# The release's version is stamped in as Kubernetes' own build does
# (hack/lib/version.sh): without it the server calls itself v0.0.0-master,
# and helm refuses a chart with a kubeVersion against it. A binary built
# before without it is built again.
build_apiserver() {
	[[ -x "${apiserver}" ]] && "${apiserver}" --version 2>/dev/null | grep -qx "Kubernetes ${version}" && return 0
	local started=${SECONDS} dir work staging minor ldflags pkg
	minor=${version#v1.}
	minor=${minor%%.*}
	ldflags=""
	for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		ldflags+=" -X ${pkg}.gitVersion=${version} -X ${pkg}.gitMajor=1 -X ${pkg}.gitMinor=${minor} -X ${pkg}.gitTreeState=clean"
	done
	log "building kube-apiserver ${version} (a few minutes on two cores)"
	dir=$(go mod download -json "k8s.io/kubernetes@${version}" | jq -r .Dir)
	[[ -d "${dir}" ]] || die "go mod download k8s.io/kubernetes@${version} gave no directory"
	work=$(mktemp -d)
	cp -r "${dir}" "${work}/k8s"
	chmod -R u+w "${work}/k8s"
	staging="v0.${version#v1.}"
	(
		cd "${work}/k8s"
		rm -rf vendor go.work go.work.sum
		sed -i '/=> .\/staging/d' go.mod
		# Only the bare v0.0.0 lines: pseudo-versions stay as they are.
		sed -i -E "s#^(\s*k8s\.io/[a-z0-9-]+) v0\.0\.0\$#\1 ${staging}#" go.mod
		mkdir -p "${cache}/bin"
		go build -mod=mod -trimpath -ldflags "${ldflags}" -o "${apiserver}.tmp" ./cmd/kube-apiserver
	) >&2
	mv "${apiserver}.tmp" "${apiserver}"
	rm -rf "${work}"
	log "built kube-apiserver in $((SECONDS - started))s"
}

# build_helm builds helm on its own: it pulls k8s.io modules of its own
# release, which must not meet the project's.
build_helm() {
	[[ -x "${helm}" ]] && return 0
	local started=${SECONDS}
	log "building helm ${helm_version}"
	mkdir -p "${cache}/bin"
	GOBIN="${cache}/gobin-helm" go install -trimpath "helm.sh/helm/v4/cmd/helm@${helm_version}" >&2
	mv "${cache}/gobin-helm/helm" "${helm}"
	log "built helm in $((SECONDS - started))s"
}

install() {
	command -v go >/dev/null 2>&1 || die "go is needed to build kube-apiserver and helm"
	command -v jq >/dev/null 2>&1 || die "jq is needed"
	install_etcd
	build_apiserver
	build_helm
}

# running NAME: the pid of NAME's process from its pid file, if it is alive
# and still the process we started (its command line names our state dir).
running() {
	local file="${state}/$1.pid" pid
	[[ -s "${file}" ]] || return 1
	pid=$(<"${file}")
	[[ "${pid}" =~ ^[0-9]+$ ]] && kill -0 "${pid}" 2>/dev/null || return 1
	tr '\0' ' ' <"/proc/${pid}/cmdline" 2>/dev/null | grep -qF -- "${state}/" || return 1
	printf '%s' "${pid}"
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

admin_token() { cut -d, -f1 "${state}/tokens.csv"; }

ready() {
	[[ -s "${state}/tokens.csv" ]] &&
		curl -skf -H "Authorization: Bearer $(admin_token)" "https://127.0.0.1:${port}/readyz" >/dev/null 2>&1
}

write_kubeconfig() {
	umask 077
	cat >"${kubeconfig}" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: ipsync-test
  cluster:
    server: https://127.0.0.1:${port}
    certificate-authority: ${state}/certs/apiserver.crt
users:
- name: admin
  user:
    token: $(admin_token)
contexts:
- name: ipsync-test
  context: {cluster: ipsync-test, user: admin, namespace: default}
current-context: ipsync-test
EOF
}

start() {
	[[ -x "${apiserver}" ]] && command -v etcd >/dev/null 2>&1 || install
	if running apiserver >/dev/null && ready; then
		log "already running (pid $(running apiserver))"
		echo "${kubeconfig}"
		return
	fi
	for p in "${port}" "${etcd_port}" "${etcd_peer}"; do
		port_busy "${p}" && die "port ${p} is in use by another process; set KUBE_PORT"
	done
	mkdir -p "${state}/certs"
	chmod 700 "${state}"
	if [[ ! -s "${state}/sa.key" ]]; then
		openssl genrsa -out "${state}/sa.key" 2048 2>/dev/null
		openssl rsa -in "${state}/sa.key" -pubout -out "${state}/sa.pub" 2>/dev/null
	fi
	# A static admin token, like a cluster admin's, for the tests' setup.
	[[ -s "${state}/tokens.csv" ]] || echo "$(openssl rand -hex 24),ipsync-admin,ipsync-admin,system:masters" >"${state}/tokens.csv"

	log "starting etcd on 127.0.0.1:${etcd_port} (state ${state})"
	setsid etcd --name ipsync-test --data-dir "${state}/etcd" \
		--listen-client-urls "http://127.0.0.1:${etcd_port}" --advertise-client-urls "http://127.0.0.1:${etcd_port}" \
		--listen-peer-urls "http://127.0.0.1:${etcd_peer}" --initial-advertise-peer-urls "http://127.0.0.1:${etcd_peer}" \
		--initial-cluster "ipsync-test=http://127.0.0.1:${etcd_peer}" >>"${state}/etcd.log" 2>&1 </dev/null &
	echo $! >"${state}/etcd.pid"

	log "starting kube-apiserver ${version} on 127.0.0.1:${port}"
	# The serving certificate is self-signed into certs/ on first start;
	# the kubeconfig trusts it.
	setsid "${apiserver}" --etcd-servers "http://127.0.0.1:${etcd_port}" \
		--secure-port "${port}" --bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
		--cert-dir "${state}/certs" \
		--service-account-issuer https://kubernetes.default.svc \
		--service-account-key-file "${state}/sa.pub" --service-account-signing-key-file "${state}/sa.key" \
		--token-auth-file "${state}/tokens.csv" --authorization-mode RBAC \
		--service-cluster-ip-range 10.0.0.0/24 >>"${state}/apiserver.log" 2>&1 </dev/null &
	echo $! >"${state}/apiserver.pid"

	local waited=0
	until ready; do
		if ! running apiserver >/dev/null; then
			tail -n 30 "${state}/apiserver.log" >&2 || true
			die "kube-apiserver exited during start"
		fi
		((waited++ < timeout * 5)) || { tail -n 30 "${state}/apiserver.log" >&2; die "not ready within ${timeout}s"; }
		sleep 0.2
	done
	write_kubeconfig
	log "ready in $((waited / 5))s (pid $(running apiserver))"
	echo "${kubeconfig}"
}

stop() {
	local name pid
	for name in apiserver etcd; do
		if pid=$(running "${name}"); then
			log "stopping ${name} (pid ${pid})"
			kill -TERM "${pid}" 2>/dev/null || true
			local waited=0
			while kill -0 "${pid}" 2>/dev/null; do
				((waited++ < 150)) || { kill -KILL "${pid}" 2>/dev/null || true; break; }
				sleep 0.2
			done
		fi
		rm -f "${state}/${name}.pid"
	done
}

status() {
	if running apiserver >/dev/null && ready; then
		log "running (pid $(running apiserver))"
		echo "${kubeconfig}"
		return
	fi
	log "not running"
	return 3
}

# token NAME asks the API server for a ServiceAccount's token, as the
# kubelet does for a Pod's projected token.
token() {
	local name=${1:?token needs a ServiceAccount name} ns=${KUBE_TOKEN_NAMESPACE:-default}
	ready || die "not running"
	curl -skf -H "Authorization: Bearer $(admin_token)" -H 'Content-Type: application/json' \
		-X POST -d '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}}' \
		"https://127.0.0.1:${port}/api/v1/namespaces/${ns}/serviceaccounts/${name}/token" | jq -er .status.token
}

stall() {
	local seconds=${1:?stall needs seconds} pid
	pid=$(running apiserver) || die "not running"
	kill -STOP "${pid}"
	setsid nohup sh -c "sleep ${seconds}; kill -CONT ${pid}" >/dev/null 2>&1 </dev/null &
	log "kube-apiserver ${pid} stalled for ${seconds} s"
}

case "${1:-}" in
install) install ;;
stall)
	shift
	stall "$@"
	;;
start) start ;;
stop) stop ;;
status) status ;;
kubeconfig) echo "${kubeconfig}" ;;
token)
	shift
	token "$@"
	;;
helm)
	build_helm
	echo "${helm}"
	;;
*)
	echo "usage: $0 install|start|stop|status|kubeconfig|token NAME|helm|stall SECONDS" >&2
	exit 64
	;;
esac
