package main_test

import (
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tend-init/tend/internal/testpki"
)

// TestStartupProbe: liveness waits for startup; a startup probe that never
// passes stops the app with 75 and says so in the termination message.
func TestStartupProbe(t *testing.T) {
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	p := startTend(t, opts{pid1: true}, "-vv", "--probe-period", "20ms", "--startup-probe-failure-threshold", "1000",
		"--startup-probe", "test -e "+started,
		"--live-probe", "echo live-ran >> "+dir+"/live",
		"--", "sleep", "30")
	p.stderr.wait(t, "phase starting -> running", 10*time.Second)
	// Several startup attempts fail; no liveness attempt may run.
	p.stderr.waitCount(t, "startup probe attempt failed", 5, 10*time.Second)
	if _, err := os.Stat(dir + "/live"); err == nil {
		t.Fatal("the liveness probe ran before the startup probe passed")
	}
	if err := os.WriteFile(started, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p.stderr.wait(t, "startup probe passed", 5*time.Second)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(dir + "/live"); strings.Count(string(b), "live-ran") >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the liveness probe never ran after startup passed")
		}
	}
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)

	msg := filepath.Join(dir, "termination-log")
	start := time.Now()
	code, _, errOut := runTend(t, opts{pid1: true}, "--termination-message-path", msg,
		"--startup-probe", "exit 1", "--startup-probe-period", "50ms", "--startup-probe-failure-threshold", "4", "--", "sleep", "30")
	took := time.Since(start)
	b, _ := os.ReadFile(msg)
	if code != 75 || !strings.HasPrefix(string(b), "startup probe failed 4 times in a row") {
		t.Fatalf("want 75 and the reason, got %d %q\n%s", code, b, errOut)
	}
	if took < 150*time.Millisecond { // the 4th attempt comes 3 periods after the first
		t.Fatalf("stopped after %s, before the threshold could be reached", took)
	}
}

// TestProbeSettingsPerKind: each kind runs at its own period; invalid
// settings stop tend before the app starts.
func TestProbeSettingsPerKind(t *testing.T) {
	dir := t.TempDir()
	// The live probe's period is an hour: it runs once at the start and
	// not again while the readiness probe runs 20 times, however slowly a
	// loaded machine runs them (a ratio of two short periods was not).
	p := startTend(t, opts{pid1: true}, "--ready-probe-period", "20ms", "--live-probe-period", "1h",
		"--ready-probe", "echo r >> "+dir+"/ready", "--live-probe", "echo l >> "+dir+"/live", "--", "sleep", "30")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		r, _ := os.ReadFile(dir + "/ready")
		l, _ := os.ReadFile(dir + "/live")
		if strings.Count(string(r), "r") >= 20 && strings.Count(string(l), "l") >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the readiness probe ran %d times", strings.Count(string(r), "r"))
		}
	}
	r, _ := os.ReadFile(dir + "/ready")
	l, _ := os.ReadFile(dir + "/live")
	nr, nl := strings.Count(string(r), "r"), strings.Count(string(l), "l")
	if nl != 1 {
		t.Fatalf("ready ran %d times, live %d: want live once (its period is an hour)", nr, nl)
	}
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)

	for _, bad := range [][]string{
		{"--live-probe-success-threshold", "2", "--live-probe", "true"},
		{"--startup-probe-success-threshold", "3", "--startup-probe", "true"},
		{"--probe-success-threshold", "2", "--live-probe", "true"},
		{"--ready-probe-period", "5ms", "--ready-probe", "true"},
		{"--live-probe-timeout", "0s", "--live-probe", "true"},
		{"--ready-probe-failure-threshold", "0", "--ready-probe", "true"},
		{"--ready-probe", "db=true", "--ready-probe", "db=true"},
	} {
		code, _, errOut := runTend(t, opts{}, append(bad, "--", "sh", "-c", "touch "+dir+"/started")...)
		if code != 1 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%q: want exit 1 and one line, got %d %q", bad, code, errOut)
		}
	}
	if _, err := os.Stat(dir + "/started"); err == nil {
		t.Fatal("an invalid probe let the app start")
	}
}

