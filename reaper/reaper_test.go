package reaper

import (
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestExitCode(t *testing.T) {
	cases := []struct {
		status unix.WaitStatus
		want   int
	}{
		{0, 0},
		{3 << 8, 3},
		{255 << 8, 255},
		{unix.WaitStatus(unix.SIGTERM), 143},
		{unix.WaitStatus(unix.SIGKILL), 137},
		{unix.WaitStatus(unix.SIGSEGV) | 0x80, 139}, // core dumped
	}
	for _, c := range cases {
		if got := (Exit{Status: c.status}).Code(); got != c.want {
			t.Errorf("status %#x: got %d want %d", int(c.status), got, c.want)
		}
	}
}

func TestStartRejectsGoroutineStdio(t *testing.T) {
	cmd := exec.Command("true")
	cmd.Stdout = new(nopWriter)
	if _, err := New(nil).Start(cmd); err != ErrStdio {
		t.Fatalf("want ErrStdio, got %v", err)
	}
}

type nopWriter struct{}

func (*nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// TestEarlyExitIsNotLost reaps before looking at Done: a child that exits
// at once must still be matched to its subscription, never reported as an
// orphan.
func TestEarlyExitIsNotLost(t *testing.T) {
	var orphans []Exit
	r := New(func(e Exit) { orphans = append(orphans, e) }) // called synchronously by Reap below
	for i := 0; i < 50; i++ {
		c, err := r.Start(exec.Command("sh", "-c", "exit 5"))
		if err != nil {
			t.Fatal(err)
		}
		var e Exit
		for got := false; !got; {
			_, err := r.Reap()
			if err != nil {
				t.Fatal(err)
			}
			if len(orphans) != 0 {
				t.Fatalf("own child reported as orphan: %+v", orphans)
			}
			select {
			case e = <-c.Done():
				got = true
			default:
			}
		}
		if e.Pid != c.Pid || e.Code() != 5 {
			t.Fatalf("got %+v for pid %d", e, c.Pid)
		}
		// The pidfd outlives the pid: signalling a reaped child is a
		// no-op, never a signal to whoever reuses the pid.
		if err := c.Signal(unix.SIGTERM); err != nil {
			t.Fatalf("signal after reap must be a no-op, got %v", err)
		}
		c.Release()
	}
	if none, _ := r.Reap(); !none {
		t.Fatal("expected no children left")
	}
}

func TestDescendants(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & sleep 30 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		// The whole group, sleeps included: they must not outlive the test.
		_ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL) // test cleanup
		_ = cmd.Wait()                                // test cleanup; outside any reaper
	}()
	var pids []int
	for i := 0; i < 200 && len(pids) < 3; i++ {
		var err error
		if pids, err = Descendants(os.Getpid()); err != nil {
			t.Fatal(err)
		}
		if len(pids) < 3 {
			unix.Nanosleep(&unix.Timespec{Nsec: 10e6}, nil)
		}
	}
	if len(pids) < 3 {
		t.Fatalf("want sh and two sleeps below us, got %v", pids)
	}
	for _, p := range pids {
		if p == os.Getpid() || p == 1 {
			t.Fatalf("descendants must not include %d", p)
		}
	}
	if n := CountDescendants(os.Getpid()); n != len(pids) {
		t.Errorf("CountDescendants: %d, want %d", n, len(pids))
	}
}

// TestSignalDescendantsWithoutPidfd: where pidfd_open is refused (an old
// kernel, or a seccomp profile returning ENOSYS or EPERM), the drain still
// signals the tree, by pid. It once took any pidfd_open error for "it
// exited" and silently signalled nothing.
//
// A profile may also refuse only pidfd_send_signal (no kernel does); the
// drain then once logged an error and signalled nobody, stopping at the
// first descendant.
func TestSignalDescendantsWithoutPidfd(t *testing.T) {
	type refusal struct {
		call string
		err  unix.Errno
	}
	for _, r := range []refusal{{"open", unix.ENOSYS}, {"open", unix.EPERM}, {"send", unix.ENOSYS}, {"send", unix.EPERM}} {
		t.Run(r.call+"/"+r.err.Error(), func(t *testing.T) {
			refuse := r.err
			origOpen, origSend := pidfdOpen, pidfdSendSignal
			defer func() { pidfdOpen, pidfdSendSignal = origOpen, origSend }()
			if r.call == "open" {
				pidfdOpen = func(int, int) (int, error) { return -1, refuse }
			} else {
				pidfdSendSignal = func(int, syscall.Signal) unix.Errno { return refuse }
			}
			// sh ignores TERM and outlives it, so the sleeps keep their
			// parent while the drain walks the tree; sh reports how
			// they ended.
			cmd := exec.Command("sh", "-c", "sleep 30 & a=$!; sleep 30 & b=$!; trap '' TERM; wait $a; echo $?; wait $b; echo $?")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL) }() // test cleanup
			for i := 0; i < 200; i++ {
				if pids, _ := Descendants(os.Getpid()); len(pids) >= 3 {
					break
				}
				unix.Nanosleep(&unix.Timespec{Nsec: 10e6}, nil)
			}
			n, err := SignalDescendants(os.Getpid(), unix.SIGTERM)
			if err != nil || n < 3 {
				t.Fatalf("want sh and both sleeps signalled without pidfds, got %d, %v", n, err)
			}
			done := make(chan []byte, 1)
			go func() { b, _ := io.ReadAll(out); done <- b }()
			select {
			case b := <-done:
				if string(b) != "143\n143\n" {
					t.Fatalf("want both sleeps dead of TERM (143), got %q", b)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the sleeps outlived the drain's TERM")
			}
			_ = cmd.Wait() // test cleanup; outside any reaper
		})
	}
}
