// Package subreaper marks tend as a child subreaper, so that orphans of its
// descendants are re-parented to tend instead of to the real init.
package subreaper

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Set registers the calling process as a child subreaper. The attribute
// belongs to the process, survives execve and is not inherited across fork,
// so it must be set by tend itself before the app is started.
func Set() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	return nil
}

// Is reports whether the calling process is already a child subreaper, for
// example because a wrapper set the bit and then exec'd tend.
func Is() (bool, error) {
	var v int32
	// PR_GET_CHILD_SUBREAPER writes an int through the pointer in arg2.
	if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&v)), 0, 0, 0); err != nil {
		return false, fmt.Errorf("prctl(PR_GET_CHILD_SUBREAPER): %w", err)
	}
	return v != 0, nil
}
