package main_test

import (
	"strings"
	"testing"
)

// TestDaemonisingAppIsWarnedOf: nginx without `daemon off;` exits 0 in
// milliseconds and leaves its real server running; tend says so at the
// default verbosity before it drains it, and still exits with the app's 0.
func TestDaemonisingAppIsWarnedOf(t *testing.T) {
	code, _, errOut := runTend(t, opts{pid1: true}, "--", "sh", "-c", "sleep 60 & exit 0")
	if code != 0 || !strings.Contains(errOut, "the app exited 0 and left 1 process running: is it daemonising?") {
		t.Fatalf("want exit 0 and the warning, got %d:\n%s", code, errOut)
	}
}
