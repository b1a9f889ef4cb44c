package signals

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestSetParentDeath: 0 leaves the parent-death signal alone; a signal is
// what the kernel then reports.
func TestSetParentDeath(t *testing.T) {
	get := func() int {
		var v int32
		if err := unix.Prctl(unix.PR_GET_PDEATHSIG, uintptr(unsafe.Pointer(&v)), 0, 0, 0); err != nil {
			t.Fatal(err)
		}
		return int(v)
	}
	defer func() { _ = unix.Prctl(unix.PR_SET_PDEATHSIG, 0, 0, 0, 0) }() // back to none: best effort
	if err := SetParentDeath(0); err != nil || get() != 0 {
		t.Fatalf("SetParentDeath(0): %v, now %d", err, get())
	}
	if err := SetParentDeath(unix.SIGUSR2); err != nil || get() != int(unix.SIGUSR2) {
		t.Fatalf("SetParentDeath(USR2): %v, now %d", err, get())
	}
}
