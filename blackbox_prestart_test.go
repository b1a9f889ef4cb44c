package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreStartRunsBeforeTheApp: pre-start runs, as tend (root) even with
// --user, before the app starts, as a docker-entrypoint.sh prepares a
// volume before dropping to the app's user.
func TestPreStartRunsBeforeTheApp(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("--user needs root")
	}
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o777); err != nil { // nobody reads here
			t.Fatal(err)
		}
	}
	prep := filepath.Join(dir, "prepared")
	code, out, errOut := runTend(t, opts{pid1: true}, "--user", "nobody",
		"--pre-start", `echo "$(id -u)" > `+prep,
		"--", "sh", "-c", `echo "app $(id -u) saw $(cat `+prep+`)"`)
	if code != 0 || !strings.Contains(out, "app 65534 saw 0") {
		t.Fatalf("want the app (nobody) to see what pre-start (root) prepared; got %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestFailingPreStartNeverStartsTheApp: a failing pre-start means no app,
// exit 69 with the reason, and post-stop still runs.
func TestFailingPreStartNeverStartsTheApp(t *testing.T) {
	code, out, errOut := runTend(t, opts{pid1: true}, "--pre-start", "exit 3", "--post-stop", "echo post-stop ran",
		"--", "sh", "-c", "echo app-ran")
	if code != 69 || strings.Contains(out, "app-ran") || !strings.Contains(out, "post-stop ran") || !strings.Contains(errOut, "pre-start failed") {
		t.Fatalf("want 69, no app, post-stop; got %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
