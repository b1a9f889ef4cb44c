package main_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestStopSignalQuit: an image with STOPSIGNAL SIGQUIT (nginx) sends QUIT.
// With --stop-signal QUIT it begins the stop: not ready at once, pre-stop
// first, then QUIT to the app; an app that ignores it is killed at the
// grace period with 137.
func TestStopSignalQuit(t *testing.T) {
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "-v", "--stop-signal", "QUIT", "--grace-period", "1s", "--min-shutdown-window", "1s",
		"--health-addr", addr, "--pre-stop", "echo pre-stop-ran",
		"--", fakeappBin, "ignore", "SIGQUIT", "--", "signals", "none", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	waitStatus(t, addr, "/readyz", 200, 5*time.Second)
	p.signal(syscall.SIGWINCH) // a terminal resize: forwarded, no stop
	p.stdout.wait(t, "got SIGWINCH", 5*time.Second)
	if code, _ := status(addr, "/readyz"); code != 200 {
		t.Fatalf("WINCH began a stop: /readyz %d", code)
	}
	start := time.Now()
	p.signal(syscall.SIGQUIT)
	waitStatus(t, addr, "/readyz", 503, 5*time.Second)
	t.Logf("/readyz turned 503 %s after QUIT", time.Since(start))
	if code := p.wait(15 * time.Second); code != 137 {
		t.Fatalf("an app that ignores QUIT is killed at the grace period: want 137, got %d\n%s", code, p.stderr)
	}
	if !p.stdout.has("pre-stop-ran") || !p.stderr.has("sending SIGQUIT to the app") {
		t.Fatalf("want pre-stop, then QUIT:\n%s\n%s", p.stdout, p.stderr)
	}
}

