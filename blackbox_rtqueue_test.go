package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestChildrenGetTheInheritedQueueLimit: tend caps its own queue of
// realtime signals once the app has started (signals.QueueLimit); the app,
// a post-start hook, an exec probe and a pre-stop hook all run with the
// limit tend was given, not with tend's cap.
func TestChildrenGetTheInheritedQueueLimit(t *testing.T) {
	var want syscall.Rlimit
	if err := syscall.Getrlimit(0xb /* RLIMIT_SIGPENDING */, &want); err != nil {
		t.Fatal(err)
	}
	if want.Cur <= 1024 {
		t.Skipf("this shell's own soft limit, %d, is no higher than tend's cap", want.Cur)
	}
	dir := t.TempDir()
	save := func(name string) string {
		return `grep "Max pending signals" /proc/self/limits > ` + filepath.Join(dir, name) + `.tmp && mv ` +
			filepath.Join(dir, name) + `.tmp ` + filepath.Join(dir, name)
	}
	p := startTend(t, opts{pid1: true},
		"--post-start", save("post-start"),
		"--live-probe", save("probe"), "--live-probe-period", "50ms",
		"--pre-stop", save("pre-stop"),
		"--", "sh", "-c", save("app")+`; exec "$FAKEAPP" signals TERM 0`)
	p.stdout.wait(t, "ready", 10*time.Second)
	read := func(name string) string {
		t.Helper()
		return readWhenPresent(t, filepath.Join(dir, name), 10*time.Second)
	}
	got := map[string]string{"app": read("app"), "post-start": read("post-start"), "probe": read("probe")}
	// tend's own cap, for contrast: the test would pass vacuously if
	// tend never lowered it.
	if b, err := os.ReadFile("/proc/" + itoa(p.pid) + "/limits"); err == nil {
		if !strings.Contains(softPending(string(b)), "1024") {
			t.Fatalf("tend did not cap its own queue: %q", softPending(string(b)))
		}
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	got["pre-stop"] = read("pre-stop")
	for name, line := range got {
		if s := softPending(line); s != itoa(int(want.Cur)) {
			t.Errorf("%s ran with a soft limit of %s pending signals, want %d (tend's own, before its cap)", name, s, want.Cur)
		}
	}
}

// softPending is the soft limit of a "Max pending signals" line.
func softPending(limits string) string {
	for _, l := range strings.Split(limits, "\n") {
		if rest, ok := strings.CutPrefix(l, "Max pending signals"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				return f[0]
			}
		}
	}
	return ""
}
