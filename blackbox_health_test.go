package main_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/tend-init/tend/plan"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // tend binds it next
	return addr
}

// status GETs a path; a refused connection counts as code 0.
func status(addr, path string) (int, string) {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get("http://" + addr + path)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, strings.TrimSpace(string(b))
}

// waitStatus polls until path answers code, within d.
func waitStatus(t *testing.T, addr, path string, code int, d time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		got, body := status(addr, path)
		if got == code {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never answered %d within %s (last %d %q)", path, code, d, got, body)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestHealthTransitions(t *testing.T) {
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "--health-addr", addr,
		"--post-start", "echo post-start-begun; exec sleep 60", // still running when TERM comes
		"--pre-stop", "echo pre-stop-begun; sleep 0.5",
		"--", fakeappBin, "signals", "TERM", "0")
	p.stdout.wait(t, "post-start-begun", 10*time.Second)
	waitStatus(t, addr, "/livez", 200, 5*time.Second)
	if body := waitStatus(t, addr, "/readyz", 503, 5*time.Second); body != "not ready: post-start running" {
		t.Fatalf("readyz during post-start: %q", body)
	}
	p.signal(syscall.SIGTERM)
	p.stdout.wait(t, "pre-stop-begun", 5*time.Second)
	// The app has not been signalled yet, but tend is no longer ready.
	if code, body := status(addr, "/readyz"); code != 503 || body != "not ready: stopping" {
		t.Fatalf("readyz during the stop: %d %q", code, body)
	}
	if code, _ := status(addr, "/livez"); code != 200 {
		t.Fatalf("livez must stay 200 while stopping, got %d", code)
	}
	if p.stdout.has("got SIGTERM") {
		t.Fatal("pre-stop had not finished")
	}
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestReadyAfterPostStart(t *testing.T) {
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "--health-addr", addr, "--post-start", "true",
		"--", fakeappBin, "signals", "TERM", "0")
	waitStatus(t, addr, "/readyz", 200, 10*time.Second)
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)
}

func TestProbesOfEveryKind(t *testing.T) {
	var healthy = make(chan bool, 1)
	healthy <- true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok := <-healthy
		healthy <- ok
		if !ok {
			w.WriteHeader(500)
		}
	}))
	defer srv.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.Close() // accepting is the whole tcp probe
		}
	}()
	for _, spec := range []string{srv.URL + "/ready", "tcp://" + ln.Addr().String(), `["` + fakeappBin + `","exit","0"]`} {
		t.Run(strings.SplitN(spec, ":", 2)[0], func(t *testing.T) {
			addr := freeAddr(t)
			p := startTend(t, opts{pid1: true}, "--health-addr", addr, "--ready-probe", spec,
				"--probe-period", "50ms", "--", fakeappBin, "signals", "TERM", "0")
			waitStatus(t, addr, "/readyz", 200, 10*time.Second)
			_, metrics := status(addr, "/metrics")
			if !strings.Contains(metrics, `tend_probe_results_total{probe="ready",kind="ready",result="success"}`) {
				t.Fatalf("probe results not counted:\n%s", metrics)
			}
			p.signal(syscall.SIGTERM)
			p.wait(10 * time.Second)
		})
	}
	// A readiness probe that starts failing turns /readyz 503.
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "--health-addr", addr, "--ready-probe", srv.URL+"/ready",
		"--probe-period", "50ms", "--probe-failure-threshold", "2", "--", fakeappBin, "signals", "TERM", "0")
	waitStatus(t, addr, "/readyz", 200, 10*time.Second)
	<-healthy
	healthy <- false
	if body := waitStatus(t, addr, "/readyz", 503, 10*time.Second); !strings.Contains(body, "readiness probe") {
		t.Fatalf("body %q", body)
	}
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)
}

func TestLiveProbeFailureEndsContainer(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "-v", "-e", "75", "--live-probe", "exit 1", "--probe-period", "50ms",
		"--", fakeappBin, "signals", "TERM", "0")
	code := p.wait(20 * time.Second)
	if code != plan.ExitLivenessFailed || !p.stderr.has("liveness probe failed 3 times") {
		t.Fatalf("want exit %d, got %d\n%s", plan.ExitLivenessFailed, code, p.stderr)
	}
}

func TestMetricsMove(t *testing.T) {
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "--health-addr", addr, "--post-start", "exit 0",
		"--", "sh", "-c", `trap '"$FAKEAPP" spawn 3; echo spawned' USR1; echo ready; while :; do sleep 0.05; done`)
	p.stdout.wait(t, "ready", 10*time.Second)
	waitStatus(t, addr, "/readyz", 200, 10*time.Second)
	if m := scrape(t, addr); m["tend_zombies_reaped_total"] != 0 || m["tend_app_up"] != 1 || m["tend_terminating"] != 0 {
		t.Fatalf("before: %v", m)
	}
	p.signal(syscall.SIGUSR1) // the app leaves 3 orphans
	p.stdout.wait(t, "spawned", 10*time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for scrape(t, addr)["tend_zombies_reaped_total"] != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("zombies_reaped_total never reached 3: %v", scrape(t, addr))
		}
		time.Sleep(10 * time.Millisecond)
	}
	m := scrape(t, addr)
	if m["tend_signals_forwarded_total"] != 1 || m["tend_hook_runs_total"] != 1 {
		t.Fatalf("after: %v", m)
	}
	// The namespace figures come from a walk of /proc cached for a
	// second, so a zombie seen mid-reap may show until the next walk.
	for deadline := time.Now().Add(5 * time.Second); scrape(t, addr)["tend_namespace_zombies"] != 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("zombies left in the namespace: %v", scrape(t, addr))
		}
	}
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)
}

