#!/usr/bin/env bash
# image-build.sh OUTDIR
#
# Builds ipsync's container image for linux/amd64 and linux/arm64 without a
# container engine (build/image, a Go program of its own module): a static
# ipsync at /usr/local/bin/ipsync over Debian's CA certificates and a
# nonroot user (65532), no shell, no libc. Writes
#   OUTDIR/oci                                an OCI image layout: one image
#                                             index of both platforms, tagged
#                                             with the version
#   OUTDIR/ipsync-<version>-linux-<arch>.tar  one docker-archive a platform,
#                                             for `docker load` / `podman load`
# Two builds of one commit with the same settings are identical, digest for
# digest: file times and the image's creation time are the commit's.
#
# Installs Debian's ca-certificates first when it is missing (as root, or
# through sudo).
#
# Environment:
#   IPSYNC_IMAGE_VERSION    the version baked in (ipsync version), labelled and
#                           tagged (default: git describe --tags --always --dirty)
#   IPSYNC_IMAGE_COMMIT     the commit baked in and labelled (default: git rev-parse HEAD)
#   SOURCE_DATE_EPOCH       the image's creation time and its files' times,
#                           seconds since 1970 (default: the commit's time)
#   IPSYNC_IMAGE_CA_BUNDLE  a PEM bundle to ship instead of Debian's
#                           certificates (/usr/share/ca-certificates/mozilla;
#                           not the host's /etc/ssl/certs bundle, which may
#                           hold local authorities that the image must not)
#
# Prints the layout's path on stdout; everything else, the time the build
# took included, goes to stderr.
set -euo pipefail

log() { printf 'image-build: %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

[[ $# == 1 ]] || die "usage: image-build.sh OUTDIR"
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
start=$SECONDS

version=${IPSYNC_IMAGE_VERSION:-$(git -C "$root" describe --tags --always --dirty)}
commit=${IPSYNC_IMAGE_COMMIT:-$(git -C "$root" rev-parse HEAD)}
created=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct HEAD)}
ca=${IPSYNC_IMAGE_CA_BUNDLE:-/usr/share/ca-certificates/mozilla}

as_root() { if [[ "$(id -u)" == 0 ]]; then "$@"; else sudo "$@"; fi; }
if [[ -z "${IPSYNC_IMAGE_CA_BUNDLE:-}" ]] && ! dpkg-query -W -f='${Status}' ca-certificates 2>/dev/null | grep -q 'install ok installed'; then
	log "installing Debian's ca-certificates"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ca-certificates >&2
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
log "ipsync ${version} (commit ${commit}), created $(date -u -d "@${created}" +%Y-%m-%dT%H:%M:%SZ)"
layout=$(cd "$root/build/image" && go run . -src "$root" -out "$out" \
	-version "$version" -commit "$commit" -created "$created" -ca "$ca")
log "built in $((SECONDS - start))s"
printf '%s\n' "$layout"
