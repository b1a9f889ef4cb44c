package health

import (
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// metrics renders st, plus figures read from /proc (the namespace's through
// procs, at most a second old), in the Prometheus text exposition format
// 0.0.4. It is written by hand so that no client library ships in the binary.
func metrics(st *Status, procs *procCache, version string) string {
	if st == nil {
		st = &Status{AppExitCode: -1}
	}
	var b strings.Builder
	m := func(name, typ, help string) {
		fmt.Fprintf(&b, "# HELP tend_%s %s\n# TYPE tend_%s %s\n", name, help, name, typ)
	}
	v := func(name, labels string, val float64) {
		fmt.Fprintf(&b, "tend_%s%s %s\n", name, labels, strconv.FormatFloat(val, 'g', -1, 64))
	}
	m("app_up", "gauge", "Whether the app process is running (1) or not (0).")
	v("app_up", "", b2f(st.AppUp))
	m("app_restarts_total", "counter", "Times tend restarted the app (tend never does, yet).")
	v("app_restarts_total", "", 0)
	if st.AppExitCode >= 0 {
		m("app_exit_code", "gauge", "The app's exit code, with 128+N for a death by signal N.")
		v("app_exit_code", "", float64(st.AppExitCode))
	}
	m("zombies_reaped_total", "counter", "Processes other than the app and hooks that tend reaped.")
	v("zombies_reaped_total", "", float64(st.ZombiesReaped))
	if st.OOMKillsKnown {
		m("oom_kills_total", "counter", "Processes the kernel's OOM killer killed in tend's memory cgroup (its oom_kill count).")
		v("oom_kills_total", "", float64(st.OOMKills))
	}
	if st.ReloadOn {
		m("reloads_total", "counter", "Reloads begun because a --reload-on file's bytes changed (the reload signal sent, or the reload action started).")
		v("reloads_total", "", float64(st.Reloads))
	}
	m("signals_forwarded_total", "counter", "Signals forwarded to the app, by signal.")
	for _, k := range sortedKeys(st.SignalsForwarded) {
		v("signals_forwarded_total", labels("signal", k), float64(st.SignalsForwarded[k]))
	}
	m("hook_runs_total", "counter", "Lifecycle hook runs, by hook and result.")
	for _, k := range sortedBy(st.HookRuns, func(k HookKey) string { return k.Hook + "\x00" + k.Result }) {
		v("hook_runs_total", labels("hook", k.Hook, "result", k.Result), float64(st.HookRuns[k]))
	}
	m("hook_duration_seconds", "histogram", "How long lifecycle hooks ran, by hook.")
	for _, name := range sortedKeys(st.HookDurations) {
		h := st.HookDurations[name]
		var cum uint64
		for i, le := range BucketBounds() {
			cum += h.Counts[i]
			v("hook_duration_seconds_bucket", labels("hook", name, "le", strconv.FormatFloat(le, 'g', -1, 64)), float64(cum))
		}
		v("hook_duration_seconds_bucket", labels("hook", name, "le", "+Inf"), float64(h.Count))
		v("hook_duration_seconds_sum", labels("hook", name), h.Sum)
		v("hook_duration_seconds_count", labels("hook", name), float64(h.Count))
	}
	m("probe_results_total", "counter", "App probe attempts, by probe and result.")
	for _, k := range sortedBy(st.ProbeResults, func(k ProbeKey) string { return k.Probe + "\x00" + k.Kind + "\x00" + k.Result }) {
		v("probe_results_total", labels("probe", k.Probe, "kind", k.Kind, "result", k.Result), float64(st.ProbeResults[k]))
	}
	m("probe_up", "gauge", "Whether each check passes (1) or not (0), by check name and kind.")
	for _, c := range st.Checks {
		v("probe_up", labels("probe", c.Name, "kind", c.Kind), b2f(c.Up))
	}
	m("terminating", "gauge", "Whether a stop has begun (1) or not (0).")
	v("terminating", "", b2f(st.Terminating))
	procMetrics(procs, m, v)
	buildInfo(&b, version)
	selfMetrics(&b)
	return b.String()
}

// procMetrics adds what /proc says about the namespace and about tend.
// A figure that cannot be read is left out rather than reported as zero.
func procMetrics(procs *procCache, m func(name, typ, help string), v func(name, labels string, val float64)) {
	if n, ok := procs.get(); ok {
		m("namespace_processes", "gauge", "Processes in tend's PID namespace, as /proc shows them.")
		v("namespace_processes", "", float64(n.procs))
		m("namespace_zombies", "gauge", "Zombie processes in tend's PID namespace.")
		v("namespace_zombies", "", float64(n.zombies))
	}
}

// selfMetrics adds tend's own process figures under the names Prometheus'
// client libraries use (process_*, no tend_ prefix), so that stock
// dashboards work. They cost a few small reads, so they stay exact.
func selfMetrics(b *strings.Builder) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return
	}
	self, err := fs.Self()
	if err != nil {
		return
	}
	m := func(name, typ, help string, val float64) {
		fmt.Fprintf(b, "# HELP %s %s\n# TYPE %s %s\n%s %s\n", name, help, name, typ, name, strconv.FormatFloat(val, 'g', -1, 64))
	}
	if st, err := self.Stat(); err == nil {
		m("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", st.CPUTime())
		m("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", float64(st.ResidentMemory()))
		m("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", float64(st.VirtualMemory()))
		if start, err := st.StartTime(); err == nil {
			m("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.", start)
		}
	}
	if n, err := self.FileDescriptorsLen(); err == nil {
		m("process_open_fds", "gauge", "Number of open file descriptors.", float64(n))
	}
	if l, err := self.Limits(); err == nil {
		m("process_max_fds", "gauge", "Maximum number of open file descriptors.", float64(l.OpenFiles))
	}
}

// buildInfo is tend_build_info, the usual way to export a version: the one
// the User-Agent of tend's probes carries (probe.UserAgent), so that a
// scrape and a probe request name the same tend.
func buildInfo(b *strings.Builder, version string) {
	fmt.Fprintf(b, "# HELP tend_build_info tend's version and the Go version it was built with.\n# TYPE tend_build_info gauge\ntend_build_info%s 1\n",
		labels("version", version, "goversion", runtime.Version()))
}

// labels renders {k="v",...}, escaping values as the format requires.
func labels(kv ...string) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
		fmt.Fprintf(&b, `%s="%s"`, kv[i], r.Replace(kv[i+1]))
	}
	b.WriteByte('}')
	return b.String()
}

// sortedBy returns m's keys ordered by key, so that scrapes are stable.
func sortedBy[K comparable, V any](m map[K]V, key func(K) string) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	return sortedBy(m, func(k string) string { return k })
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
