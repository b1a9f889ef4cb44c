package reaper

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitDone reaps until c has been collected, with a deadline.
func waitDone(t *testing.T, r *Reaper, c *Child) Exit {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := r.Reap(); err != nil {
			t.Fatal(err)
		}
		select {
		case e := <-c.Done():
			return e
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d was never reaped", c.Pid)
		}
		unix.Nanosleep(&unix.Timespec{Nsec: 1e6}, nil)
	}
}

// TestStartOwnsPidfd: where the kernel gives pidfds, the child holds one,
// signals go through it, and Release closes it.
func TestStartOwnsPidfd(t *testing.T) {
	r := New(nil)
	c, err := r.Start(exec.Command("sleep", "30"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.HasPidfd() {
		t.Skip("this kernel or seccomp profile gives no pidfd; TestStartWithoutPidfd covers it")
	}
	if err := c.Signal(unix.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if e := waitDone(t, r, c); e.Code() != 143 {
		t.Fatalf("want 143 (TERM), got %d", e.Code())
	}
	c.Release()
	c.Release() // a second Release is harmless
	if c.HasPidfd() {
		t.Fatal("Release must close the pidfd")
	}
}

// TestStartWithoutPidfd plays a kernel or a seccomp profile that refuses
// clone(CLONE_PIDFD) (ENOSYS, EPERM, EINVAL): the start is retried without
// a pidfd, later starts do not ask again, signals go by pid, and a reaped
// child is never signalled.
func TestStartWithoutPidfd(t *testing.T) {
	for _, refuse := range []unix.Errno{unix.ENOSYS, unix.EPERM, unix.EINVAL} {
		t.Run(refuse.Error(), func(t *testing.T) {
			asked := 0
			forkExec = func(path string, argv []string, attr *syscall.ProcAttr) (int, error) {
				if attr.Sys != nil && attr.Sys.PidFD != nil {
					asked++
					return 0, refuse
				}
				return syscall.ForkExec(path, argv, attr)
			}
			defer func() { forkExec = syscall.ForkExec }()
			r := New(nil)
			for i := 0; i < 2; i++ {
				c, err := r.Start(exec.Command("sleep", "30"))
				if err != nil {
					t.Fatalf("start %d: %v", i, err)
				}
				if c.HasPidfd() {
					t.Fatal("no pidfd was given, yet the child has one")
				}
				if err := c.Signal(unix.SIGTERM); err != nil {
					t.Fatal(err)
				}
				if e := waitDone(t, r, c); e.Code() != 143 {
					t.Fatalf("want 143 (TERM), got %d", e.Code())
				}
				// The pid may belong to anyone now: nothing is sent.
				if err := c.Signal(unix.SIGKILL); err != nil {
					t.Fatalf("signal after reap must be a no-op, got %v", err)
				}
				if err := c.SignalGroup(unix.SIGKILL); err != nil {
					t.Fatalf("group signal after reap must be a no-op, got %v", err)
				}
				c.Release()
			}
			if asked != 1 {
				t.Fatalf("a refused pidfd was asked for %d times, want once", asked)
			}
		})
	}
}

// TestSignalWhenPidfdSendIsRefused: a seccomp profile that allows clone
// with CLONE_PIDFD but refuses pidfd_send_signal still lets tend signal
// the child, by pid, under the lock.
func TestSignalWhenPidfdSendIsRefused(t *testing.T) {
	for _, refuse := range []unix.Errno{unix.ENOSYS, unix.EPERM} {
		t.Run(refuse.Error(), func(t *testing.T) {
			pidfdSendSignal = func(int, syscall.Signal) unix.Errno { return refuse }
			defer func() { pidfdSendSignal = sendViaPidfd }()
			r := New(nil)
			c, err := r.Start(exec.Command("sleep", "30"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Release()
			if err := c.Signal(unix.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if e := waitDone(t, r, c); e.Code() != 143 {
				t.Fatalf("want 143 (TERM), got %d", e.Code())
			}
		})
	}
}

// TestStartAsOsExec: the fields of exec.Cmd that tend uses mean what they
// mean to os/exec: nil stdio is /dev/null, Dir, Env with later duplicates
// winning, and an exec failure that names the program.
func TestStartAsOsExec(t *testing.T) {
	dir := t.TempDir()
	out, err := os.Create(dir + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command("sh", "-c", `read x; echo "[$x] $(pwd) $A"`)
	cmd.Dir = dir
	cmd.Env = []string{"A=1", "PATH=" + os.Getenv("PATH"), "A=2"}
	cmd.Stdout = out
	r := New(nil)
	c, err := r.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if e := waitDone(t, r, c); e.Code() != 0 {
		t.Fatalf("exit %d", e.Code())
	}
	c.Release()
	b, err := os.ReadFile(dir + "/out")
	if err != nil {
		t.Fatal(err)
	}
	if want := "[] " + dir + " 2\n"; string(b) != want {
		t.Fatalf("got %q, want %q", b, want)
	}
	if _, err := r.Start(&exec.Cmd{Path: dir, Args: []string{dir}}); err == nil {
		t.Fatal("starting a directory must fail")
	} else if pe, ok := err.(*os.PathError); !ok || pe.Path != dir || pe.Err != unix.EACCES {
		t.Fatalf("want a PathError naming %s with EACCES, got %#v", dir, err)
	}
}

// TestReapDrainsMoreThanAChunk: exits beyond one chunk are all collected
// by a single Reap.
func TestReapDrainsMoreThanAChunk(t *testing.T) {
	r := New(nil)
	var cs []*Child
	for i := 0; i < 3*reapChunk; i++ {
		c, err := r.Start(exec.Command("true"))
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	// Every one a zombie before the one Reap.
	deadline := time.Now().Add(10 * time.Second)
	for _, c := range cs {
		for !zombie(c.Pid) {
			if time.Now().After(deadline) {
				t.Fatalf("pid %d never exited", c.Pid)
			}
			unix.Nanosleep(&unix.Timespec{Nsec: 1e6}, nil)
		}
	}
	if none, err := r.Reap(); err != nil || !none {
		t.Fatalf("want nothing left after one Reap, got none=%v err=%v", none, err)
	}
	for _, c := range cs {
		select {
		case e := <-c.Done():
			if e.Code() != 0 {
				t.Fatalf("pid %d: code %d", c.Pid, e.Code())
			}
		default:
			t.Fatalf("pid %d was not delivered", c.Pid)
		}
		c.Release()
	}
}

// zombie reports whether pid has exited and waits to be reaped.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}
