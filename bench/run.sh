#!/usr/bin/env bash
# bench/run.sh compares tend with tini-static and dumb-init in one run and
# prints a markdown table. `make bench` builds bin/tend and bin/fakeapp first;
# this installs tini, dumb-init and hyperfine (and jq, gcc) when missing.
# Needs root (apt-get, unshare, kernel.pid_max, nice -20); takes 3-4 minutes.
#
# Rows, each a median unless it says otherwise:
#   start-up overhead  hyperfine -N: `INIT true` minus bare `true`. tend and
#                      tini-static get -s (subreaper), which silences their
#                      "not PID 1" warning; dumb-init has no such warning.
#   VmRSS              of the init, 200 ms after the app (fakeapp sleep) has
#                      started, as PID 1 of a new PID namespace
#   orphan storm       fakeapp storm 10000 as PID 1: its reaped= figure, from
#                      the orphans being handed over to zero zombies
#   signal latency     bench/lat.c: kill(init, SIGUSR1) to the app's ack over
#                      a pipe (the app blocks USR1 and uses sigwaitinfo)
#   /readyz latency    tend only, --health-addr; one connection per request
#   stripped size      `strip` of a copy of each binary
# Nothing here asserts on timings: a step that fails prints n/a.
set -uo pipefail
cd "$(dirname "$0")/.."

HF_RUNS=${HF_RUNS:-400}     # hyperfine runs per command
RSS_RUNS=${RSS_RUNS:-5}
STORM_N=${STORM_N:-10000}
STORM_RUNS=${STORM_RUNS:-3}
SIG_N=${SIG_N:-2000}        # signals per init
HTTP_N=${HTTP_N:-2000}      # /readyz requests, at HTTP_RATE per second
HTTP_RATE=${HTTP_RATE:-1000}

# --- packages -------------------------------------------------------------
need=()
[ -x /usr/bin/tini-static ] || need+=(tini)
[ -x /usr/bin/dumb-init ] || need+=(dumb-init)
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v jq >/dev/null || need+=(jq)
command -v gcc >/dev/null || need+=(gcc libc6-dev)
if [ ${#need[@]} -gt 0 ]; then
	sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
	echo "installing ${need[*]}" >&2
	$sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >&2 ||
		{ echo "bench: apt-get install ${need[*]} failed" >&2; exit 1; }
fi

TEND=$(readlink -f bin/tend); FAKEAPP=$(readlink -f bin/fakeapp)
TINI=/usr/bin/tini-static; DUMB=/usr/bin/dumb-init
for b in "$TEND" "$FAKEAPP"; do
	[ -x "$b" ] || { echo "bench: $b missing; run make bench" >&2; exit 1; }
done
NAMES=(tend tini dumb)
declare -A BIN=([tend]=$TEND [tini]=$TINI [dumb]=$DUMB)

work=$(mktemp -d /tmp/tend-bench.XXXXXX)
old_pid_max=$(cat /proc/sys/kernel/pid_max)
cleanup() {
	[ "$(cat /proc/sys/kernel/pid_max)" = "$old_pid_max" ] || echo "$old_pid_max" >/proc/sys/kernel/pid_max
	rm -rf "$work"
}
trap cleanup EXIT
gcc -O2 -o "$work/lat" bench/lat.c || { echo "bench: gcc bench/lat.c failed" >&2; exit 1; }
LAT=$work/lat
# Other work on the machine skews sub-millisecond timings; as root, the
# measured processes get nice -20 (every init alike).
NICE=(); [ "$(id -u)" = 0 ] && NICE=(nice -n -20)
declare -A R # results, "row.init"
note() { echo "bench: $*" >&2; }

median() { sort -g | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]; else print "n/a"}'; }
medfile() { if [ -s "$1" ]; then median <"$1"; else echo n/a; fi; }

# godur prints a Go duration (1.5s, 288.2ms, 950µs) in milliseconds.
godur() {
	awk -v d="$1" 'BEGIN {
		n = split("h m s ms µs us ns", u, " "); split("3600000 60000 1000 1 0.001 0.001 0.000001", f, " ")
		t = 0
		while (match(d, /^[0-9.]+(h|ms|m|s|µs|us|ns)/)) {
			tok = substr(d, 1, RLENGTH); d = substr(d, RLENGTH + 1)
			match(tok, /[0-9.]+/); num = substr(tok, 1, RLENGTH); unit = substr(tok, RLENGTH + 1)
			for (i = 1; i <= n; i++) if (u[i] == unit) t += num * f[i]
		}
		printf "%.1f\n", t }'
}

