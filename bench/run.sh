#!/usr/bin/env bash
# bench/run.sh puts tend beside a Go floor (bench/floor: the least a Go PID 1
# with tend's dependencies costs), tini-static, dumb-init and catatonit, and
# prints one markdown table. `make bench` builds bin/tend and bin/fakeapp
# first; this builds the floor and bench/lat.c, and installs what is missing.
# Needs root (apt-get, unshare, kernel.pid_max, nice -20).
#
# Every figure is measured in each of ROUNDS rounds; a round runs every init
# for one figure before the next figure, starting with a different init each
# round. A cell is the median of the rounds' values, with their min–max.
#   start-up       hyperfine -N: `INIT true` minus bare `true` in the same
#                  round (-s for tend, tini and the floor: no "not PID 1"
#                  warning; catatonit sets the subreaper by itself); its CPU:
#                  hyperfine's mean user+system per run, minus `true`'s
#   memory, threads  /proc/PID/status of the init, PID 1 of a new PID
#                  namespace, 200 ms after the app (fakeapp sleep) started
#   Pss            smaps_rollup, 3 instances of the same init at once
#   page faults    minflt+majflt of `INIT true` itself at its exit (lat faults)
#   signal         lat sig: kill(init, SIGUSR1) to the app's ack on a pipe;
#                  its CPU: the init's schedstat over the signals, divided
#                  by their number
#   orphan storm   lat storm as the app, pinned: the init on CPU 0, the
#                  storm's forking on CPU 1; STORM_N zombies handed over at
#                  once. Wall: hand-over to zero zombies; CPU: the init's own
#                  (all threads, /proc/1/task/*/schedstat) over the same span
#   /readyz        tend only (and OLD), pinned: the init on CPU 0, the
#                  storm's forking and lat http on CPU 1: open loop at HTTP_RATE, a new
#                  connection each, latency from the due time; HTTP_N
#                  requests idle (the machine's own noise), then from the
#                  start to the end of a storm of STORM_N orphans; "reaping":
#                  only the requests due while the orphans were reaped
# OLD=path adds a second tend binary (e.g. the main branch's, built by
# `make bench BASE=main`) to every figure, interleaved like the others: an
# A/B in one run. Nothing asserts on timings; a step that fails leaves n/a.
set -uo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-5}
HF_RUNS=${HF_RUNS:-400}     # hyperfine runs per command per round
RSS_RUNS=${RSS_RUNS:-3}     # spawns per init per round (the round's median)
FAULT_RUNS=${FAULT_RUNS:-20}
STORM_N=${STORM_N:-10000}
STORM_RUNS=${STORM_RUNS:-1} # storms per init per round
SIG_N=${SIG_N:-2000}        # signals per init per round
HTTP_N=${HTTP_N:-2000}      # least /readyz requests per round
HTTP_RATE=${HTTP_RATE:-1000}

