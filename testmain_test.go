package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
)

// Binaries built once for the real-process tests. tendBin is built with
// -race when the tests run with it; staticTendBin is always the plain
// static build that ships, for a root with no libc and for timings. Both
// are built by packaging/gobuild.sh, which names the build settings once
// (TestBuildsTurnAsyncPreemptionOff).
var (
	tendBin       string
	staticTendBin string
	fakeappBin    string
)

func TestMain(m *testing.M) {
	// Under nohup (some CI runners) HUP arrives ignored, and what this
	// process starts would inherit SIG_IGN: handling it here gives every
	// child the default action again, as the tests expect.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	dir, err := os.MkdirTemp("", "tend-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tendBin = filepath.Join(dir, "tend")
	staticTendBin = tendBin
	fakeappBin = filepath.Join(dir, "fakeapp")
	builds := []struct {
		out, pkg string
		race     bool
	}{{tendBin, ".", raceEnabled}, {fakeappBin, "./testdata/fakeapp", false}}
	if raceEnabled {
		staticTendBin = filepath.Join(dir, "tend-static")
		builds = append(builds, struct {
			out, pkg string
			race     bool
		}{staticTendBin, ".", false})
	}
	for _, b := range builds {
		name, args := "go", []string{"build", "-o", b.out}
		if b.pkg == "." {
			name, args = "sh", []string{"packaging/gobuild.sh", "-o", b.out} // as it ships
		}
		cgo := "CGO_ENABLED=0"
		if b.race {
			args, cgo = append(args, "-race"), "CGO_ENABLED=1" // -race needs cgo
		}
		cmd := exec.Command(name, append(args, b.pkg)...)
		cmd.Env = append(os.Environ(), cgo, "VERSION=")
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", b.pkg, err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	_ = os.RemoveAll(dir) // temp dir; leaking it on failure is harmless
	os.Exit(code)
}
