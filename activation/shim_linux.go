package activation

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/tend-init/tend/reaper"
	"golang.org/x/sys/unix"
)

// The shim is tend re-executed between fork and the app's exec, to do what
// catatonit does there in C: set LISTEN_PID to the child's own pid. It
// runs in the process that becomes the app, so the pid, the pidfd, the
// credentials (--user applies at the fork), the session, the process group
// and the terminal are the app's. Its command line is
//
//	tend-listen-shim STATUS-FD IGNORED-MASK PATH ARGV0 ARGS...
//
// STATUS-FD is the write end of a pipe; the shim marks it close-on-exec, so
// tend reads end-of-file when the exec succeeds, and otherwise the exec's
// errno, which tend reports as it would a direct start's (126, 127 and the
// same message). IGNORED-MASK (hex, bit N-1 for signal N) lists the signals
// the app must inherit ignored: the shim's own Go runtime installed
// handlers over them, which exec would turn into SIG_DFL.
const shimName = "tend-listen-shim"

// shimPath is tend's own executable, whatever it is called and wherever it
// moved: the kernel resolves the link in the forked child, which is still
// tend.
const shimPath = "/proc/self/exe"

// StatusTimeout bounds tend's wait for the shim's word. The shim's start
// is a Go runtime's, about a millisecond; a shim stopped or starved past
// this is taken as the app, as a direct start would have been.
const StatusTimeout = 10 * time.Second

// Shim runs the shim when args are a shim's command line, and then never
// returns; otherwise it returns at once. main calls it first.
func Shim(args []string) {
	if len(args) < 5 || args[0] != shimName {
		return
	}
	os.Exit(shim(args[1:]))
}

// shim execs the app with LISTEN_PID (and LISTEN_PIDFDID) naming this
// process, or writes the exec's errno to the status pipe and returns 127.
func shim(args []string) int {
	fd, err := strconv.Atoi(args[0])
	mask, merr := strconv.ParseUint(args[1], 16, 64)
	if err != nil || merr != nil || fd < FirstFd {
		_, _ = fmt.Fprintf(os.Stderr, "%s: bad arguments\n", shimName) // nothing else to tell
		return 127
	}
	unix.CloseOnExec(fd)
	id, ok := uint64(0), false
	if _, has := os.LookupEnv(EnvPidfdID); has {
		id, ok = OwnPidfdID()
	}
	env := forChild(os.Environ(), os.Getpid(), id, ok)
	for n := 1; n <= 64; n++ {
		if mask&(1<<(n-1)) != 0 {
			ignoreRaw(n)
		}
	}
	err = syscall.Exec(args[2], args[3:], env)
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		errno = syscall.EINVAL
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(errno))
	_, _ = unix.Write(fd, b[:]) // tend reads EOF and takes the app as started: nothing better to do
	return 127
}

// ignoreRaw sets SIG_IGN with rt_sigaction: os/signal refuses some of the
// signals (32-34), and SIG_IGN runs no code, so it cannot disturb the
// runtime in the instant before exec. KILL and STOP refuse it, harmlessly.
func ignoreRaw(sig int) {
	act := [4]uint64{1, 0, 0, 0} // SIG_IGN, no flags, empty mask
	_, _, _ = unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
}

// ErrShim wraps a failure to start the shim itself (tend's own binary not
// executable by the --user, /proc not mounted, a full pid limit…): the
// app was not started, and the caller may start it directly instead.
type ErrShim struct{ Err error }

func (e *ErrShim) Error() string { return "socket-activation shim: " + e.Err.Error() }
func (e *ErrShim) Unwrap() error { return e.Err }

// Start starts cmd through start (the reaper's), by way of the shim, with
// files as its descriptors FirstFd, FirstFd+1…, and ignored inherited
// ignored. It returns once the app's exec has succeeded or failed; a
// failed exec is an *os.PathError as from a direct start, so the caller
// classifies it the same way. cmd.Env must hold the offer's variables.
func Start(start func(*exec.Cmd) (*reaper.Child, error), cmd *exec.Cmd, files []*os.File, ignored []unix.Signal) (*reaper.Child, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, &ErrShim{Err: err}
	}
	defer func() { _ = pr.Close() }() // read end: no data lost by closing
	var mask uint64
	for _, s := range ignored {
		if s >= 1 && s <= 64 {
			mask |= 1 << (uint(s) - 1)
		}
	}
	args := cmd.Args
	if len(args) == 0 {
		args = []string{cmd.Path}
	}
	shim := *cmd
	shim.Path = shimPath
	shim.Args = append([]string{shimName, strconv.Itoa(FirstFd + len(files)), strconv.FormatUint(mask, 16), cmd.Path}, args...)
	shim.ExtraFiles = append(append([]*os.File{}, files...), pw)
	if shim.Env == nil {
		shim.Env = os.Environ()
	}
	c, err := start(&shim)
	_ = pw.Close() // the child has its copy; ours must go for EOF to come
	if err != nil {
		return nil, &ErrShim{Err: err}
	}
	_ = pr.SetReadDeadline(time.Now().Add(StatusTimeout)) // a pipe: the poller takes deadlines
	var b [4]byte
	switch n, err := io.ReadFull(pr, b[:]); {
	case n == 4:
		// The shim exits at once; the reaper collects it as a child it
		// knows, so it is no orphan. Nothing reads its exit.
		c.Release()
		return nil, &os.PathError{Op: "fork/exec", Path: cmd.Path, Err: syscall.Errno(binary.LittleEndian.Uint32(b[:]))}
	case err == io.EOF:
		return c, nil // exec'd: the close-on-exec write end closed
	default:
		return c, nil // timed out or cut short: the process is the app's, as with a direct start
	}
}
