package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUserRunsTheAppHooksAndProbes: --user nobody runs the app, post-start,
// pre-stop and an exec probe as nobody, with nobody's HOME, as gosu would;
// post-stop, which cleans up after them, runs as tend (root).
func TestUserRunsTheAppHooksAndProbes(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("switching users needs root")
	}
	dir := t.TempDir()
	// nobody writes here too, through t.TempDir's own 0700 parent.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	save := func(name string) string {
		f := filepath.Join(dir, name)
		return `echo "$(id -u):$(id -g) $HOME" > ` + f + `.tmp && mv ` + f + `.tmp ` + f
	}
	p := startTend(t, opts{pid1: true}, "--user", "nobody",
		"--post-start", save("post-start"), "--pre-stop", save("pre-stop"), "--post-stop", save("post-stop"),
		"--live-probe", save("probe"), "--live-probe-period", "50ms",
		// The test's binaries sit in a root-only directory: the app is
		// the shell itself.
		"--", "sh", "-c", save("app")+`; trap "exit 0" TERM; echo ready; while :; do sleep 0.1; done`)
	p.stdout.wait(t, "ready", 10*time.Second)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("tend's stderr:\n%s", p.stderr)
		}
	})
	read := func(name string) string {
		t.Helper()
		return strings.TrimSpace(readWhenPresent(t, filepath.Join(dir, name), 10*time.Second))
	}
	got := map[string]string{"app": read("app"), "post-start": read("post-start"), "probe": read("probe")}
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.stderr)
	}
	got["pre-stop"], got["post-stop"] = read("pre-stop"), read("post-stop")
	for name, line := range got {
		want := "65534:65534 /nonexistent"
		if name == "post-stop" {
			want = "0:0 " + os.Getenv("HOME")
		}
		if line != want {
			t.Errorf("%s ran as %q, want %q", name, line, want)
		}
	}
}

// TestUserErrors: an unknown user is an error at start, exit 1, naming it.
func TestUserErrors(t *testing.T) {
	code, _, errOut := runTend(t, opts{}, "--user", "no-such-user", "--", "true")
	if code != 1 || !strings.Contains(errOut, `no user "no-such-user" in /etc/passwd`) {
		t.Fatalf("want exit 1 and the reason, got %d: %s", code, errOut)
	}
}
