package main

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// joinpgid PID FILE MODE ARGS: move this process into PID's process group
// (setpgid), write the group's id to FILE, then run MODE. A hook or probe
// that does this has left the group tend kills at its timeout.
func joinpgid(args []string) int {
	pgid, err := syscall.Getpgid(atoi(arg(args, 0)))
	if err == nil {
		err = syscall.Setpgid(0, pgid)
	}
	if err == nil {
		err = os.WriteFile(arg(args, 1), []byte(strconv.Itoa(pgid)), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "joinpgid:", err)
		return 1
	}
	return dispatch(arg(args, 2), args[min(3, len(args)):])
}
