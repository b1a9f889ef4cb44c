package signals

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// SetParentDeath has the kernel send tend sig when its parent dies (-p,
// tini's PR_SET_PDEATHSIG); 0 sets nothing.
func SetParentDeath(sig unix.Signal) error {
	if sig == 0 {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(sig), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_PDEATHSIG, %s): %w", Name(sig), err)
	}
	return nil
}
