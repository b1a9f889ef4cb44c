#!/usr/bin/env bash
# Installs the Debian packages that tend's tests use, if any is missing:
# gcc for the race detector, unshare (util-linux) for PID namespaces, tini/dumb-init as baselines,
# python3 modules for tini's own test suite, podman/runc for image tests,
# and for make packages-test: rpm (rpm -qlp), mandoc (man-page lint), groff
# (renders it as man does) and cpio (unpacks the .rpm's payload); debootstrap
# for make recipes' Debian base.
set -euo pipefail
need=()
# gcc first: go test -race needs cgo, and it is the step a fresh machine
# fails on.
command -v gcc >/dev/null || need+=(gcc libc6-dev)
command -v unshare >/dev/null || need+=(util-linux)
command -v script >/dev/null || need+=(bsdutils)
command -v tini-static >/dev/null || need+=(tini)
command -v dumb-init >/dev/null || need+=(dumb-init)
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v podman >/dev/null || need+=(podman)
command -v runc >/dev/null || need+=(runc)
command -v rpm >/dev/null || need+=(rpm)
command -v mandoc >/dev/null || need+=(mandoc)
command -v groff >/dev/null || need+=(groff-base)
command -v cpio >/dev/null || need+=(cpio)
command -v debootstrap >/dev/null || need+=(debootstrap)
# systemd-socket-activate (socket activation in front of tend,
# TestSocketActivationUnderSystemdSocketActivate) and systemd-notify.
command -v systemd-socket-activate >/dev/null || need+=(systemd)
# dumb-init's own suite (make dumb-init-suite): pytest, and ps for its
# test-zombies.
/usr/bin/python3 -c 'import pytest' 2>/dev/null || need+=(python3-pytest)
# grpcio's own servers, plain and TLS, for the grpc(s):// probe and --check
# tests (grpc/grpcio_test.go, blackbox_checkgrpcs_test.go).
/usr/bin/python3 -c 'import grpc' 2>/dev/null || need+=(python3-grpcio)
# Debian's catatonit, side by side with tend's catatonit mode
# (blackbox_catatonit_test.go, examples/catatonit_test.go).
command -v catatonit >/dev/null || need+=(catatonit)
command -v ps >/dev/null || need+=(procps)
[ ${#need[@]} -eq 0 ] && exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
# Another apt (unattended-upgrades, a colleague's install) may hold the
# locks: wait for them, up to LOCK_WAIT seconds, instead of failing at
# once. install waits by itself with DPkg::Lock::Timeout; update (apt 2.6)
# does not wait for the lists lock whatever that option says, so it is
# tried again while its error is the lock's.
LOCK_WAIT=300
waited=0
while ! out=$($SUDO apt-get -o DPkg::Lock::Timeout=$LOCK_WAIT update -qq 2>&1); do
	if ! grep -q 'Could not get lock' <<<"$out" || [ $waited -ge $LOCK_WAIT ]; then
		printf '%s\n' "$out" >&2
		exit 1
	fi
	[ $waited -gt 0 ] || printf 'deps.sh: waiting for apt'"'"'s lists lock (up to %d s): %s\n' $LOCK_WAIT "$(grep -m1 'Could not get lock' <<<"$out")" >&2
	sleep 5
	waited=$((waited + 5))
done
[ -z "$out" ] || printf '%s\n' "$out"
$SUDO apt-get -o DPkg::Lock::Timeout=$LOCK_WAIT install -y -qq "${need[@]}" >/dev/null
