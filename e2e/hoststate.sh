#!/usr/bin/env bash
# hoststate.sh record    remember the host state that the kubelet and
#                        containerd change, in $STATE/host.before (once:
#                        an existing record from a killed run is kept),
#                        for teardown.sh to restore.
# hoststate.sh snapshot  print everything a run could leave behind
#                        (processes, mounts, sysctls, paths, links,
#                        iptables rules, cgroups), one sorted line each;
#                        run.sh compares one taken before the run with one
#                        taken after it.
#
# The list of what the kubelet touches outside its --root-dir comes from
# the recipe in shared/kube (NOTES.md, up.sh, down.sh), checked again here
# with snapshots before and after whole runs.
set -euo pipefail
STATE=${STATE:-/tmp/tend-e2e}

# Sysctls the kubelet sets when it starts (protectKernelDefaults: false).
SYSCTLS="vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes"
# Paths the kubelet, containerd, runc or podman hard-code.
PATHS="/var/lib/kubelet /var/log/containers /var/log/pods /run/containerd /var/lib/containerd /run/netns /var/lib/cni /run/containers /run/libpod /var/lib/containers /var/tmp/buildah-cache-0 $STATE"
# cgroups (v1, cgroupfs driver): the kubelet's QoS tree and the preflight
# container's.
CGROUPS="kubepods tend-e2e-preflight"

cgroup_roots() {
  local d
  for d in /sys/fs/cgroup/*/; do
    [ -e "$d/cgroup.procs" ] && echo "${d%/}"
  done
  return 0
}

record() {
  mkdir -p "$STATE"
  [ -f "$STATE/host.before" ] && { echo "keeping the record of an earlier run: $STATE/host.before"; return 0; }
  {
    local k p r c
    for k in $SYSCTLS; do
      [ -e "/proc/sys/${k//.//}" ] && echo "sysctl $k=$(sysctl -n "$k")"
    done
    for p in $PATHS; do
      [ "$p" = "$STATE" ] && continue
      [ -e "$p" ] || echo "absent $p"
    done
    for r in $(cgroup_roots); do
      for c in $CGROUPS; do
        [ -e "$r/$c" ] || echo "absent $r/$c"
      done
    done
  } > "$STATE/host.before.tmp"
  mv "$STATE/host.before.tmp" "$STATE/host.before"
}

# snapshot prints one line per item, each starting with its kind (process,
# mount, sysctl, path, link, iptables, ip6tables, cgroup), sorted.
snapshot() {
  local k p r t fam
  # Processes: the kubelet, containerd, shims, anything in a kubepods
  # cgroup or naming $STATE. Bash builtins only: a fork per process is
  # slow on a loaded machine.
  local argv args cg
  for p in /proc/[0-9]*; do
    { mapfile -d '' -t argv < "$p/cmdline"; } 2>/dev/null || continue
    args=${argv[*]}
    [ -n "$args" ] || continue
    cg=
    { read -r -d '' cg < "$p/cgroup"; } 2>/dev/null || true # read stops at EOF with 1
    if [[ $args == *kubelet* || $args == *containerd* || $args == *"$STATE"* || $cg == *kubepods* || $cg == *tend-e2e* ]]; then
      case $args in *hoststate.sh*|*teardown.sh*|*run.sh*|*"go test"*|*e2e.test*) continue ;; esac
      echo "process $args"
    fi
  done
  awk '{print "mount " $5}' /proc/self/mountinfo
  for k in $SYSCTLS; do echo "sysctl $k=$(sysctl -n "$k" 2>/dev/null || echo '?')"; done
  for p in $PATHS; do [ -e "$p" ] && echo "path $p exists" || echo "path $p absent"; done
  ip -o link show 2>/dev/null | awk -F': ' '{print "link " $2}' | sed 's/@.*//'
  for fam in iptables ip6tables; do
    command -v $fam >/dev/null || continue
    for t in filter nat mangle; do
      $fam -t $t -S 2>/dev/null | sed "s/^/$fam $t: /" || true
    done
  done
  # Only the names a run could create (the kubelet's QoS tree, ctr's,
  # podman's, containerd's): other test suites on a shared machine make
  # and remove cgroups of their own meanwhile.
  for r in $(cgroup_roots); do
    find "$r" -mindepth 1 -maxdepth 2 -type d 2>/dev/null |
      grep -E '/(kubepods|tend-e2e[^/]*|k8s\.io|libpod[^/]*|podman[^/]*|containerd[^/]*)(/|$)' | sed 's/^/cgroup /' || true
  done
}

case ${1:-} in
  record) record ;;
  snapshot) snapshot | LC_ALL=C sort ;;
  *) echo "usage: hoststate.sh record|snapshot" >&2; exit 2 ;;
esac
