package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExecFormHookGetsNoShellFallback: a script without "#!" runs as the
// app, under /bin/sh as tini's execvp runs it, but as an exec-form hook it
// fails with "exec format error", as under the kubelet, whose runtime
// execs hooks with execve alone (reaper/script_linux.go).
func TestExecFormHookGetsNoShellFallback(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "noshebang")
	if err := os.WriteFile(script, []byte("exit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runTend(t, opts{pid1: true}, "--", script); code != 0 {
		t.Fatalf("the app without #!: exit %d, stderr %q; want 0, run by /bin/sh", code, errOut)
	}
	code, _, errOut := runTend(t, opts{pid1: true}, "--post-start", `["`+script+`"]`, "--", fakeappBin, "exit", "0")
	if code != 69 || !strings.Contains(errOut, "exec format error") {
		t.Fatalf("an exec-form post-start without #!: exit %d, stderr %q; want 69 (post-start failed) and exec format error", code, errOut)
	}
}
