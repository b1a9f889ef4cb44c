#!/usr/bin/env bash
# run.sh, `make e2e`: tend under a real kubelet. As root on Debian:
#   1. installs containerd, runc, containernetworking-plugins, podman and
#      busybox-static from apt if any is missing;
#   2. builds the kubelet at the version this module pins (go.mod), once:
#      the binary is cached in $TEND_E2E_CACHE (/var/cache/tend-e2e), keyed
#      by that version, the Go version and go.sum;
#   3. runs the tests in this directory (TestMain starts containerd and the
#      kubelet with private state in $STATE, /tmp/tend-e2e, and tears them
#      down again);
#   4. runs teardown.sh once more (for a test binary that was killed), and
#      fails if the host differs from a snapshot taken before the run.
# A machine that cannot run the tests (not root, no cgroup v1, containerd
# unable to run a plain container) fails the run with the reason, since a
# skipped suite proves nothing; E2E_ALLOW_SKIP=1 makes that a skip (exit 0)
# for a developer's machine. E2E_RUN=REGEXP picks tests (go test -run).
set -euo pipefail
E2E=$(cd "$(dirname "$0")" && pwd)
cd "$E2E"
export STATE=${STATE:-/tmp/tend-e2e}
CACHE=${TEND_E2E_CACHE:-/var/cache/tend-e2e}
T0=$(date +%s)

if [ "$(id -u)" -ne 0 ]; then
  echo "make e2e: needs root (containerd, runc and the kubelet)" >&2
  [ "${E2E_ALLOW_SKIP:-}" = 1 ] && { echo "make e2e: skipped (E2E_ALLOW_SKIP=1)"; exit 0; }
  exit 1
fi
# One run at a time: they share ports and $STATE.
exec 9<"$E2E"
flock -n 9 || { echo "make e2e: another run holds the lock on $E2E" >&2; exit 1; }

# 1. Debian packages.
need=()
command -v containerd >/dev/null || need+=(containerd)
command -v runc >/dev/null || need+=(runc)
[ -x /usr/lib/cni/loopback ] || need+=(containernetworking-plugins)
command -v podman >/dev/null || need+=(podman)
[ -x /bin/busybox ] && /bin/busybox --list | grep -qx nc || need+=(busybox-static)
if [ ${#need[@]} -gt 0 ]; then
  echo "make e2e: installing ${need[*]}"
  log=$(mktemp)
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"; } >"$log" 2>&1; then
    cat "$log"; rm -f "$log"; echo "make e2e: apt-get install failed" >&2; exit 1
  fi
  rm -f "$log"
fi

# 2. The kubelet, from k8s.io/kubernetes through the module proxy (this
# module's go.mod replaces every staging module with its v0.x release).
KV=$(go list -m -f '{{.Version}}' k8s.io/kubernetes)
MINOR=$(echo "$KV" | cut -d. -f2)
KEY=$(cat go.mod go.sum | sha256sum | cut -c1-12)
KUBELET=$CACHE/kubelet-$KV-$(go env GOVERSION)-$KEY
T1=$(date +%s)
if [ -x "$KUBELET" ]; then
  kubelet_note="cached ($KUBELET)"
else
  echo "make e2e: building kubelet $KV (about 4 minutes and 1.6 GB of memory on 2 cores)"
  mkdir -p "$CACHE"
  find "$CACHE" -maxdepth 1 -name 'kubelet-*' -delete # older versions and partial builds
  LD="-s -w -X k8s.io/component-base/version.gitVersion=$KV -X k8s.io/component-base/version.gitMajor=1"
  LD="$LD -X k8s.io/component-base/version.gitMinor=$MINOR -X k8s.io/component-base/version.gitTreeState=clean"
  CGO_ENABLED=0 go build -buildvcs=false -trimpath -ldflags "$LD" -o "$KUBELET.tmp" k8s.io/kubernetes/cmd/kubelet
  mv "$KUBELET.tmp" "$KUBELET"
  kubelet_note="built in $(( $(date +%s) - T1 ))s"
fi
"$KUBELET" --version

# 3. The tests, with the host snapshot around them.
snap=$(mktemp -d)
finish() {
  local rc=$?
  trap - EXIT
  STATE=$STATE bash "$E2E/teardown.sh" || rc=1
  bash "$E2E/hoststate.sh" snapshot > "$snap/after"
  local added
  added=$(LC_ALL=C comm -13 "$snap/before" "$snap/after" || echo "(comparing the snapshots failed)")
  if [ -n "$added" ]; then
    echo "make e2e: FAIL: the run left this behind (in the snapshot after it, not before):" >&2
    echo "$added" >&2
    echo "(gone since the snapshot before: $(LC_ALL=C comm -23 "$snap/before" "$snap/after" | tr '\n' ' '))" >&2
    rc=1
  else
    echo "make e2e: the host is as before the run (processes, mounts, sysctls, paths, links, iptables, cgroups)"
  fi
  rm -rf "$snap"
  echo "make e2e: kubelet $kubelet_note; total $(( $(date +%s) - T0 ))s; exit $rc"
  exit $rc
}
bash "$E2E/hoststate.sh" snapshot > "$snap/before"
trap finish EXIT
T2=$(date +%s)
# -timeout below the outer bound, so Go prints which test hung; the
# outer timeout covers a hang before the tests start. 9<&-: the daemons
# the tests start must not inherit (and so hold) the lock.
TEND_E2E_KUBELET=$KUBELET TEND_E2E_STATE=$STATE TEND_E2E_ALLOW_SKIP=${E2E_ALLOW_SKIP:-} CGO_ENABLED=0 \
  timeout -k 30s 50m go test -buildvcs=false -trimpath -count=1 -v -timeout 45m -run "${E2E_RUN:-.}" . 9<&-
echo "make e2e: tests took $(( $(date +%s) - T2 ))s"
