package lifecycle

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
)

// fakeappBin is the fake app the PID-1 tests run, built once.
var fakeappBin string

func TestMain(m *testing.M) {
	// Under nohup (some CI runners) HUP arrives ignored, and what this
	// process starts would inherit SIG_IGN: handling it here gives every
	// child the default action again, as the tests expect.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(pid1Helper(mode))
	}
	dir, err := os.MkdirTemp("", "tend-lifecycle-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fakeappBin = filepath.Join(dir, "fakeapp")
	cmd := exec.Command("go", "build", "-o", fakeappBin, "../testdata/fakeapp")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the fake app: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir) // temp dir; leaking it on failure is harmless
	os.Exit(code)
}
