#!/usr/bin/env bash
# teardown.sh: stop whatever the e2e run left running and restore the host,
# from any point of a run, as often as you like (it is idempotent: with
# nothing left it does nothing). The Go tests' TestMain runs it after its
# own graceful teardown, at the start of a run (to clean up after a killed
# one), and run.sh runs it again on exit, for a test binary that was
# killed before its deferred teardown ran.
#
# Steps, after shared/kube/down.sh: kubelet; every container through ctr;
# containerd; shims and container processes still around (by pid, found
# by our socket path or our cgroups); mounts under $STATE; then the
# record in $STATE/host.before: sysctls, paths and cgroups that did not
# exist before. E2E_KEEP=1 keeps $STATE/logs for a look afterwards.
set -uo pipefail
STATE=${STATE:-/tmp/tend-e2e}
SOCK=$STATE/containerd.sock
case $STATE in /tmp/?*|/var/tmp/?*|/run/?*) ;; *) echo "teardown.sh: refusing STATE=$STATE" >&2; exit 2 ;; esac

alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

# stop_pid PIDFILE NAME: TERM, up to 20 s, then KILL.
stop_pid() {
  [ -f "$1" ] || return 0
  local pid i
  pid=$(cat "$1")
  if alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null
    for i in $(seq 100); do alive "$pid" || break; sleep 0.2; done
    alive "$pid" && { kill -KILL "$pid" 2>/dev/null; echo "killed $2 ($pid)"; } || echo "stopped $2 ($pid)"
  fi
  rm -f "$1"
}

# ours PID: is the process a shim of our containerd (its command line
# names our socket) or in the kubelet's or the preflight's cgroups? Bash
# builtins only: a fork per process is slow on a loaded machine.
ours() {
  local argv=() cg=""
  { mapfile -d '' -t argv < "/proc/$1/cmdline"; } 2>/dev/null || return 1
  [[ "${argv[*]}" == *"$SOCK"* ]] && return 0
  { read -r -d '' cg < "/proc/$1/cgroup"; } 2>/dev/null # stops at EOF with 1: cg holds the file
  [[ $cg =~ :/(kubepods|tend-e2e-preflight)(/|$'\n'|$) ]]
}

stop_pid "$STATE/kubelet.pid" kubelet

# Every task and container containerd still has (CRI's own ones included:
# the kubelet is gone, so nothing brings them back).
if [ -f "$STATE/containerd.pid" ] && alive "$(cat "$STATE/containerd.pid")"; then
  for ns in $(timeout 10 ctr -a "$SOCK" namespaces ls -q 2>/dev/null); do
    for t in $(timeout 10 ctr -a "$SOCK" -n "$ns" tasks ls -q 2>/dev/null); do
      timeout 10 ctr -a "$SOCK" -n "$ns" tasks kill -a -s KILL "$t" >/dev/null 2>&1 && echo "killed task $ns/$t"
      timeout 20 ctr -a "$SOCK" -n "$ns" tasks delete -f "$t" >/dev/null 2>&1
    done
    for c in $(timeout 10 ctr -a "$SOCK" -n "$ns" containers ls -q 2>/dev/null); do
      timeout 20 ctr -a "$SOCK" -n "$ns" containers delete "$c" >/dev/null 2>&1
    done
  done
fi
stop_pid "$STATE/containerd.pid" containerd
rm -f "$SOCK" "$SOCK.ttrpc"

# Anything still running that is ours: shims (their command line names our
# socket) and processes in the kubelet's or the preflight's cgroups.
for round in 1 2 3; do
  pids=()
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    [ "$pid" = $$ ] || ! ours "$pid" || pids+=("$pid")
  done
  [ ${#pids[@]} -eq 0 ] && break
  echo "killing leftover processes: ${pids[*]}"
  kill -KILL "${pids[@]}" 2>/dev/null
  sleep 0.5
done

# Mounts under our state dir (the kubelet's --root-dir, containerd's root
# and state, rootfs and volume mounts are all there), deepest first.
for round in 1 2 3; do
  mounts=$(awk '{print $5}' /proc/self/mountinfo | grep -F "$STATE/" | sort -r)
  [ -z "$mounts" ] && break
  for m in $mounts; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
    echo "unmounted $m"
  done
done

# The record of the host before the run: sysctls back, paths and cgroups
# that were absent removed (cgroups deepest first, with rmdir).
if [ -f "$STATE/host.before" ]; then
  while read -r kind rest; do
    case $kind in
      sysctl)
        cur=$(sysctl -n "${rest%%=*}" 2>/dev/null)
        [ "$cur" = "${rest#*=}" ] || { sysctl -q -w "$rest" && echo "restored $rest (was $cur)"; } ;;
      absent)
        [ -e "$rest" ] || continue
        case $rest in
          /sys/fs/cgroup/*)
            find "$rest" -depth -type d -exec rmdir {} \; 2>/dev/null
            [ -e "$rest" ] && echo "could not remove cgroup $rest" || echo "removed cgroup $rest" ;;
          *)
            rm -rf --one-file-system "$rest" && echo "removed $rest" ;;
        esac ;;
    esac
  done < "$STATE/host.before"
fi

if [ -n "${E2E_KEEP:-}" ]; then
  find "$STATE" -mindepth 1 -maxdepth 1 ! -name logs -exec rm -rf --one-file-system {} + 2>/dev/null
  echo "kept $STATE/logs (E2E_KEEP)"
else
  rm -rf --one-file-system "$STATE" 2>/dev/null
fi
[ -e "$STATE" ] && [ -z "${E2E_KEEP:-}" ] && { echo "teardown.sh: could not remove $STATE" >&2; exit 1; }
exit 0
