package lifecycle

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/tend-init/tend/reaper"
	"golang.org/x/sys/unix"
)

// pidReuse forces the kernel to hand a reaped child's pid to a new process,
// through ns_last_pid, then signals the old child through every path tend
// uses. The new process must survive.
func pidReuse() string {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return "error=mount-private:" + err.Error()
	}
	if err := unix.Mount("proc", "/proc", "proc", 0, ""); err != nil {
		return "error=mount-proc:" + err.Error()
	}
	r := reaper.New(nil)
	old, err := r.Start(exec.Command("true"))
	if err != nil {
		return "error=start:" + err.Error()
	}
	for {
		if _, err := r.Reap(); err != nil {
			return "error=reap:" + err.Error()
		}
		select {
		case <-old.Done():
		default:
			continue
		}
		break
	}
	// Runtime threads take pids too, so retry until the pid lands.
	for try := 0; try < 50; try++ {
		if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(old.Pid-1)), 0); err != nil {
			return "error=ns_last_pid:" + err.Error()
		}
		cmd := exec.Command("sleep", "30")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		next, err := r.Start(cmd)
		if err != nil {
			return "error=start2:" + err.Error()
		}
		if next.Pid != old.Pid {
			_ = next.Signal(unix.SIGKILL) // not the pid we wanted; try again
			continue
		}
		e1 := old.Signal(unix.SIGKILL)
		e2 := old.SignalGroup(unix.SIGKILL)
		// A stray SIGKILL takes effect within microseconds; give it
		// half a second to show up as an exit.
		alive := true
		for deadline := time.Now().Add(500 * time.Millisecond); alive && time.Now().Before(deadline); {
			_, _ = r.Reap() // a failure shows up as a missing exit below
			select {
			case <-next.Done():
				alive = false
			case <-time.After(5 * time.Millisecond):
			}
		}
		_ = next.SignalGroup(unix.SIGKILL) // clean up the stand-in
		return fmt.Sprintf("reused=true pid=%d alive=%v signal=%v group=%v", next.Pid, alive, e1, e2)
	}
	return "error=pid-never-reused"
}