// TestLivenessFailureSendsTheStopSignal: a stop that tend begins itself
// sends the stop signal, never a hard-coded TERM.
func TestLivenessFailureSendsTheStopSignal(t *testing.T) {
	// The probe fails once the app has set its QUIT trap (and made F).
	f := filepath.Join(t.TempDir(), "F")
	code, out, errOut := runTend(t, opts{pid1: true}, "--stop-signal", "SIGQUIT", "--live-probe", "test ! -e "+f,
		"--probe-period", "20ms", "--probe-failure-threshold", "1",
		"--", "sh", "-c", `trap 'echo got-quit; exit 3' QUIT; trap 'echo got-term; exit 4' TERM; touch `+f+`; while :; do sleep 0.05; done`)
	if code != 75 || !strings.Contains(out, "got-quit") || strings.Contains(out, "got-term") {
		t.Fatalf("want QUIT and exit 75, got %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "WARN: stop: liveness probe failed") {
		t.Fatalf("the liveness stop must show at the default verbosity:\n%s", errOut)
	}
}

// scratchRoot is a root holding only the static tend and the fake app: no
// shell, no sleep binary, no /dev. The returned shell line mounts it
// read-only with a /proc and runs `chroot ROOT /tend ARGS` as PID 1 of a new
// namespace; startTend runs it with opts.shell.
func scratchRoot(t *testing.T) string {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("chroot and mounts need root")
	}
	root := t.TempDir()
	for name, b := range map[string]string{"tend": staticTendBin, "fakeapp": fakeappBin} {
		data, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "proc"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func inScratch(root, tendArgs string) opts {
	script := `mount --bind "$ROOT" "$ROOT" && mount -o remount,bind,ro "$ROOT" && mount -t proc proc "$ROOT/proc" && exec chroot "$ROOT" /tend ` + tendArgs
	return opts{env: []string{"ROOT=" + root, "SCRIPT=" + script}, shell: `exec unshare -pfm sh -c "$SCRIPT"`}
}

// TestSleepPreStopInScratchRoot: sleep:1s needs no sleep binary. In a
// read-only root holding only tend and the app, the app gets TERM no sooner
// than a second after tend did, and /readyz is 503 meanwhile.
func TestSleepPreStopInScratchRoot(t *testing.T) {
	root := scratchRoot(t)
	addr := freeAddr(t)
	p := startTend(t, inScratch(root, "-v --health-addr "+addr+" --pre-stop sleep:1s -- /fakeapp signals SIGTERM 0"))
	p.stdout.wait(t, "ready", 10*time.Second)
	waitStatus(t, addr, "/readyz", 200, 5*time.Second)
	tend := p.childOf(p.pid) // unshare's child, exec'd into chroot, then tend
	start := time.Now()
	if err := syscall.Kill(tend, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, addr, "/readyz", 503, 5*time.Second)
	if p.stdout.has("got SIGTERM") {
		t.Fatal("the app got TERM before pre-stop's sleep ended")
	}
	p.stdout.wait(t, "got SIGTERM", 10*time.Second)
	if took := time.Since(start); took < time.Second {
		t.Fatalf("the app got TERM %s after tend did; want no sooner than 1s", took)
	}
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("want the app's 0, got %d\n%s", code, p.stderr)
	}
	if !p.stderr.has("pre-stop succeeded") {
		t.Fatalf("want the sleep counted as success:\n%s", p.stderr)
	}
}

// TestSleepPreStopCutAtGrace: sleep:10s with a 2 s grace period is cut at
// the deadline and counts as failed; the app still gets TERM, and SIGKILL
// comes no sooner than the minimal shutdown window after it.
func TestSleepPreStopCutAtGrace(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "-v", "--grace-period", "1s", "--pre-stop", "sleep:10s",
		"--", fakeappBin, "ignore", "SIGTERM", "--", "signals", "none", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	start := time.Now()
	p.signal(syscall.SIGTERM)
	p.stderr.wait(t, "pre-stop failed", 5*time.Second)
	if code := p.wait(15 * time.Second); code != 137 {
		t.Fatalf("want 137 for an app that ignores TERM, got %d\n%s", code, p.stderr)
	}
	took := time.Since(start)
	sent := p.stderr.index("sending SIGTERM to the app")
	killed := p.stderr.index("sending SIGKILL to the app")
	if sent < 0 || killed < sent {
		t.Fatalf("want TERM, then KILL:\n%s", p.stderr)
	}
	// Grace 1 s, then at least 2 s of shutdown window before KILL.
	if took < 3*time.Second {
		t.Fatalf("SIGKILL came %s after the stop began; want no sooner than 3s", took)
	}
}

// TestHTTPPreStop: an HTTP pre-stop succeeds on any answer (a 500 too),
// fails on a closed port, and reaches the server before the app gets TERM.
func TestHTTPPreStop(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.Path+" "+r.Header.Get("X-Why"))
		mu.Unlock()
		w.WriteHeader(500)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	dir := t.TempDir()
	p := startTend(t, opts{pid1: true}, "-v", "--pre-stop", srv.URL+"/quitquitquit",
		"--pre-stop", `{"httpGet":{"port":`+port+`,"path":"/drain","httpHeaders":[{"name":"X-Why","value":"stop"}]}}`,
		"--post-stop", "cat "+dir+"/order",
		"--", "sh", "-c", `trap 'echo app-got-term >> `+dir+`/order; exit 0' TERM; echo ready; while :; do sleep 0.05; done`)
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("want 0, got %d\n%s", code, p.stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != "/quitquitquit " || seen[1] != "/drain stop" {
		t.Fatalf("the server saw %q", seen)
	}
	if !p.stderr.has("pre-stop succeeded") || !p.stdout.has("app-got-term") {
		t.Fatalf("a 500 is an answer, so success; then TERM:\n%s\n%s", p.stdout, p.stderr)
	}
	closed := freeAddr(t)
	code, _, errOut := runTend(t, opts{pid1: true}, "--pre-stop", "http://"+closed+"/", "--post-start", "kill -TERM 1", "--", "sleep", "30")
	if code != 143 || !strings.Contains(errOut, "pre-stop failed") {
		t.Fatalf("a closed port fails the hook (and the app still gets TERM): %d\n%s", code, errOut)
	}
}

// TestLifecycleHandlerJSON: each LifecycleHandler form runs, and each
// malformed one stops tend with exit 1 before the app starts.
func TestLifecycleHandlerJSON(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runTend(t, opts{pid1: true}, "-v",
		"--post-start", `{"exec":{"command":["sh","-c","echo exec-ran"]}}`,
		"--post-start", `{"sleep":{"seconds":0}}`,
		"--", "sh", "-c", "sleep 0.3; exit 5")
	if code != 5 || !strings.Contains(out, "exec-ran") || !strings.Contains(errOut, "post-start succeeded") {
		t.Fatalf("exec and sleep handlers: %d\n%s\n%s", code, out, errOut)
	}
	for _, bad := range []string{
		`{"exec":{"command":["true"]},"bogus":1}`,
		`{"exec":{"command":["true"]},"sleep":{"seconds":1}}`,
		`{"httpGet":{"port":0}}`,
		`{"httpGet":{"port":"http"}}`,
	} {
		code, out, errOut := runTend(t, opts{}, "--pre-stop", bad, "--", "sh", "-c", "touch "+dir+"/started")
		if code != 1 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || out != "" {
			t.Errorf("%s: want exit 1 with one line, got %d %q", bad, code, errOut)
		}
	}
	if _, err := os.Stat(dir + "/started"); err == nil {
		t.Fatal("a malformed hook let the app start")
	}
}

// TestProbesWaitForPostStart: a liveness probe that would fail at once does
// not run while post-start does.
func TestProbesWaitForPostStart(t *testing.T) {
	dir := t.TempDir()
	p := startTend(t, opts{pid1: true}, "-v", "--post-start", "sleep 1; touch "+dir+"/post-start-done",
		"--live-probe", "test -e "+dir+"/post-start-done && echo probed-after >> "+dir+"/log || echo probed-during >> "+dir+"/log",
		"--probe-period", "20ms", "--", "sleep", "30")
	p.stderr.wait(t, "post-start succeeded", 10*time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(dir + "/log")
		if strings.Contains(string(b), "probed-during") {
			t.Fatalf("a probe ran while post-start ran:\n%s", b)
		}
		if strings.Count(string(b), "probed-after") >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the probe never ran after post-start: %q", b)
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)
}

// TestTerminationMessage: every outcome that tend decides writes one line
// to the termination-message file; the app's own message is kept; a
// missing directory means no file.
func TestTerminationMessage(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"post-start", []string{"--post-start", "exit 3", "--", "sleep", "30"}, 69, "post-start failed: exit 3: exit code 3"},
		{"liveness", []string{"--live-probe", "exit 1", "--probe-period", "20ms", "--", "sleep", "30"}, 75, "liveness probe failed 3 times in a row: exit 1: exit 1: exit code 1"},
		{"grace", []string{"--grace-period", "100ms", "--min-shutdown-window", "100ms",
			"--post-start", "while [ ! -e " + dir + "/ignoring ]; do sleep 0.01; done; kill -TERM 1",
			"--", "sh", "-c", "trap '' TERM; touch " + dir + "/ignoring; exec sleep 30"}, 137,
			"the app did not exit within the grace period of 100ms: killed with SIGKILL"},
		{"hook timeout", []string{"--hook-timeout", "100ms", "--post-stop", "sleep 5", "--", "true"}, 0, "post-stop timed out after 100ms"},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		code, _, errOut := runTend(t, opts{pid1: true}, append([]string{"--termination-message-path", path}, c.args...)...)
		b, err := os.ReadFile(path)
		if code != c.code || err != nil || string(b) != c.want {
			t.Errorf("%s: exit %d, message %q (%v); want %d, %q\n%s", c.name, code, b, err, c.code, c.want, errOut)
		}
	}
	own := filepath.Join(dir, "own")
	// The hook fails only once the app has written its message: otherwise
	// the stop could reach the app before its echo.
	code, _, _ := runTend(t, opts{pid1: true}, "--termination-message-path", own,
		"--post-start", "while [ ! -s "+own+" ]; do sleep 0.01; done; exit 3",
		"--", "sh", "-c", "echo app-wrote-this > "+own+"; sleep 30")
	if b, _ := os.ReadFile(own); code != 69 || string(b) != "app-wrote-this\n" {
		t.Fatalf("the app's own message must be kept: %d %q", code, b)
	}
	missing := filepath.Join(dir, "no-such-dir", "log")
	if code, _, _ := runTend(t, opts{pid1: true}, "--termination-message-path", missing, "--post-start", "exit 3", "--", "sleep", "30"); code != 69 {
		t.Fatalf("want 69, got %d", code)
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Fatal("tend created the missing directory")
	}
}
