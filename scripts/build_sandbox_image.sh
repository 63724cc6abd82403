#!/usr/bin/env bash
# Build the Docker sandbox image offline from Debian packages (idempotent).
#
# Usage: scripts/build_sandbox_image.sh [--force]      (needs root, a reachable Docker engine
#        and the Debian mirror; about 40-90 s the first time, instant when the image exists)
# Env:   AGENTGYM_SANDBOX_IMAGE     image tag (default agentgym-sandbox:py3)
#        AGENTGYM_DEBIAN_MIRROR     mirror URL (default http://deb.debian.org/debian)
#        AGENTGYM_DEBIAN_SUITE      suite (default bookworm)
#        AGENTGYM_SANDBOX_PACKAGES  extra Debian packages, comma separated (default none)
#
# The root filesystem comes from `debootstrap --variant=minbase --include=python3`, is trimmed
# (apt caches, docs, man pages, locales) and imported with `docker import`; no Dockerfile and no
# registry pull are involved. The sandbox runs code as uid 65534 (nobody) with /work on a tmpfs.
set -euo pipefail

image="${AGENTGYM_SANDBOX_IMAGE:-agentgym-sandbox:py3}"
mirror="${AGENTGYM_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite="${AGENTGYM_DEBIAN_SUITE:-bookworm}"
extra="${AGENTGYM_SANDBOX_PACKAGES:-}"
force=0
[ "${1:-}" = "--force" ] && force=1

if [ "$force" = 0 ] && docker image inspect "$image" >/dev/null 2>&1; then
    echo "image $image: already present"
    exit 0
fi
for tool in debootstrap docker; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "build_sandbox_image: $tool not found" >&2
        exit 2
    fi
done

rootfs="$(mktemp -d /var/tmp/agentgym-rootfs.XXXXXX)"
trap 'rm -rf "$rootfs"' EXIT

include="python3"
[ -n "$extra" ] && include="$include,$extra"
echo "debootstrap $suite ($include) into $rootfs"
debootstrap --variant=minbase --include="$include" "$suite" "$rootfs" "$mirror" \
    >"$rootfs.log" 2>&1 || { tail -n 30 "$rootfs.log" >&2; rm -f "$rootfs.log"; exit 1; }
rm -f "$rootfs.log"

# Trim what a sandbox never needs; keep the image small (vfs copies it for every container).
rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
    "$rootfs"/usr/share/locale/* "$rootfs"/var/log/*
chmod 0755 "$rootfs"  # mktemp -d makes it 0700; uid 65534 must traverse /
mkdir -p "$rootfs/work"
chmod 1777 "$rootfs/work"

tar --numeric-owner -C "$rootfs" -c . | docker import \
    --change 'ENV PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 PYTHONDONTWRITEBYTECODE=1' \
    --change 'WORKDIR /work' \
    --change 'USER 65534:65534' \
    --change 'LABEL agentgym.sandbox.image=1' \
    - "$image" >/dev/null
echo "image $image: built ($(docker image inspect -f '{{.Size}}' "$image") bytes)"
