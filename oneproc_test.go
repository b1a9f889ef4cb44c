package main_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestOneProcInitsFirst: internal/oneproc sets GOMAXPROCS to 1 in its init,
// which must run before any package's init allocates (its doc says why).
// Go picks, at each step, the first package by import path whose imports
// are all initialised, so what runs before it depends on its path and its
// imports, not on where main imports it; the runtime's init trace shows
// the order tend was built with.
func TestOneProcInitsFirst(t *testing.T) {
	cmd := exec.Command(staticTendBin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tend --version: %v\n%s", err, out)
	}
	line := regexp.MustCompile(`^init (\S+) @.* ([0-9]+) bytes, ([0-9]+) allocs$`)
	var before []string
	for _, l := range strings.Split(string(out), "\n") {
		m := line.FindStringSubmatch(l)
		switch {
		case m == nil:
		case m[1] == "github.com/tend-init/tend/internal/oneproc":
			if len(before) > 0 {
				t.Errorf("packages allocated in their init before oneproc set GOMAXPROCS:\n%s", strings.Join(before, "\n"))
			}
			return
		case m[2] != "0" || m[3] != "0":
			before = append(before, l)
		}
	}
	t.Fatalf("no init of internal/oneproc in the trace:\n%s", out)
}
