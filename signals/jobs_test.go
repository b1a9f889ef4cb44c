package signals

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestIsJobStop: only the terminal's three stop signals; never STOP, which
// nobody can catch, nor CONT.
func TestIsJobStop(t *testing.T) {
	for sig, want := range map[unix.Signal]bool{
		unix.SIGTSTP: true, unix.SIGTTIN: true, unix.SIGTTOU: true,
		unix.SIGSTOP: false, unix.SIGCONT: false, unix.SIGTERM: false,
	} {
		if got := IsJobStop(sig); got != want {
			t.Errorf("IsJobStop(%s) = %v, want %v", Name(sig), got, want)
		}
	}
}
