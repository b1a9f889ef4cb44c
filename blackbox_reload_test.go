package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tend-init/tend/internal/kubeletvol"
)

// configMap is a ConfigMap volume as the kubelet lays it out, with what a
// hostile app can plant beside the keys: a FIFO no one writes, a link to
// /dev/zero and a loop of links. Reading any of them would hang tend's
// watcher or fill its memory.
func configMap(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := kubeletvol.Write(dir, files); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "trap.fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"zero": "/dev/zero", "loop-a": "loop-b", "loop-b": "loop-a"} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func vmRSS(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			n, _ := strconv.Atoi(f[1])
			return n
		}
	}
	return -1
}

// TestReloadOnKubeletSwap: tend as PID 1 watches a ConfigMap volume (the
// directory, and one key through its link). Each swap the kubelet makes
// reaches the app as one HUP; a swap to the same bytes reaches it as
// none; a burst of swaps as one; the FIFO, /dev/zero and the link loop in
// the volume neither hang nor grow tend; /metrics counts the reloads.
func TestReloadOnKubeletSwap(t *testing.T) {
	dir := configMap(t, map[string]string{"nginx.conf": "v1", "mime.types": "text/html html"})
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "-vv", "--health-addr", addr,
		"--reload-on", dir, "--reload-on", filepath.Join(dir, "nginx.conf"),
		"--", fakeappBin, "signals", "SIGTERM", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	rss0 := vmRSS(p.pid)

	swapped := time.Now()
	if err := kubeletvol.Write(dir, map[string]string{"nginx.conf": "v2", "mime.types": "text/html html"}); err != nil {
		t.Fatal(err)
	}
	p.stdout.wait(t, "got SIGHUP", 15*time.Second)
	t.Logf("symlink swap to the app's HUP: %s", time.Since(swapped))
	p.stderr.wait(t, "nginx.conf", 5*time.Second) // the log names what changed

	// The same bytes, swapped in as the kubelet swaps: tend looks, and
	// sends nothing.
	if err := kubeletvol.Write(dir, map[string]string{"nginx.conf": "v2", "mime.types": "text/html html"}); err != nil {
		t.Fatal(err)
	}
	p.stderr.waitCount(t, "no byte changed", 1, 15*time.Second)

	// A burst: five updates back to back give one reload.
	for i := 3; i < 8; i++ {
		if err := kubeletvol.Write(dir, map[string]string{"nginx.conf": fmt.Sprintf("v%d", i), "mime.types": "text/html html"}); err != nil {
			t.Fatal(err)
		}
	}
	p.stdout.waitCount(t, "got SIGHUP", 2, 15*time.Second)
	// One more same-bytes swap: once tend has judged it, any second
	// reload of the burst would have come before.
	if err := kubeletvol.Write(dir, map[string]string{"nginx.conf": "v7", "mime.types": "text/html html"}); err != nil {
		t.Fatal(err)
	}
	p.stderr.waitCount(t, "no byte changed", 2, 15*time.Second)
	if n := strings.Count(p.stdout.String(), "got SIGHUP"); n != 2 {
		t.Fatalf("a swap, the same bytes and a burst of five: want 2 HUPs, got %d\n%s", n, p.stderr)
	}
	_, body := status(addr, "/metrics")
	if !strings.Contains(body, "tend_reloads_total 2\n") {
		t.Fatalf("/metrics: want tend_reloads_total 2:\n%s", body)
	}
	rss1 := vmRSS(p.pid)
	t.Logf("tend's VmRSS with a FIFO, /dev/zero and a link loop in the volume: %d KiB before the swaps, %d KiB after", rss0, rss1)
	if rss0 > 0 && rss1-rss0 > 32<<10 {
		t.Fatalf("tend grew by %d KiB reading the volume", rss1-rss0)
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(15 * time.Second); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr)
	}
}

// TestReloadNotDuringStop: a change while pre-stop runs reloads nothing,
// and a running reload action is cut when the stop begins.
func TestReloadNotDuringStop(t *testing.T) {
	dir := configMap(t, map[string]string{"app.conf": "v1"})
	marks := t.TempDir()
	began, goOn := filepath.Join(marks, "pre-stop-began"), filepath.Join(marks, "go")
	p := startTend(t, opts{pid1: true}, "-v", "--reload-on", dir,
		"--pre-stop", "touch "+began+"; while [ ! -e "+goOn+" ]; do sleep 0.02; done",
		"--", fakeappBin, "signals", "SIGTERM", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGTERM)
	readWhenPresent(t, began, 10*time.Second)
	if err := kubeletvol.Write(dir, map[string]string{"app.conf": "v2"}); err != nil {
		t.Fatal(err)
	}
	p.stderr.wait(t, "not reloading: a stop is under way", 15*time.Second)
	if err := os.WriteFile(goOn, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(15 * time.Second); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr)
	}
	if p.stdout.has("got SIGHUP") {
		t.Fatalf("a reload during a stop:\n%s", p.stdout)
	}
}

// TestReloadAction: --reload runs a hook action instead of the signal,
// with TEND_HOOK=reload; an editor's save-by-rename of a plain file is
// seen through the file's directory.
func TestReloadAction(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "app.conf")
	if err := os.WriteFile(conf, []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startTend(t, opts{pid1: true}, "-v", "--reload-on", conf, "--reload", `echo "reload-ran hook=$TEND_HOOK"`,
		"--", fakeappBin, "signals", "SIGTERM", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	tmp := filepath.Join(dir, ".app.conf.swp")
	if err := os.WriteFile(tmp, []byte("v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, conf); err != nil {
		t.Fatal(err)
	}
	p.stdout.wait(t, "reload-ran hook=reload", 15*time.Second)
	p.stderr.wait(t, "reload succeeded", 5*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(15 * time.Second); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr)
	}
	if p.stdout.has("got SIGHUP") {
		t.Fatalf("--reload sends no signal:\n%s", p.stdout)
	}
}

// TestReloadOnNotAFile: --reload-on a path that is neither a regular file
// nor a directory (a device, a FIFO) is watched, but its bytes are never
// read, so tend warns once at start at the default verbosity.
func TestReloadOnNotAFile(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "conf")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/dev/zero", fifo} {
		code, _, errOut := runTend(t, opts{}, "-s", "--reload-on", path, "--", "true")
		if code != 0 || !strings.Contains(errOut, "WARN: reload: \""+path+"\" is not a regular file") {
			t.Errorf("--reload-on %s: exit %d, want 0 and one warning:\n%s", path, code, errOut)
		}
	}
	code, _, errOut := runTend(t, opts{}, "-s", "--reload-on", t.TempDir(), "--", "true")
	if code != 0 || strings.Contains(errOut, "reload:") {
		t.Errorf("--reload-on a directory: exit %d, want 0 and no warning:\n%s", code, errOut)
	}
}
