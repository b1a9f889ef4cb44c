package hooks

import (
	"slices"
	"testing"
)

// TestEnv: the variables each run gets, and two runs built from one base
// never share a backing array.
func TestEnv(t *testing.T) {
	base := make([]string, 1, 8) // room to append in place: the trap
	base[0] = "PATH=/bin"
	code := 3
	for _, c := range []struct {
		name     string
		pid      int
		exitCode *int
		want     []string
	}{
		{"wait", 0, nil, []string{"PATH=/bin", "TEND_HOOK=wait"}},
		{"live-probe", 7, nil, []string{"PATH=/bin", "TEND_HOOK=live-probe", "TEND_APP_PID=7"}},
		{"post-stop", 0, &code, []string{"PATH=/bin", "TEND_HOOK=post-stop", "TEND_EXIT_CODE=3"}},
	} {
		if got := Env(base, c.name, c.pid, c.exitCode); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	a, b := Env(base, "ready-probe", 0, nil), Env(base, "live-probe", 0, nil)
	if a[1] != "TEND_HOOK=ready-probe" || b[1] != "TEND_HOOK=live-probe" {
		t.Errorf("runs share their variables: %q, %q", a, b)
	}
}
