package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Binaries built once for the real-process tests.
var (
	tendBin    string
	fakeappBin string
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(pid1Helper(mode))
	}
	dir, err := os.MkdirTemp("", "tend-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tendBin = filepath.Join(dir, "tend")
	fakeappBin = filepath.Join(dir, "fakeapp")
	for _, b := range []struct{ out, pkg string }{{tendBin, "."}, {fakeappBin, "./testdata/fakeapp"}} {
		cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", b.pkg, err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	_ = os.RemoveAll(dir) // temp dir; leaking it on failure is harmless
	os.Exit(code)
}
