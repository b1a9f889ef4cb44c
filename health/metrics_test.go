package health

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func TestMetricsParse(t *testing.T) {
	s := startServer(t)
	var h Histogram
	h.Observe(0.2)
	s.Publish(&Status{
		Live: true, Ready: true, AppUp: false, AppExitCode: 3, Terminating: true, ZombiesReaped: 42,
		OOMKills: 4, OOMKillsKnown: true,
		SignalsForwarded: map[string]uint64{"SIGTERM": 1, "SIGUSR1": 7},
		HookRuns:         map[HookKey]uint64{{"post-start", "success"}: 1, {"pre-stop", "failure"}: 2},
		HookDurations:    map[string]Histogram{"post-start": h},
		ProbeResults:     map[ProbeKey]uint64{{"ready", "ready", "success"}: 5},
		Published:        time.Now(),
	})
	code, body := get(t, s, "GET", "/metrics")
	if code != 200 {
		t.Fatal(code)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("not valid exposition format: %v\n%s", err, body)
	}
	want := map[string]float64{
		"tend_app_up": 0, "tend_app_restarts_total": 0, "tend_app_exit_code": 3,
		"tend_zombies_reaped_total": 42, "tend_terminating": 1, "tend_oom_kills_total": 4,
	}
	for name, v := range want {
		f, ok := fams[name]
		if !ok || f.GetHelp() == "" {
			t.Fatalf("%s missing or without HELP", name)
		}
		m := f.GetMetric()[0]
		got := m.GetGauge().GetValue() + m.GetCounter().GetValue()
		if got != v {
			t.Errorf("%s = %v, want %v", name, got, v)
		}
	}
	for _, name := range []string{"tend_namespace_processes", "tend_namespace_zombies", "process_resident_memory_bytes", "process_open_fds", "process_start_time_seconds", "process_max_fds", "process_cpu_seconds_total", "tend_build_info"} {
		if _, ok := fams[name]; !ok {
			t.Errorf("%s missing", name)
		}
	}
	version := ""
	for _, l := range fams["tend_build_info"].GetMetric()[0].GetLabel() {
		if l.GetName() == "version" {
			version = l.GetValue()
		}
	}
	if version != "test" {
		t.Errorf("tend_build_info version %q, want \"test\" as Listen was given", version)
	}
	if rss := fams["process_resident_memory_bytes"].GetMetric()[0].GetGauge().GetValue(); rss < 1<<20 {
		t.Errorf("implausible RSS %v", rss)
	}
	sig := fams["tend_signals_forwarded_total"].GetMetric()
	if len(sig) != 2 || sig[1].GetLabel()[0].GetValue() != "SIGUSR1" || sig[1].GetCounter().GetValue() != 7 {
		t.Errorf("signals: %v", sig)
	}
	hist := fams["tend_hook_duration_seconds"].GetMetric()[0].GetHistogram()
	if hist.GetSampleCount() != 1 || hist.GetSampleSum() != 0.2 {
		t.Errorf("histogram: %v", hist)
	}
	if n := len(fams["tend_hook_runs_total"].GetMetric()); n != 2 {
		t.Errorf("hook runs: %d series", n)
	}
	if v := fams["tend_probe_results_total"].GetMetric()[0].GetCounter().GetValue(); v != 5 {
		t.Errorf("probe results %v", v)
	}
}

func TestMetricsEscaping(t *testing.T) {
	if got := labels("a", `x"y\z`+"\n"); got != `{a="x\"y\\z\n"}` {
		t.Fatalf("labels: %s", got)
	}
	var h Histogram
	h.Observe(0.001)
	h.Observe(100)
	if h.Count != 2 || h.Counts[0] != 1 || fmt.Sprint(h.Sum) != "100.001" {
		t.Fatalf("histogram %+v", h)
	}
}