need=()
for p in tini-static:tini dumb-init:dumb-init catatonit:catatonit; do [ -x "/usr/bin/${p%%:*}" ] || need+=("${p#*:}"); done
for p in hyperfine jq gcc; do command -v $p >/dev/null || need+=($p); done
if [ ${#need[@]} -gt 0 ]; then
	sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
	echo "installing ${need[*]}" >&2
	$sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" libc6-dev >&2 ||
		{ echo "bench: apt-get install ${need[*]} failed" >&2; exit 1; }
fi
TEND=$(readlink -f bin/tend); FAKEAPP=$(readlink -f bin/fakeapp)
for b in "$TEND" "$FAKEAPP"; do [ -x "$b" ] || { echo "bench: $b missing; run make bench" >&2; exit 1; }; done
work=$(mktemp -d /tmp/tend-bench.XXXXXX)
old_pid_max=$(cat /proc/sys/kernel/pid_max); our_pid_max=
cleanup() { # put pid_max back unless someone else has changed it since
	[ -n "$our_pid_max" ] && [ "$(cat /proc/sys/kernel/pid_max)" = "$our_pid_max" ] && echo "$old_pid_max" >/proc/sys/kernel/pid_max
	rm -rf "$work"
}
trap cleanup EXIT
gcc -O2 -o "$work/lat" bench/lat.c || { echo "bench: gcc bench/lat.c failed" >&2; exit 1; }
# tend's build settings (packaging/gobuild.sh), so the floor links and runs
# as tend does.
VERSION= packaging/gobuild.sh -o "$work/floor" ./bench/floor ||
	{ echo "bench: packaging/gobuild.sh ./bench/floor failed" >&2; exit 1; }
LAT=$work/lat

INITS=(tend tini dumb cata floor)
declare -A BIN=([tend]=$TEND [tini]=/usr/bin/tini-static [dumb]=/usr/bin/dumb-init [cata]=/usr/bin/catatonit [floor]=$work/floor)
declare -A OPT=([tend]=-s [tini]=-s [floor]=-s [dumb]= [cata]= [old]=-s)
COLS=(tend floor tini dumb cata)
if [ -n "${OLD:-}" ]; then
	BIN[old]=$(readlink -f "$OLD"); [ -x "${BIN[old]}" ] || { echo "bench: OLD=$OLD is not executable" >&2; exit 1; }
	INITS+=(old); COLS=(tend old floor tini dumb cata)
fi
# Pinning: the init on INIT_CPU, the storm's forking on STORM_CPU, lat http
# on HTTP_CPU. A Go init pinned to one CPU gets GOMAXPROCS=1 from the
# runtime (it counts the CPUs in its affinity mask), which is what tend sets
# anyway. lat http shares the storm's CPU by default: the forking is over
# before the reaping starts, and a client on the init's CPU is late by the
# init's own reaping (CFS shares the CPU between them), which hides what
# the health server does.
INIT_CPU=${INIT_CPU:-0}; STORM_CPU=${STORM_CPU:-1}; HTTP_CPU=${HTTP_CPU:-$STORM_CPU}
PIN=(); HPIN=(); [ "$(nproc)" -ge 2 ] && PIN=(taskset -c "$INIT_CPU") HPIN=(taskset -c "$HTTP_CPU") || STORM_CPU=-1
NICE=(); [ "$(id -u)" = 0 ] && NICE=(nice -n -20) # every measured process alike
note() { echo "bench: $*" >&2; }
num() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }
put() { num "$3" && echo "$3" >>"$work/v.$1.$2"; } # put FIGURE INIT VALUE: one round's value
kv() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$2"; }
order() { local a=("$@") i; for ((i = 0; i < ${#a[@]}; i++)); do echo "${a[(i + r) % ${#a[@]}]}"; done; } # rotated by round r
APP_OUT=/dev/null; PINNED=()

# start_init CMD... runs `unshare -pf --mount-proc CMD` in the background and
# sets U (the job) and P (the init) once the init's child runs APP_EXE
# (fakeapp unless set).
start_init() {
	local app=${APP_EXE:-$FAKEAPP}
	timeout 900 "${NICE[@]}" "${PINNED[@]}" unshare -pf --mount-proc "$@" >"$APP_OUT" 2>"$work/init.err" &
	U=$!; P=
	local i c t
	for i in $(seq 1000); do
		t=$(cat /proc/$U/task/$U/children 2>/dev/null) # timeout's child: unshare
		[ -n "$t" ] && P=$(cat /proc/${t%% *}/task/${t%% *}/children 2>/dev/null) && P=${P%% *}
		if [ -n "$P" ]; then
			c=$(cat /proc/$P/task/*/children 2>/dev/null) # a Go init forks from any thread
			[ -n "$c" ] && [ "$(readlink /proc/${c%% *}/exe 2>/dev/null)" = "$app" ] && return 0
		fi
		sleep 0.01
	done
	note "$1: the app never started: $(head -c 300 "$work/init.err")"; return 1
}
# stop_init sends TERM to the init while it is still unshare's child (its pid
# cannot have been reused then), else to the job, and waits for the job.
ppid() { awk '{sub(/.*\) /, ""); print $2}' /proc/$1/stat 2>/dev/null; }
stop_init() {
	local t=$(cat /proc/$U/task/$U/children 2>/dev/null)
	if [ -n "$P" ] && [ -n "$t" ] && [ "$(ppid "$P")" = "${t%% *}" ]; then kill -TERM "$P"; else kill -TERM "$U"; fi 2>/dev/null
	wait "$U" 2>/dev/null
}

m_start() {
	local a=() n base i
	for n in $(order true "${INITS[@]}"); do
		if [ "$n" = true ]; then a+=(-n true /usr/bin/true); else a+=(-n "$n" "${BIN[$n]} ${OPT[$n]} -- /usr/bin/true"); fi
	done
	for i in 1 2 3; do # a fork can fail on a busy machine (EAGAIN): try again
		timeout 600 "${NICE[@]}" hyperfine -N --warmup 50 --runs "$HF_RUNS" --style none --export-json "$work/start.json" "${a[@]}" \
			>"$work/hf.log" 2>&1 && break
		note "hyperfine failed: $(tail -c 300 "$work/hf.log")"; [ $i = 3 ] && return
	done
	base=$(jq -r '.results[] | select(.command == "true") | .median' "$work/start.json")
	cbase=$(jq -r '.results[] | select(.command == "true") | .user + .system' "$work/start.json")
	for n in "${INITS[@]}"; do
		put start $n "$(jq -r --arg n $n --argjson b "$base" '.results[] | select(.command == $n) | (.median - $b) * 1e6' "$work/start.json")"
		put startcpu $n "$(jq -r --arg n $n --argjson b "$cbase" '.results[] | select(.command == $n) | (.user + .system - $b) * 1e6' "$work/start.json")"
	done
}
m_mem() { # RSS_RUNS spawns; the round's value is their median
	local n=$1 i
	: >"$work/mem"
	for i in $(seq "$RSS_RUNS"); do
		start_init "${BIN[$n]}" -- "$FAKEAPP" sleep 10s && sleep 0.2 &&
			awk '{v[$1] = $2} END {print v["RssAnon:"], v["RssFile:"], v["VmRSS:"], v["Threads:"]}' /proc/$P/status >>"$work/mem"
		stop_init
	done
	local f=(rssanon rssfile vmrss threads)
	for i in 1 2 3 4; do
		put ${f[i - 1]} $n "$(awk -v c=$i '{print $c}' "$work/mem" | sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]}')"
	done
}
m_pss() { # three instances at once; the value is Pss per instance
	local n=$1 i us=() ps=() ok=1
	for i in 1 2 3; do start_init "${BIN[$n]}" -- "$FAKEAPP" sleep 10s || ok=; us+=("$U"); ps+=("$P"); done
	sleep 0.2
	[ -n "$ok" ] && put pss $n "$(for P in "${ps[@]}"; do awk '/^Pss:/ {print $2}' /proc/$P/smaps_rollup; done | awk '{s += $1} END {if (NR == 3) printf "%.0f", s / 3}')"
	for i in 0 1 2; do U=${us[$i]} P=${ps[$i]} stop_init; done
}
m_faults() { put faults $1 "$(kv p50 "$("$LAT" faults "$FAULT_RUNS" -- "${BIN[$1]}" ${OPT[$1]} -- /usr/bin/true)")"; }
m_sig() {
	[ "$1" = floor ] && return # the floor forwards TERM and INT only
	local out; out=$(timeout 600 "${NICE[@]}" "$LAT" sig "$SIG_N" -- unshare -pf --mount-proc "${BIN[$1]}" -- "$LAT" recv)
	note "  signal $1: $out"; put sig50 $1 "$(kv p50_us "$out")"; put sig99 $1 "$(kv p99_us "$out")"; put sig.lost $1 "$(kv lost "$out")"
	put sigcpu $1 "$(awk -v ns="$(kv cpu_ns_per_sig "$out")" 'BEGIN {if (ns != "") printf "%.2f", ns / 1e3}')"
}
m_storm() {
	local i out
	for i in $(seq "$STORM_RUNS"); do
		out=$(timeout 900 "${NICE[@]}" "${PIN[@]}" unshare -pf --mount-proc "${BIN[$1]}" -- "$LAT" storm "$STORM_N" "$STORM_CPU" 2>"$work/storm.err")
		note "  storm $1: $out $(head -c 200 "$work/storm.err")"
		put storm $1 "$(awk -v ns="$("$LAT" godur "$(kv reaped "$out")")" 'BEGIN {if (ns >= 0) printf "%.1f", ns / 1e6}')"
		put stormcpu $1 "$(awk -v ns="$(kv cpu_ns "$out")" 'BEGIN {if (ns >= 0 && ns != "") printf "%.2f", ns / 1e6}')"
	done
}
m_ready() { # tend (and old) only: the storm runs once lat has warmed up, and lat runs until it ends
	local n=$1 lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range) port i out
	for i in 1 2 3; do # a port below the ephemeral range, which lat's clients fill
		port=$((10000 + RANDOM % (lo > 11000 ? lo - 10000 : 1000)))
		rm -f "$work/go"; : >"$work/done"
		# fakeapp's waitfor gives up after 10 s; three in a row wait up to 30 s
		PINNED=("${PIN[@]}") # an array cannot be a command's prefix assignment
		APP_OUT=$work/done APP_EXE=$LAT start_init "${BIN[$n]}" --health-addr "127.0.0.1:$port" -- \
			"$LAT" storm "$STORM_N" "$STORM_CPU" "$work/go" && { PINNED=(); break; }
		PINNED=()
		stop_init; grep -q 'in use' "$work/init.err" || return
	done
	[ -n "$P" ] || return
	for i in $(seq 200); do "$LAT" http 1 1000 $port /readyz | grep -q ' n=1 ' && break; sleep 0.02; done
	out=$(timeout 900 "${NICE[@]}" "${HPIN[@]}" "$LAT" http "$HTTP_N" "$HTTP_RATE" $port /readyz "$work/go" "$work/done")
	note "  /readyz $n: $out; $(cat "$work/done")"
	for i in idle_p50_us idle_p99_us p50_us p99_us max_us reap_p99_us reap_max_us reap_open_p99_us reap_open_max_us over50ms lost lag_p99_us lag_max_us; do put "ready.$i" $n "$(kv $i "$out")"; done
	stop_init
}

want=$((STORM_N * 2 + 10000)) # the orphans, and room for the rest of the machine
if [ "$old_pid_max" -lt "$want" ]; then
	echo "$want" >/proc/sys/kernel/pid_max 2>/dev/null && our_pid_max=$want || note "cannot raise kernel.pid_max to $want; storms may fail"
fi
load0=$(cut -d' ' -f1-3 /proc/loadavg); t0=$(date +%s)
for ((r = 0; r < ROUNDS; r++)); do
	note "round $((r + 1)) of $ROUNDS: start-up, memory, Pss, faults, signals, $STORM_N-orphan storms, /readyz"
	m_start
	for f in mem pss faults sig storm; do for n in $(order "${INITS[@]}"); do m_$f $n; done; done
	for n in $(order tend ${OLD:+old}); do m_ready $n; done
done

# --- report ---------------------------------------------------------------
# agg med|lo|hi FIGURE INIT: median, min, max of the rounds' values (or n/a)
agg() { [ -s "$work/v.$2.$3" ] && sort -g "$work/v.$2.$3" | awk -v w=$1 '{v[NR] = $1} END {
	m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	printf "%.10g\n", (w == "med" ? m : w == "lo" ? v[1] : v[NR]) }' || echo n/a; }
calc() { awk "BEGIN {printf \"%.2f\", $*}"; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a < b)}'; }
total() { cat "$work"/v.$1.* 2>/dev/null | awk '{s += $1} END {print s + 0}'; }
cell() { # cell FIGURE INIT FORMAT
	local m=$(agg med "$1" "$2"); num "$m" || { echo —; return; }
	printf "$3 ($3–$3)" "$m" "$(agg lo "$1" "$2")" "$(agg hi "$1" "$2")"
}
bestc() { # the lowest median of the C inits; for size, of the static ones
	local n b=n/a m
	for n in tini dumb cata; do
		m=$(agg med "$1" $n); [ "$1" = size ] && [ -n "${DYN[$n]:-}" ] && continue
		num "$m" && { ! num "$b" || lt "$m" "$b"; } && b=$m
	done
	echo "$b"
}
ratio() { num "$1" && num "$2" && lt 0 "$2" && echo "$(calc "$1 / $2")×" || echo —; }
# verdict VALUE LIMIT TEXT: "TEXT: met" when VALUE <= LIMIT, else missed by VALUE/LIMIT
verdict() {
	num "$1" && num "$2" && lt 0 "$2" || { echo "$3: n/a"; return; }
	lt "$2" "$1" && echo "$3: missed by $(calc "$1 / $2")×" || echo "$3: met"
}
row() { # row LABEL FIGURE FORMAT TARGET
	local t=$(agg med "$2" tend) line="| $1 |" n
	for n in "${COLS[@]}"; do line+=" $(cell "$2" $n "$3") |"; done
	echo "$line $(ratio "$t" "$(agg med "$2" floor)") | $(ratio "$t" "$(bestc "$2")") | $4 |"
}
tf() { verdict "$(agg med "$1" tend)" "$(calc "$(agg med "$1" floor) * $2" 2>/dev/null)" "≤ $2× floor"; }
declare -A DYN NAME=([tend]=tend [old]="tend (old)" [floor]="Go floor" [tini]=tini-static [dumb]=dumb-init [cata]=catatonit)
for n in "${INITS[@]}"; do # stripped size: one value, no rounds
	cp "${BIN[$n]}" "$work/size" && strip "$work/size" 2>/dev/null && stat -c %s "$work/size" >"$work/v.size.$n"
	readelf -l "${BIN[$n]}" 2>/dev/null | grep -q 'program interpreter' && DYN[$n]=", dynamic"
done
size() { num "$(agg med size $1)" && echo "$(calc "$(agg med size $1) / 1048576") MiB${DYN[$1]:-}" || echo n/a; }
maxall() { [ -s "$work/v.$1.tend" ] && sort -g "$work/v.$1.tend" | tail -1 || echo n/a; }

cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
echo
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: nproc $(nproc), kernel $(uname -r), ${cpu:-unknown cpu}; load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end; $(( ($(date +%s) - t0) / 60 )) min"
echo "versions: $("$TEND" --version 2>&1 | head -1); $(/usr/bin/tini-static --version 2>&1 | head -1); $(/usr/bin/dumb-init --version 2>&1 | head -1); catatonit $(/usr/bin/catatonit -V 2>&1 | awk '{print $NF}'); floor built with $(go env GOVERSION)"
echo "each cell: median (min–max) of $ROUNDS rounds; ratios of medians; best C: the lowest of tini-static, dumb-init and catatonit${OLD:+; tend (old): $OLD, $("${BIN[old]}" --version 2>&1 | head -1)}"
if [ ${#PIN[@]} -gt 0 ]; then
	echo "pinning: storms and /readyz: the init on CPU $INIT_CPU (taskset; a Go init's GOMAXPROCS is then 1), the storm's spawner on CPU $STORM_CPU (sched_setaffinity), lat http on CPU $HTTP_CPU; start-up, memory and signals unpinned"
else
	echo "pinning: none (fewer than 2 CPUs)"
fi
echo "CPU figures: start-up from hyperfine's user+system per run; storm and signal from the init's /proc/PID/task/*/schedstat (all threads)"
echo
hdr="| figure |"; sep="|---|"
for n in "${COLS[@]}"; do hdr+=" ${NAME[$n]} |"; sep+="---|"; done
echo "$hdr tend/floor | tend/best C | target |"; echo "$sep---|---|---|"
row "start-up overhead, µs (hyperfine median of $HF_RUNS minus bare \`true\`)" start %.0f —
row "start-up CPU, µs (user+system per run minus bare \`true\`'s)" startcpu %.0f "$(tf startcpu 1.1)"
row "RssAnon as PID 1, KiB (median of $RSS_RUNS a round)" rssanon %.0f "$(tf rssanon 1.1)"
row "RssFile as PID 1, KiB" rssfile %.0f —
row "VmRSS as PID 1, KiB" vmrss %.0f —
row "Pss per instance, 3 at once, KiB" pss %.0f —
row "OS threads as PID 1" threads %.0f "$(verdict "$(agg med threads tend)" "$(calc "$(agg med threads floor) + 2" 2>/dev/null)" "≤ floor + 2")"
row "page faults per start, minflt+majflt (median of $FAULT_RUNS)" faults %.0f —
row "signal forwarding p50, µs ($SIG_N a round; lost in all: $(total sig.lost); the floor forwards TERM, INT only)" sig50 %.1f —
row "signal forwarding p99, µs" sig99 %.1f "$(verdict "$(agg med sig99 tend)" "$(calc "$(agg med sig99 tini) * 1.5" 2>/dev/null)" "≤ 1.5× tini-static")"
row "init's CPU per forwarded signal, µs" sigcpu %.2f —
row "$STORM_N-orphan storm as PID 1, pinned, hand-over to 0 zombies, ms ($STORM_RUNS a round)" storm %.1f —
row "init's CPU in the storm, ms (all threads, hand-over to 0 zombies)" stormcpu %.1f "$(verdict "$(agg med stormcpu tend)" "$(bestc stormcpu)" "≤ 1.0× best C")"
row "/readyz p50 idle, $HTTP_RATE req/s open loop, µs ($HTTP_N a round)" ready.idle_p50_us %.1f —
row "/readyz p99 idle, µs" ready.idle_p99_us %.1f —
row "/readyz p50 during a $STORM_N-orphan storm, µs (spawn to 0 zombies)" ready.p50_us %.1f —
row "/readyz p99 during the storm, µs" ready.p99_us %.1f "$(verdict "$(agg med ready.p99_us tend)" 5000 "≤ 5 ms")"
row "/readyz max during the storm, µs" ready.max_us %.1f "$(verdict "$(maxall ready.max_us)" 50000 "none over 50 ms (max of all rounds)")"
row "/readyz p99 while reaping, µs" ready.reap_p99_us %.1f —
row "/readyz max while reaping, µs" ready.reap_max_us %.1f —
row "/readyz p99 while reaping, from lat's opening of the connection, µs (lat's lateness left out)" ready.reap_open_p99_us %.1f —
row "/readyz max while reaping, from lat's opening, µs" ready.reap_open_max_us %.1f —
row "lat's own lateness opening connections in the storm, p99, µs (the machine, not tend)" ready.lag_p99_us %.1f —
row "lat's own lateness in the storm, max, µs" ready.lag_max_us %.1f —
row "/readyz requests over 50 ms in the storm, a round (failed in all: $(total ready.lost))" ready.over50ms %.0f —
line="| stripped binary size, MiB |"; for n in "${COLS[@]}"; do line+=" $(size $n) |"; done
echo "$line $(ratio "$(agg med size tend)" "$(agg med size floor)") | $(ratio "$(agg med size tend)" "$(bestc size)") (static C) | $(verdict "$(agg med size tend)" $((13 * 524288)) "≤ 6.5 MiB") |"
exit 0
