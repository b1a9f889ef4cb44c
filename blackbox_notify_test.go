package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tend-init/tend/internal/notifypeer"
)

// notifysendBin builds testdata/notifysend, a sender that speaks the
// protocol on the socket directly (no libsystemd), static.
func notifysendBin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "notifysend")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/notifysend")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building notifysend: %v\n%s", err, out)
	}
	return bin
}

func nanosIn(t *testing.T, path string) time.Time {
	t.Helper()
	s := readWhenPresent(t, path, 10*time.Second)
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		t.Fatalf("%s: %q", path, s)
	}
	return time.Unix(0, n)
}

// TestNotifyReadiness: the built tend, as PID 1, with --notify and a
// readiness probe: /readyz stays 503 until the app's READY=1, which a
// sender outside tend's pid namespace cannot forge; the app's STATUS= shows
// in /readyz?verbose; systemd-notify --ready and notifysend both count;
// and tend's own READY=1 reaches its manager only then.
func TestNotifyReadiness(t *testing.T) {
	send := notifysendBin(t)
	_, sdErr := exec.LookPath("systemd-notify")
	mgr, ch := notifypeer.Listen(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	// The app says its socket, then waits for the test's go-ahead files.
	app := `echo "$NOTIFY_SOCKET" > ` + dir + `/sock.tmp; mv ` + dir + `/sock.tmp ` + dir + `/sock; ` +
		`while [ ! -e ` + dir + `/go1 ]; do sleep 0.02; done; ` + send + ` 'STATUS=warming up'; ` +
		`while [ ! -e ` + dir + `/go2 ]; do sleep 0.02; done; date +%s%N > ` + dir + `/sent; `
	if sdErr == nil {
		app += `systemd-notify --ready --status='serving 3 clients'; `
	} else {
		t.Logf("SKIP part: systemd-notify missing (apt-get install systemd); notifysend sends READY=1 instead")
		app += send + ` READY=1 'STATUS=serving 3 clients'; `
	}
	app += `exec sleep 60`
	p := startTend(t, opts{pid1: true, env: []string{"NOTIFY_SOCKET=" + mgr}}, "--notify", "--health-addr", addr,
		"--ready-probe", "cmd=true", "--probe-period", "100ms", "--", "sh", "-c", app)
	sock := strings.TrimSpace(readWhenPresent(t, dir+"/sock", 10*time.Second))
	if !strings.HasPrefix(sock, "/") || strings.Contains(sock, mgr) {
		t.Fatalf("the app's NOTIFY_SOCKET is %q: want tend's own, not the manager's %s", sock, mgr)
	}
	// A forger outside tend's pid namespace: its pid reads 0 there, refused.
	cmd := exec.Command(send, "READY=1")
	cmd.Env = []string{"NOTIFY_SOCKET=" + sock}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sending from outside: %v %s", err, out)
	}
	body := waitStatus(t, addr, "/readyz?verbose", 503, 10*time.Second)
	// The forged datagram came first on the socket: once the app's
	// STATUS= below shows, tend has judged it.
	if err := os.WriteFile(dir+"/go1", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(body, "STATUS=warming up") {
		body = waitStatus(t, addr, "/readyz?verbose", 503, 10*time.Second)
	}
	if !strings.Contains(body, "[-]notify failed: the app has not sent READY=1; STATUS=warming up") || !strings.Contains(body, "[+]cmd ok") {
		t.Fatalf("/readyz?verbose before READY=1 (a READY=1 from outside the namespace must not count): %q", body)
	}
	if err := os.WriteFile(dir+"/go2", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	m, _ := notifypeer.Await(t, ch, "READY=1", 10*time.Second)
	t.Logf("the app's READY=1 reached tend's manager as READY=1 in %s", m.At.Sub(nanosIn(t, dir+"/sent")).Round(time.Microsecond))
	body = waitStatus(t, addr, "/readyz?verbose", 200, 10*time.Second)
	if !strings.Contains(body, "[+]notify ok: STATUS=serving 3 clients") {
		t.Fatalf("/readyz?verbose once ready: %q", body)
	}
	p.signal(syscall.SIGTERM)
	notifypeer.Await(t, ch, "STOPPING=1", 10*time.Second)
	if code := p.wait(20 * time.Second); code != 143 {
		t.Fatalf("exit %d, want the app's 143", code)
	}
}

// TestNotifyReadyLatency: time from the app's READY=1 (notifysend) to
// tend's READY=1 at the manager's socket, five runs; reported, not
// asserted.
func TestNotifyReadyLatency(t *testing.T) {
	send := notifysendBin(t)
	var ds []time.Duration
	for i := 0; i < 5; i++ {
		mgr, ch := notifypeer.Listen(t)
		dir := t.TempDir()
		app := `date +%s%N > ` + dir + `/sent; ` + send + ` READY=1 >/dev/null; exec sleep 60`
		p := startTend(t, opts{pid1: true, env: []string{"NOTIFY_SOCKET=" + mgr}}, "--notify", "--", "sh", "-c", app)
		m, _ := notifypeer.Await(t, ch, "READY=1", 20*time.Second)
		ds = append(ds, m.At.Sub(nanosIn(t, dir+"/sent")))
		p.signal(syscall.SIGTERM)
		notifypeer.Await(t, ch, "STOPPING=1", 10*time.Second)
		p.wait(20 * time.Second)
	}
	slices.Sort(ds)
	t.Logf("the app's READY=1 to tend's READY=1 at the manager: median %s (min %s, max %s) of %d; date+send from the app's shell included",
		ds[2].Round(time.Microsecond), ds[0].Round(time.Microsecond), ds[4].Round(time.Microsecond), len(ds))
}
