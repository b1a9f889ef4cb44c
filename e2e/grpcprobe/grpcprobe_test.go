package grpcprobe

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	notServing = `service unhealthy (responded with "NOT_SERVING")`
	notFound   = "code = NotFound"
)

// TestReadinessFollowsServing: /readyz is 200 while the service is
// SERVING and 503 while NOT_SERVING, with the reason in /readyz?verbose
// and in the log.
func TestReadinessFollowsServing(t *testing.T) {
	down := filepath.Join(t.TempDir(), "down")
	app, health := freeAddr(t), freeAddr(t)
	p := startTend(t, "-vv", "--health-addr", health, "--ready-probe", "grpc://"+app+"/app",
		"--ready-probe-period", "50ms", "--ready-probe-failure-threshold", "1",
		"--", appBin, "-addr", app, "-down", down)
	readyz := "http://" + health + "/readyz"
	waitStatus(t, readyz, 200, 20*time.Second)
	if err := os.WriteFile(down, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if body := waitStatus(t, readyz+"?verbose", 503, 20*time.Second); !strings.Contains(body, notServing) {
		t.Fatalf("/readyz?verbose lacks the reason: %q", body)
	}
	p.stderr.wait(t, notServing, 10*time.Second)
	if err := os.Remove(down); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, readyz, 200, 20*time.Second)
	if code := p.stop(); code != 0 {
		t.Fatalf("exit %d after TERM\n%s", code, p.stderr)
	}
}

// TestLivenessStopsTheApp: a service that turns NOT_SERVING fails the
// liveness probe, which stops the app with 75 and the reason in the
// termination message and the log. A grpc startup probe holds the
// liveness probe back until the server answers.
func TestLivenessStopsTheApp(t *testing.T) {
	dir := t.TempDir()
	down, msg := filepath.Join(dir, "down"), filepath.Join(dir, "termination-log")
	app := freeAddr(t)
	p := startTend(t, "-v", "--termination-message-path", msg, "--probe-period", "50ms",
		"--startup-probe", "grpc://"+app, "--startup-probe-failure-threshold", "1000",
		"--live-probe", "grpc://"+app+"/app",
		"--", appBin, "-addr", app, "-down", down)
	p.stderr.wait(t, "startup probe passed", 20*time.Second)
	if err := os.WriteFile(down, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code := p.wait(30 * time.Second)
	b, _ := os.ReadFile(msg)
	want := "liveness probe failed 3 times in a row: grpc://" + app + "/app: " + notServing
	if code != 75 || !strings.HasPrefix(string(b), want) || !strings.Contains(p.stderr.String(), want) {
		t.Fatalf("want exit 75 and %q in the termination message and the log; got %d %q\n%s", want, code, b, p.stderr)
	}
}

// TestCheck: --check grpc:// exits 0 on SERVING and 1 otherwise, with the
// reason on stderr: NOT_SERVING, an unknown service, no server.
func TestCheck(t *testing.T) {
	down := filepath.Join(t.TempDir(), "down")
	app := startApp(t, "-down", down)
	for _, c := range []struct {
		spec, reason string
	}{
		{"grpc://" + app, ""},
		{"grpc://" + app + "/app", ""},
		{"grpc://" + app + "/nosuch", notFound},
		{"grpc://" + freeAddr(t) + "/app", "failed to connect"},
	} {
		code, errOut := runTend(t, "--check", c.spec)
		if c.reason == "" && (code != 0 || errOut != "") || c.reason != "" && (code != 1 || !strings.Contains(errOut, c.reason)) {
			t.Errorf("--check %s: exit %d %q; want reason %q", c.spec, code, errOut, c.reason)
		}
	}
	if err := os.WriteFile(down, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The app polls the file: wait until it answers NOT_SERVING.
	for deadline := time.Now().Add(20 * time.Second); ; {
		code, errOut := runTend(t, "--check", "grpc://"+app+"/app")
		if code == 1 && strings.Contains(errOut, notServing) && strings.Count(strings.TrimSpace(errOut), "\n") == 0 {
			break
		}
		if code != 0 || time.Now().After(deadline) {
			t.Fatalf("--check on NOT_SERVING: exit %d %q", code, errOut)
		}
	}
}

// TestJSONProbeAndUnknownService: the Kubernetes Probe's grpc handler
// probes this container's port; an unknown service keeps /readyz at 503
// with grpc-go's NOT_FOUND in the reason.
func TestJSONProbeAndUnknownService(t *testing.T) {
	app, health := freeAddr(t), freeAddr(t)
	port := strings.TrimPrefix(app, "127.0.0.1:")
	p := startTend(t, "--health-addr", health,
		"--ready-probe", `app={"grpc":{"port":`+port+`,"service":"app"},"periodSeconds":1}`,
		"--ready-probe", `whole={"grpc":{"port":`+port+`}}`,
		"--ready-probe", `nosuch={"grpc":{"port":`+port+`,"service":"nosuch"},"periodSeconds":1}`,
		"--", appBin, "-addr", app)
	readyz := "http://" + health + "/readyz?verbose"
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		body := waitStatus(t, readyz, 503, 5*time.Second)
		if strings.Contains(body, "[+]app ok") && strings.Contains(body, "[+]whole ok") && strings.Contains(body, notFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz?verbose: %q", body)
		}
	}
	p.stop()
}

// startApp runs grpcapp alone (for --check) and returns its address once
// it listens.
func startApp(t *testing.T, args ...string) string {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(appBin, append([]string{"-addr", addr}, args...)...)
	out, w, _ := os.Pipe()
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = w.Close() // the child holds its own copy
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // the test is over
		_ = cmd.Wait()         // reaped; its exit status says nothing
	})
	collect(out).wait(t, "listening on", 20*time.Second)
	return addr
}
