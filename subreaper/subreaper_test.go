package subreaper

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSetInChild sets the bit in a re-exec'd copy of the test binary, because
// the bit cannot be cleared for the rest of the test process once set.
func TestSetInChild(t *testing.T) {
	if os.Getenv("SUBREAPER_HELPER") == "1" {
		before, err := Is()
		if err != nil {
			t.Fatal(err)
		}
		if err := Set(); err != nil {
			t.Fatal(err)
		}
		after, err := Is()
		if err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("before=" + boolStr(before) + " after=" + boolStr(after) + "\n")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSetInChild$", "-test.v")
	cmd.Env = append(os.Environ(), "SUBREAPER_HELPER=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper failed: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "before=false after=true") {
		t.Fatalf("subreaper bit not toggled as expected:\n%s", out)
	}
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
