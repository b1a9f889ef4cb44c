package lifecycle

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

// The torture cases run with small numbers in every `go test`, and with the
// issue's numbers under `make torture` (TEND_TORTURE=1), which runs every
// test named TestTorture* in every package and collects each case's figure
// into a summary table (TEND_TORTURE_SUMMARY).

func torture() bool { return os.Getenv("TEND_TORTURE") == "1" }

func scale(small, full int) int {
	if torture() {
		return full
	}
	return small
}

// report logs a figure and adds it to the summary table.
func report(t *testing.T, name, figure, target string) {
	t.Helper()
	t.Logf("%s: %s (target: %s)", name, figure, target)
	if f := os.Getenv("TEND_TORTURE_SUMMARY"); f != "" {
		out, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		fmt.Fprintf(out, "| %s | %s | %s |\n", name, figure, target)
	}
}

func TestTortureExitCodesUnderFire(t *testing.T) {
	runs := scale(100, 2000)
	cmd, _, out := pid1(t, "fire", strconv.Itoa(runs))
	res := readUntil(t, out, "RESULT", 30*time.Minute)
	_ = cmd.Wait()
	wrong := field(t, res, "wrong")
	report(t, "exit codes under fire", fmt.Sprintf("%s wrong of %d apps, %s orphans reaped, in %s", wrong, runs, field(t, res, "reaped"), field(t, res, "took")), "0 wrong")
	if wrong != "0" || field(t, res, "leftover") != "false" {
		t.Fatalf("%s", res)
	}
}
