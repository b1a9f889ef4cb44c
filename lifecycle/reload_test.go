package lifecycle

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/watch"
)

// TestReloadDecisions: the machine reloads on changed bytes only, never
// two at once (a change during a reload action waits for it, and several
// collapse into one), and never once a stop has begun.
func TestReloadDecisions(t *testing.T) {
	snap := func(v string) watch.Snapshot { return watch.Snapshot{"/etc/app.conf": v} }
	t.Run("signal", func(t *testing.T) {
		m, r := newTestMachine(func(c *plan.Config) { c.ReloadOn = []string{"/etc/app.conf"} })
		m.st.reload.Applied = snap("a")
		m.begin(42)
		m.handle(reloadSeen{snap("a")}) // the same bytes
		m.handle(reloadSeen{snap("b")})
		m.handle(reloadSeen{snap("b")})
		m.handle(sigEvent{unix.SIGTERM})
		m.handle(reloadSeen{snap("c")}) // during the stop
		if got := strings.Count(strings.Join(r.acts, "\n"), "signal SIGHUP"); got != 1 || m.st.reload.Count != 1 {
			t.Fatalf("want one HUP, got %d (count %d): %q", got, m.st.reload.Count, r.acts)
		}
		if r.published.Reloads != 1 || !r.published.ReloadOn {
			t.Fatalf("published reloads %d", r.published.Reloads)
		}
	})
	t.Run("action", func(t *testing.T) {
		m, r := newTestMachine(func(c *plan.Config) {
			c.ReloadOn = []string{"/etc/app.conf"}
			c.Reload = []hooks.Action{hooks.Command{Argv: []string{"reload"}}}
		})
		m.st.reload.Applied = snap("a")
		m.begin(42)
		m.handle(reloadSeen{snap("b")})
		m.handle(reloadSeen{snap("c")}) // while the first runs: waits
		m.handle(reloadSeen{snap("d")}) // replaces c
		starts := func() int { return strings.Count(strings.Join(r.acts, "\n"), "start reload") }
		if starts() != 1 {
			t.Fatalf("two reloads at once: %q", r.acts)
		}
		m.handle(hookDone{kind: plan.HookReload})
		if starts() != 2 || m.st.reload.Applied["/etc/app.conf"] != "d" {
			t.Fatalf("the change made during the reload must run once after it: %q", r.acts)
		}
		m.handle(sigEvent{unix.SIGTERM})
		if !strings.Contains(strings.Join(r.acts, "\n"), "cancel reload: a stop began") {
			t.Fatalf("a running reload must be cut when a stop begins: %q", r.acts)
		}
		m.handle(hookDone{kind: plan.HookReload, err: errors.New("cancelled")})
		if starts() != 2 || m.st.internalErrors != 0 {
			t.Fatalf("acts %q, internal errors %d", r.acts, m.st.internalErrors)
		}
	})
	t.Run("waiting", func(t *testing.T) {
		// A change while --wait-for waits: the app has not read its files
		// yet, so the new bytes are the ones it starts with, not a reload.
		m, r := newTestMachine(func(c *plan.Config) {
			c.ReloadOn = []string{"/etc/app.conf"}
			c.WaitFor = []plan.Wait{{Name: "db", Spec: "tcp://db:5432"}}
		})
		m.st.reload.Applied = snap("a")
		m.begin(0)
		if m.st.phase != phaseWaiting {
			t.Fatalf("phase %s, want waiting", m.st.phase)
		}
		m.handle(reloadSeen{snap("b")})
		if m.st.reload.Applied["/etc/app.conf"] != "b" || m.st.reload.Count != 0 {
			t.Fatalf("a change while waiting must be adopted, not reloaded: applied %q, count %d, acts %q", m.st.reload.Applied, m.st.reload.Count, r.acts)
		}
	})
}