// TestProbeJSON: each Kubernetes Probe form runs, with its settings
// winning over the flags; each malformed one is one line and exit 1.
func TestProbeJSON(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "--health-addr", addr, "--probe-period", "1h",
		"--ready-probe", `tcp={"tcpSocket":{"port":`+itoa(port)+`},"periodSeconds":1}`,
		"--ready-probe", `cmd={"exec":{"command":["true"]},"periodSeconds":1}`,
		"--live-probe", `{"httpGet":{"port":`+portOf(addr)+`,"path":"/livez"},"periodSeconds":1,"failureThreshold":3}`,
		"--", "sleep", "30")
	body := waitStatus(t, addr, "/readyz?verbose", 200, 10*time.Second)
	if !strings.Contains(body, "[+]tcp ok") || !strings.Contains(body, "[+]cmd ok") {
		t.Fatalf("/readyz?verbose: %q", body)
	}
	if body := waitStatus(t, addr, "/livez?verbose", 200, 5*time.Second); !strings.Contains(body, "[+]live ok") {
		t.Fatalf("/livez?verbose: %q", body)
	}
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)
	for _, bad := range []string{
		`{"tcpSocket":{"port":80},"bogus":1}`,
		`{"tcpSocket":{"port":80},"exec":{"command":["true"]}}`,
		`{"periodSeconds":1}`,
		`{"tcpSocket":{"port":"http"}}`,
		`{"tcpSocket":{"port":0}}`,
		`{"exec":{"command":["true"]},"periodSeconds":0}`,
		`{"exec":{"command":["true"]},"failureThreshold":-1}`,
		`{"grpc":{"port":"grpc"}}`,
		`{"grpc":{"port":9000},"terminationGracePeriodSeconds":5}`, // a readiness probe's
		`{"grpc":{"port":9000},"terminationGracePeriodSeconds":0}`,
	} {
		code, _, errOut := runTend(t, opts{}, "--ready-probe", bad, "--", "true")
		if code != 1 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%s: want exit 1 and one line, got %d %q", bad, code, errOut)
		}
	}
}

// TestProbeGracePeriod: a liveness probe's own terminationGracePeriodSeconds
// replaces --grace-period for the stop its failure begins: an app that
// ignores TERM is killed after 1 s, not the 120 s of --grace-period (the
// kubelet's setTerminationGracePeriod, reasonLivenessProbe).
func TestProbeGracePeriod(t *testing.T) {
	msg := filepath.Join(t.TempDir(), "termination-log")
	p := startTend(t, opts{pid1: true}, "-v", "--grace-period", "120s", "--termination-message-path", msg,
		"--live-probe", `{"exec":{"command":["false"]},"periodSeconds":1,"failureThreshold":1,"terminationGracePeriodSeconds":1}`,
		"--", "sh", "-c", `trap "" TERM; while :; do sleep 1; done`)
	// 30 s: a generous bound that the 120 s grace period cannot meet.
	code := p.wait(30 * time.Second)
	b, _ := os.ReadFile(msg)
	if code != 75 || !strings.HasPrefix(string(b), "liveness probe failed 1 times in a row") ||
		!p.stderr.has("grace period 1s") || !p.stderr.has("grace period of 1s expired: sending SIGKILL") {
		t.Fatalf("want 75 after a 1 s grace period, got %d %q\n%s", code, b, p.stderr)
	}
}

