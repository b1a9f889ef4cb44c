package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TestLivenessRestart is check 2: tend's liveness probe finds the app
// dead, tend stops it and exits 75 with a termination message, and the
// kubelet restarts the container and shows that message.
func TestLivenessRestart(t *testing.T) {
	c := need(t)
	const port = 18120
	portsFree(t, port)
	url := fmt.Sprintf("http://127.0.0.1:%d/healthz", port)
	pod := newPod("liveness", 10, newContainer("app", imgTools, nil,
		"/tend", "--live-probe", url, "--live-probe-period", "500ms", "--live-probe-failure-threshold", "2",
		"--", "/app", "serve", "--port", fmt.Sprint(port), "--sick-after", "2s"))
	events := c.apply(t, pod)
	p := c.waitPod(t, pod.Name, "restarted twice after tend's exit 75", 3*time.Minute, func(p *corev1.Pod) bool {
		s := container(p, "app")
		last := s.LastTerminationState.Terminated
		return s.RestartCount >= 2 && last != nil && last.ExitCode == 75
	})
	last := container(p, "app").LastTerminationState.Terminated
	want := "liveness probe failed 2 times in a row: " + url
	if !strings.Contains(last.Message, want) {
		t.Errorf("lastState.terminated.message = %q, want tend's %q...", last.Message, want)
	}
	// tend stopped the app (TERM) before it exited 75.
	c.waitEvent(t, events, fmt.Sprintf("app:%d", port), "got SIGTERM", 10*time.Second)
}

// startupCase is one pod of check 3: the same startup probe, given to tend
// as flags or to the kubelet as startupProbe fields.
type startupCase struct {
	name         string
	port         int
	byTend       bool
	healthyAfter string // when the app's /healthz starts to pass
	threshold    int32  // failureThreshold, at a 1 s period
	restarts     bool   // expected: restarted for failing its startup probe
}

func (s startupCase) pod() *corev1.Pod {
	url := fmt.Sprintf("http://127.0.0.1:%d/healthz", s.port)
	app := []string{"/app", "serve", "--port", fmt.Sprint(s.port), "--healthy-after", s.healthyAfter}
	if !s.byTend {
		ct := newContainer("app", imgTools, nil, append([]string{"/tend", "--"}, app...)...)
		ct.StartupProbe = &corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Host: "127.0.0.1", Port: intstr.FromInt32(int32(s.port)), Path: "/healthz"}},
			PeriodSeconds: 1, FailureThreshold: s.threshold, TimeoutSeconds: 1,
		}
		return newPod(s.name, 10, ct)
	}
	// tend's health server shows the startup check's state (/livez?verbose).
	return newPod(s.name, 10, newContainer("app", imgTools, nil,
		append([]string{"/tend", "--health-addr", fmt.Sprintf("127.0.0.1:%d", s.port+100),
			"--startup-probe", url, "--startup-probe-period", "1s", "--startup-probe-timeout", "1s",
			"--startup-probe-failure-threshold", fmt.Sprint(s.threshold), "--"}, app...)...))
}

// TestStartupProbeParity is check 3: a startup probe with a 1 s period,
// expressed once through tend's flags and once as the kubelet's own
// fields, gives the same outcome: with a failure threshold of 3 an app
// that never becomes healthy is restarted after about 3 s, both ways;
// with a threshold of 12 an app healthy after 4 s is never restarted.
func TestStartupProbeParity(t *testing.T) {
	c := need(t)
	cases := []startupCase{
		{"startup-tend-fail", 18131, true, "1h", 3, true},
		{"startup-kubelet-fail", 18132, false, "1h", 3, true},
		{"startup-tend-slow", 18133, true, "4s", 12, false},
		{"startup-kubelet-slow", 18134, false, "4s", 12, false},
	}
	for _, s := range cases {
		portsFree(t, s.port, s.port+100)
	}
	for _, s := range cases {
		c.apply(t, s.pod())
	}
	// The four pods run at once; each is watched in its own goroutine and
	// reports back here, where the test fails (t.Fatal belongs to the
	// test's own goroutine).
	var wg sync.WaitGroup
	errs := make([]error, len(cases))
	lives := make([]time.Duration, len(cases))
	for i, s := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lives[i], errs[i] = c.watchStartup(s)
		}()
	}
	wg.Wait()
	for i, s := range cases {
		if errs[i] != nil {
			t.Errorf("%s: %v", s.name, errs[i])
		}
	}
	if t.Failed() {
		t.Fatal(c.diag("startup-"))
	}
	t.Logf("first attempt lived %s (tend's probe) and %s (the kubelet's)", lives[0], lives[1])
}

// watchStartup waits for a startup case's expected outcome and returns
// how long the first attempt lived when it was restarted.
func (c *cluster) watchStartup(s startupCase) (time.Duration, error) {
	var p *corev1.Pod
	read := func() (corev1.ContainerStatus, bool) {
		var err error
		if p, err = c.pod(s.name); err != nil || p == nil {
			return corev1.ContainerStatus{}, false
		}
		return container(p, "app"), true
	}
	if s.restarts {
		var st corev1.ContainerStatus
		err := poll(2*time.Minute, func() (bool, error) {
			var ok bool
			st, ok = read()
			return ok && st.RestartCount >= 1 && st.LastTerminationState.Terminated != nil, nil
		})
		if err != nil {
			return 0, fmt.Errorf("no restart for a failed startup probe: %v\n%s", err, describe(p))
		}
		last := st.LastTerminationState.Terminated
		life := last.FinishedAt.Sub(last.StartedAt.Time)
		// 3 failures 1 s apart: about 2-3 s; timestamps have 1 s
		// resolution, and the kubelet adds its own jitter and grace.
		if life < time.Second || life > 15*time.Second {
			return life, fmt.Errorf("the first attempt lived %s; 3 failures 1 s apart should take about 3 s\n%s", life, describe(p))
		}
		if s.byTend && (last.ExitCode != 75 || !strings.Contains(last.Message, "startup probe failed 3 times in a row")) {
			return life, fmt.Errorf("want tend's exit 75 and its termination message, got exit %d %q", last.ExitCode, last.Message)
		}
		return life, nil
	}
	// Healthy after 4 s, well inside 12 failures: it must start once and
	// stay up. Watch for 20 s after it is running.
	var running time.Time
	err := poll(2*time.Minute, func() (bool, error) {
		st, ok := read()
		if !ok || st.State.Running == nil {
			return false, nil
		}
		if st.RestartCount > 0 {
			return false, fmt.Errorf("restarted although its startup probe passes after 4 s\n%s", describe(p))
		}
		if running.IsZero() {
			running = time.Now()
		}
		return time.Since(running) > 20*time.Second, nil
	})
	if err != nil {
		return 0, err
	}
	st, _ := read()
	if s.byTend {
		code, body, err := get(fmt.Sprintf("http://127.0.0.1:%d/livez?verbose", s.port+100))
		if err != nil || code != 200 || !strings.Contains(body, "[+]startup ok") {
			return 0, fmt.Errorf("tend's /livez?verbose: %d %q %v, want 200 with [+]startup ok", code, body, err)
		}
	} else if st.Started == nil || !*st.Started {
		return 0, fmt.Errorf("the kubelet never marked the container started\n%s", describe(p))
	}
	return 0, nil
}