# spawn_init starts `unshare -pf --mount-proc INIT ARGS... -- fakeapp sleep
# 10s` in the background and sets U (unshare) and P (the init) once the
# init's child runs fakeapp.
spawn_init() {
	local init=$1; shift
	timeout 20 "${NICE[@]}" unshare -pf --mount-proc "$init" "$@" -- "$FAKEAPP" sleep 10s >/dev/null 2>"$work/init.err" &
	U=$!; P=
	local i c tpid
	for i in $(seq 500); do
		tpid=$(cat /proc/$U/task/$U/children 2>/dev/null) # timeout's child: unshare
		[ -n "$tpid" ] && P=$(cat /proc/${tpid%% *}/task/${tpid%% *}/children 2>/dev/null) && P=${P%% *}
		if [ -n "$P" ]; then
			c=$(cat /proc/$P/task/*/children 2>/dev/null) # a Go init forks from any thread
			[ -n "$c" ] && [ "$(readlink /proc/${c%% *}/exe 2>/dev/null)" = "$FAKEAPP" ] && return 0
		fi
		sleep 0.01
	done
	return 1
}
stop_init() {
	[ -n "$P" ] && kill -TERM "$P" 2>/dev/null
	wait "$U" 2>/dev/null
}

# --- start-up overhead ------------------------------------------------------
note "start-up overhead: hyperfine, $HF_RUNS runs each"
if timeout 240 "${NICE[@]}" hyperfine -N --warmup 50 --runs "$HF_RUNS" --style none --export-json "$work/start.json" \
	-n true /usr/bin/true \
	-n tend "$TEND -s -- /usr/bin/true" \
	-n tini "$TINI -s -- /usr/bin/true" \
	-n dumb "$DUMB /usr/bin/true" >"$work/hyperfine.log" 2>&1; then
	base=$(jq -r '.results[] | select(.command == "true") | .median' "$work/start.json")
	for n in "${NAMES[@]}"; do
		R[start.$n]=$(jq -r --arg n "$n" --argjson b "$base" '.results[] | select(.command == $n) | (.median - $b) * 1e6 | . * 10 | round / 10' "$work/start.json")
	done
	R[start.base]=$(awk -v b="$base" 'BEGIN {printf "%.0f", b * 1e6}')
else
	note "hyperfine failed:"; cat "$work/hyperfine.log" >&2
fi

# --- VmRSS ----------------------------------------------------------------
note "VmRSS: $RSS_RUNS runs each"
for r in $(seq "$RSS_RUNS"); do
	for n in "${NAMES[@]}"; do
		if spawn_init "${BIN[$n]}"; then
			sleep 0.2
			awk '/^VmRSS:/ {print $2}' /proc/$P/status >>"$work/rss.$n"
		else
			note "$n: app never started: $(head -c 300 "$work/init.err")"
		fi
		stop_init
	done
done
for n in "${NAMES[@]}"; do R[rss.$n]=$(medfile "$work/rss.$n"); done

# --- orphan storm ---------------------------------------------------------
# Every orphan is a Go process with about 4 threads, each taking a pid: the
# default pid_max of 32768 is too small for 10,000 of them.
want=$((STORM_N * 8 + 10000))
if [ "$old_pid_max" -lt "$want" ]; then
	echo "$want" >/proc/sys/kernel/pid_max 2>/dev/null || note "cannot raise kernel.pid_max to $want; the storm may fail"
fi
note "storm of $STORM_N orphans: $STORM_RUNS runs each (the slow part)"
for r in $(seq "$STORM_RUNS"); do
	for n in "${NAMES[@]}"; do
		out=$(timeout 120 "${NICE[@]}" unshare -pf --mount-proc "${BIN[$n]}" -- "$FAKEAPP" storm "$STORM_N" 2>"$work/storm.err")
		d=$(sed -n 's/.* reaped=\([^ ]*\).*/\1/p' <<<"$out")
		if [ -n "$d" ]; then
			godur "$d" >>"$work/storm.$n"
			note "  $n: $out"
		else
			note "  $n: no result: $out $(head -c 300 "$work/storm.err")"
		fi
	done
done
for n in "${NAMES[@]}"; do R[storm.$n]=$(medfile "$work/storm.$n"); done
[ "$(cat /proc/sys/kernel/pid_max)" = "$old_pid_max" ] || echo "$old_pid_max" >/proc/sys/kernel/pid_max

# --- signal forwarding ----------------------------------------------------
note "signal forwarding: $SIG_N signals each"
for n in "${NAMES[@]}"; do
	out=$(timeout 60 "${NICE[@]}" "$LAT" sig "$SIG_N" -- unshare -pf --mount-proc "${BIN[$n]}" -- "$LAT" recv)
	note "  $n: $out"
	R[sig50.$n]=$(sed -n 's/.*p50_us=\([^ ]*\).*/\1/p' <<<"$out")
	R[sig99.$n]=$(sed -n 's/.*p99_us=\([^ ]*\).*/\1/p' <<<"$out")
	R[sign.$n]=$(sed -n 's/.* n=\([^ ]*\).*/\1/p' <<<"$out")
done

# --- /readyz (tend only) --------------------------------------------------
note "/readyz: $HTTP_N requests at $HTTP_RATE/s"
R[ready50.tend]=n/a; R[ready99.tend]=n/a; ready_note="tend rejects --health-addr"
for try in 1 2 3; do
	port=$((20000 + RANDOM % 30000))
	if ! "$TEND" --health-addr "127.0.0.1:$port" -- /usr/bin/true >/dev/null 2>"$work/health.err"; then
		grep -qi 'in use' "$work/health.err" && continue
		note "tend --health-addr: $(head -c 300 "$work/health.err")"
		break
	fi
	ready_note="port $port never answered"
	if spawn_init "$TEND" --health-addr "127.0.0.1:$port"; then
		for i in $(seq 200); do
			"$LAT" http 1 1000 "$port" /readyz | grep -q ' n=1 ' && break
			sleep 0.02
		done
		out=$(timeout 60 "${NICE[@]}" "$LAT" http "$HTTP_N" "$HTTP_RATE" "$port" /readyz)
		note "  tend: $out"
		R[ready50.tend]=$(sed -n 's/.*p50_us=\([^ ]*\).*/\1/p' <<<"$out")
		R[ready99.tend]=$(sed -n 's/.*p99_us=\([^ ]*\).*/\1/p' <<<"$out")
		ready_note="$(sed -n 's/.* \(n=[0-9]*\) \(lost=[0-9]*\).*/\1, \2/p' <<<"$out")"
	fi
	stop_init
	break
done

declare -A DYN=([tend]= [tini]= [dumb]=)
# --- stripped size --------------------------------------------------------
for n in "${NAMES[@]}"; do
	cp "${BIN[$n]}" "$work/size.$n" && strip "$work/size.$n" 2>/dev/null
	R[size.$n]=$(stat -c %s "$work/size.$n" 2>/dev/null || echo n/a)
	readelf -l "${BIN[$n]}" 2>/dev/null | grep -q 'program interpreter' && DYN[$n]=" dynamic"
done

# --- report ---------------------------------------------------------------
num() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }
ratio() { if num "$1" && num "$2" && [ "$(awk -v b="$2" 'BEGIN {print (b != 0)}')" = 1 ]; then awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a / b}'; else echo "—"; fi; }
cell() { local v=${R[$1.$2]:-n/a}; [ -z "$v" ] && v=n/a; echo "$v"; }
row() { # row LABEL KEY
	local t=$(cell "$2" tend) i=$(cell "$2" tini) d=$(cell "$2" dumb)
	echo "| $1 | $t | $i | $d | $(ratio "$t" "$i") | $(ratio "$d" "$i") |"
}
mib() { num "$1" && awk -v b="$1" 'BEGIN {printf "%d B (%.2f MiB)", b, b / 1048576}' || echo "$1"; }
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
[ -n "$cpu" ] || cpu=$(lscpu 2>/dev/null | awk -F': *' '/Model name/ {print $2; exit}')

echo
echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
echo "kernel: $(uname -r)"
echo "cpu: ${cpu:-unknown}"
echo "nproc: $(nproc)"
echo "versions: $("$TEND" --version 2>&1 | head -1); $("$TINI" --version 2>&1 | head -1); $("$DUMB" --version 2>&1 | head -1)"
echo
echo "| metric | tend | tini-static | dumb-init | tend / tini-static | dumb-init / tini-static |"
echo "|---|---|---|---|---|---|"
row "start-up overhead, µs (median of $HF_RUNS, minus bare \`true\` = ${R[start.base]:-n/a} µs; -s for tend and tini)" start
row "VmRSS of the init while the app sleeps, KiB (median of $RSS_RUNS)" rss
row "$STORM_N-orphan storm as PID 1, hand-over to 0 zombies, ms (median of $STORM_RUNS)" storm
row "signal forwarding p50, µs (kill to app ack, n=$(cell sign tend)/$(cell sign tini)/$(cell sign dumb))" sig50
row "signal forwarding p99, µs" sig99
echo "| /readyz p50 at $HTTP_RATE req/s, µs (tend only; $ready_note) | $(cell ready50 tend) | — | — | — | — |"
echo "| /readyz p99 at $HTTP_RATE req/s, µs | $(cell ready99 tend) | — | — | — | — |"
echo "| stripped binary size | $(mib "$(cell size tend)")${DYN[tend]} | $(mib "$(cell size tini)")${DYN[tini]} | $(mib "$(cell size dumb)")${DYN[dumb]} | $(ratio "$(cell size tend)" "$(cell size tini)") | $(ratio "$(cell size dumb)" "$(cell size tini)") |"
exit 0