// TestNamedChecks: /readyz is 503 while any readiness check fails, and
// ?verbose lists each by name.
func TestNamedChecks(t *testing.T) {
	dir := t.TempDir()
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "--health-addr", addr, "--probe-period", "20ms", "--probe-failure-threshold", "1",
		"--ready-probe", "db=true", "--ready-probe", "api=test -e "+dir+"/api-up", "--", "sleep", "30")
	body := waitStatus(t, addr, "/readyz?verbose", 503, 10*time.Second)
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(body, "[+]db ok"); body = waitStatus(t, addr, "/readyz?verbose", 503, 5*time.Second) {
		if time.Now().After(deadline) {
			t.Fatalf("db never passed: %q", body)
		}
	}
	if !strings.Contains(body, "[-]api failed: ") || !strings.HasSuffix(body, "readyz check failed") {
		t.Fatalf("/readyz?verbose: %q", body)
	}
	if err := os.WriteFile(dir+"/api-up", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	body = waitStatus(t, addr, "/readyz?verbose", 200, 10*time.Second)
	if body != "[+]db ok\n[+]api ok\nreadyz check passed" {
		t.Fatalf("/readyz?verbose: %q", body)
	}
	m := scrape(t, addr)
	if m["tend_probe_up"] != 1 {
		t.Fatalf("tend_probe_up: %v", m)
	}
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)
}

// TestSidecarPauseMode: with no program, tend probes and serves the
// result. /readyz is 503 until the TCP target listens, 200 while it does,
// 503 after; a failing liveness check turns /livez 503 and tend runs on;
// TERM exits 0.
func TestSidecarPauseMode(t *testing.T) {
	target := freeAddr(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "--health-addr", addr, "--probe-period", "20ms", "--probe-failure-threshold", "1",
		"--ready-probe", "tcp://"+target, "--live-probe", "test ! -e "+dir+"/sick")
	waitStatus(t, addr, "/readyz", 503, 10*time.Second)
	ln, err := net.Listen("tcp", target)
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, addr, "/readyz", 200, 10*time.Second)
	_ = ln.Close()
	waitStatus(t, addr, "/readyz", 503, 10*time.Second)
	waitStatus(t, addr, "/livez", 200, 5*time.Second)
	if err := os.WriteFile(dir+"/sick", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if body := waitStatus(t, addr, "/livez", 503, 10*time.Second); !strings.Contains(body, "liveness probe failing") {
		t.Fatalf("/livez: %q", body)
	}
	if err := syscall.Kill(p.pid, 0); err != nil {
		t.Fatal("tend stopped on a failing liveness check in pause mode")
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("TERM ends pause mode with 0, got %d", code)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// TestHTTPSProbeAndCheck: an https probe passes against a self-signed
// server (unverified, as the kubelet); --check --check-ca passes with the
// server's CA and fails with another.
func TestHTTPSProbeAndCheck(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	right := filepath.Join(dir, "right.pem")
	if err := os.WriteFile(right, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every httptest server shares one certificate: another CA.
	wrong := testpki.Write(t, dir).CA
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "--health-addr", addr, "--probe-period", "20ms", "--ready-probe", srv.URL+"/ready", "--", "sleep", "30")
	waitStatus(t, addr, "/readyz", 200, 10*time.Second)
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)
	if code, _, errOut := runTend(t, opts{}, "--check", srv.URL+"/", "--check-ca", right); code != 0 {
		t.Fatalf("--check-ca with the server's CA: %d %s", code, errOut)
	}
	if code, _, errOut := runTend(t, opts{}, "--check", srv.URL+"/", "--check-ca", wrong); code != 1 || !strings.Contains(errOut, "certificate") {
		t.Fatalf("--check-ca with another CA must fail: %d %s", code, errOut)
	}
	if code, _, errOut := runTend(t, opts{}, "--check", srv.URL+"/"); code != 0 {
		t.Fatalf("--check https without a CA is unverified, as the kubelet: %d %s", code, errOut)
	}
}

// TestCheckPrintsTheReason: --check prints the first line of the body, so
// a HEALTHCHECK log says why, not only "status 503".
func TestCheckPrintsTheReason(t *testing.T) {
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "--health-addr", addr, "--post-start", "sleep 30", "--", "sleep", "30")
	waitStatus(t, addr, "/readyz", 503, 10*time.Second)
	code, _, errOut := runTend(t, opts{}, "--check", "http://"+addr+"/readyz")
	if code != 1 || !strings.Contains(errOut, "status 503: not ready: post-start running") {
		t.Fatalf("want exit 1 with the reason, got %d %q", code, errOut)
	}
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)
}