// scrape parses /metrics with Prometheus' own parser into name -> value
// (the first series of each family).
func scrape(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	code, body := status(addr, "/metrics")
	if code != 200 {
		t.Fatalf("/metrics %d", code)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body + "\n"))
	if err != nil {
		t.Fatalf("bad exposition: %v\n%s", err, body)
	}
	out := map[string]float64{}
	for name, f := range fams {
		if ms := f.GetMetric(); len(ms) > 0 {
			out[name] = ms[0].GetGauge().GetValue() + ms[0].GetCounter().GetValue()
		}
	}
	return out
}

func TestCheckClient(t *testing.T) {
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "--health-addr", addr, "--post-start", "sleep 60",
		"--", fakeappBin, "signals", "TERM", "0")
	waitStatus(t, addr, "/livez", 200, 10*time.Second)
	code, out, errOut := runTend(t, opts{}, "--check", "http://"+addr+"/livez")
	if code != 0 || out != "" {
		t.Fatalf("check 200: %d %q %q", code, out, errOut)
	}
	code, _, errOut = runTend(t, opts{}, "--check", "http://"+addr+"/readyz")
	if code != 1 || !strings.Contains(errOut, "status 503") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Fatalf("check 503: %d %q", code, errOut)
	}
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)
	code, _, errOut = runTend(t, opts{}, "--check", "http://"+addr+"/readyz", "--check-timeout", "500ms")
	if code != 1 || !strings.Contains(errOut, "refused") {
		t.Fatalf("check closed port: %d %q", code, errOut)
	}
}

func TestPauseMode(t *testing.T) {
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "-w", "-v", "--pause", "--health-addr", addr)
	waitStatus(t, addr, "/livez", 200, 10*time.Second)
	waitStatus(t, addr, "/readyz", 200, 5*time.Second)
	// Processes that join the namespace leave orphans behind; tend reaps them.
	// nsenter's shell is nsenter's child; its two sleeps are orphaned
	// inside the namespace and land on tend.
	join := exec.Command("nsenter", "-t", strconv.Itoa(p.pid), "-p", "-m", "--", "sh", "-c", "sleep 0.1 & sleep 0.1 & exit 0")
	if out, err := join.CombinedOutput(); err != nil {
		t.Fatalf("nsenter: %v %s", err, out)
	}
	p.stderr.waitCount(t, "Reaped zombie process", 2, 10*time.Second)
	// The snapshot follows the log line by one loop iteration.
	deadline := time.Now().Add(5 * time.Second)
	for m := scrape(t, addr); m["tend_zombies_reaped_total"] != 2 || m["tend_namespace_zombies"] != 0; m = scrape(t, addr) {
		if time.Now().After(deadline) {
			t.Fatalf("metrics after the orphans: %v", m)
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("pause mode exits 0 on TERM, got %d", code)
	}
	p = startTend(t, opts{pid1: true, env: []string{"TEND_PAUSE=1"}}, "-v")
	p.stderr.wait(t, "sidecar mode", 10*time.Second) // logged once its handlers are in place
	p.signal(syscall.SIGINT)
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("pause mode exits 0 on INT, got %d", code)
	}
}

func TestBadHealthAddressNeverStartsApp(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for addr, msg := range map[string]string{"not-an-address": "not-an-address", taken.Addr().String(): "already in use"} {
		code, out, errOut := runTend(t, opts{}, "-s", "--health-addr", addr, "--", "sh", "-c", "echo app-started")
		if code != 1 || strings.Contains(out, "app-started") || !strings.Contains(errOut, msg) {
			t.Fatalf("%s: %d %q %q", addr, code, out, errOut)
		}
	}
}

// TestEachProbeSeesItsOwnName: the readiness and liveness probes each get
// their own environment. They once shared one slice, so the readiness
// probe ran with TEND_HOOK=live-probe (and the race detector saw it).
func TestEachProbeSeesItsOwnName(t *testing.T) {
	// A probe's output is tend's to judge, not passed on: they write to a file.
	out := t.TempDir() + "/out"
	p := startTend(t, opts{}, "--probe-period", "50ms",
		"--ready-probe", `echo "R=$TEND_HOOK app=$TEND_APP_PID" >> `+out,
		"--live-probe", `echo "L=$TEND_HOOK app=$TEND_APP_PID" >> `+out, "--", "sleep", "30")
	var ready, live string
	for deadline := time.Now().Add(10 * time.Second); ready == "" || live == ""; time.Sleep(10 * time.Millisecond) {
		b := fileText(out)
		for _, l := range strings.Split(b, "\n") {
			if strings.HasPrefix(l, "R=") && strings.Count(b, "R=") >= 3 {
				ready = l
			}
			if strings.HasPrefix(l, "L=") && strings.Count(b, "L=") >= 3 {
				live = l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("three runs of each probe within 10s, got %q", b)
		}
	}
	if !strings.HasPrefix(ready, "R=ready-probe app=") || !strings.HasPrefix(live, "L=live-probe app=") {
		t.Fatalf("want each probe to see its own TEND_HOOK, got %q and %q", ready, live)
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 143 {
		t.Fatalf("want 143 after TERM, got %d\n%s", code, p.stderr)
	}
}
