#!/bin/sh
# base.sh OUT.tar: builds the recipes' base root file system from Debian's
# packages (no registry) and writes it as a tarball for `podman import`.
# The packages are the lines of ./packages; the suite is bookworm; the
# mirror is the one this machine's apt uses (MIRROR overrides it).
#
# Two stages, so that PostgreSQL's Debian cluster is not created (each
# recipe makes its own data directory): the setting must be there before
# the packages are configured. No service starts while they are:
# debootstrap itself installs a policy-rc.d that forbids it, and a fake
# start-stop-daemon, for the second stage, and removes both at the end.
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
suite=bookworm
if [ -z "${MIRROR:-}" ]; then
	# The first Debian URI of apt's sources (deb822 or one-line format).
	MIRROR=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
		grep -oE 'https?://[^ ]*/debian/?( |$)' | grep -v security | head -n 1 | tr -d ' ')
	MIRROR=${MIRROR:-http://deb.debian.org/debian}
fi
include=$(grep -v '^#' "$here/packages" | tr '\n' ',' | sed 's/,*$//')
root=$(mktemp -d /var/tmp/tend-recipes-root.XXXXXX)
# A failed build leaves nothing behind; /proc is unmounted by debootstrap.
trap 'rm -rf "$root"' EXIT
# mktemp's 0700 would become the image's /: no user but root could reach
# a file, and --user postgres could not exec the server.
chmod 755 "$root"
debootstrap --foreign --variant=minbase --include="$include" "$suite" "$root" "$MIRROR"
mkdir -p "$root/etc/postgresql-common"
echo 'create_main_cluster = false' >"$root/etc/postgresql-common/createcluster.conf"
chroot "$root" /debootstrap/debootstrap --second-stage
# Less to import: apt's package lists and downloaded .debs.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" --numeric-owner -cf "$out.tmp" .
mv "$out.tmp" "$out"
