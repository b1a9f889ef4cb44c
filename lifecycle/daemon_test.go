package lifecycle

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDaemonisingAppIsWarnedOf: an app that exits on its own and leaves
// processes behind (a server that daemonised) is a warning, shown at the
// default verbosity; the same processes left after a stop are not.
func TestDaemonisingAppIsWarnedOf(t *testing.T) {
	for _, c := range []struct {
		name  string
		steps []event
		warn  bool
	}{
		{"exits 0 on its own", []event{appExit{0}, reaped{none: true}}, true},
		{"exits after TERM", []event{sigEvent{unix.SIGTERM}, appExit{143}, reaped{none: true}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, r := newTestMachine(nil)
			r.children = true
			m.begin(42)
			for _, e := range c.steps {
				m.handle(e)
			}
			log := r.log.String()
			got := strings.Contains(log, "WARN: the app exited 0 and left 3 processes running: is it daemonising?")
			if got != c.warn {
				t.Fatalf("warning %v, want %v:\n%s", got, c.warn, log)
			}
		})
	}
}
