package terminal

import (
	"slices"

	"golang.org/x/sys/unix"
)

// HandOff is what is left of the tty hand-off: once tend, leading its
// session, gave up its terminal (Detach), the kernel sends tend's group
// one HUP and one CONT, and they must not reach the app (plan.GroupSession
// cites the source). The zero value ignores nothing.
type HandOff struct{ pending []unix.Signal }

// Arm expects the HUP and the CONT that a Detach by the session leader
// raises.
func (h *HandOff) Arm() { h.pending = []unix.Signal{unix.SIGHUP, unix.SIGCONT} }

// Ignore reports whether sig is the first of its kind since Arm, which the
// caller must not pass on; each is ignored once.
func (h *HandOff) Ignore(sig unix.Signal) bool {
	i := slices.Index(h.pending, sig)
	if i < 0 {
		return false
	}
	h.pending = slices.Delete(h.pending, i, i+1)
	return true
}
