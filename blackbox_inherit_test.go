package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestChildrenInheritWhatTendInherited: a hook and an exec probe start with
// the signal dispositions and mask that tend inherited, as the app does and
// as a plain child of the same shell does: not the SIG_IGN that tend sets
// for itself after the app started (TTIN, TTOU and 32-34). A signal that
// tend inherited ignored stays ignored in them, as with tini. (Before: both
// had SigIgn 0x280300000 more than the app: TTIN, TTOU, 32 and 34.)
func TestChildrenInheritWhatTendInherited(t *testing.T) {
	for _, c := range []struct {
		name  string
		traps string // sh traps set before tend (or the baseline) starts
	}{
		{"nothing ignored", ""},
		{"INT HUP TTIN TTOU 34 ignored", `trap '' INT HUP TTIN TTOU 34; `},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			show := func(who string) string {
				return `grep -E '^Sig(Ign|Blk):' /proc/self/status > ` + filepath.Join(dir, who+".tmp") + ` && mv ` + filepath.Join(dir, who+".tmp") + ` ` + filepath.Join(dir, who)
			}
			base, err := exec.Command("sh", "-c", c.traps+show("base")).CombinedOutput()
			if err != nil {
				t.Fatalf("baseline: %v %s", err, base)
			}
			// The app waits for the probe's report, then exits 0.
			app := show("app") + `; i=0; while [ ! -e ` + filepath.Join(dir, "probe") + ` ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done`
			code, _, stderr := runTend(t, opts{shell: c.traps + `exec "$TEND" -s --post-start ` + shq(show("hook")) +
				` --ready-probe ` + shq(show("probe")) + ` --probe-period 50ms -- sh -c ` + shq(app)})
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			want := read(t, filepath.Join(dir, "base"))
			for _, who := range []string{"app", "hook", "probe"} {
				if got := read(t, filepath.Join(dir, who)); got != want {
					t.Errorf("%s got\n%s\nwant what tend inherited\n%s", who, got, want)
				}
			}
		})
	}
}

// shq quotes s for sh.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func read(t *testing.T, path string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		b, err := os.ReadFile(path)
		if err == nil {
			return strings.TrimSpace(string(b))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", path, err)
		}
	}
}
