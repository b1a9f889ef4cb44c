package reaper

import (
	"os/exec"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSignalExitedGroup: the signal reaches the group pid leads; a pid of
// 0 or less signals nobody (kill(0) or kill(1) would reach tend's own
// group or every process).
func TestSignalExitedGroup(t *testing.T) {
	SignalExitedGroup(0, unix.SIGTERM) // the test would die of it
	SignalExitedGroup(-1, unix.SIGTERM)
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep: %v", err)
	}
	SignalExitedGroup(cmd.Process.Pid, unix.SIGTERM)
	_ = cmd.Wait() // its status is read below
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Fatalf("sleep ended %v, want killed by SIGTERM", cmd.ProcessState)
	}
}
