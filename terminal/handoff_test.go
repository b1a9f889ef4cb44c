package terminal

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestHandOff: unarmed, nothing is ignored; armed, the first HUP and the
// first CONT are, in any order, and nothing else or after.
func TestHandOff(t *testing.T) {
	var h HandOff
	if h.Ignore(unix.SIGHUP) {
		t.Fatal("unarmed hand-off ignored HUP")
	}
	h.Arm()
	for i, c := range []struct {
		sig  unix.Signal
		want bool
	}{
		{unix.SIGTERM, false},
		{unix.SIGCONT, true},
		{unix.SIGCONT, false},
		{unix.SIGHUP, true},
		{unix.SIGHUP, false},
	} {
		if got := h.Ignore(c.sig); got != c.want {
			t.Errorf("step %d: Ignore(%d) = %v, want %v", i, c.sig, got, c.want)
		}
	}
}
