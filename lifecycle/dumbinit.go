package lifecycle

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/reaper"
	"golang.org/x/sys/unix"
)

// DumbInit is the dumb-init mode: tend installed or invoked as dumb-init
// (README, "Migrating from dumb-init"). It is a mode of this one loop, not
// a second one: the differences are these few rules, each taken from
// dumb-init.c (1.2.5), and hooks, probes and the health endpoint stay
// available through TEND_* variables.
//   - Setsid (the default): the app leads a new session, with stdin's
//     terminal as its controlling terminal when no other session holds
//     it (dumbinit_tty.go), and every signal goes to its process group
//     (Config.KillGroup). With -c the app
//     stays in tend's process group and only it is signalled.
//   - Every catchable signal is forwarded (signals.ListenDumbInit); a
//     received TSTP, TTIN or TTOU is forwarded (as STOP by default in
//     setsid mode), then tend stops itself, so that a shell's
//     waitpid(WUNTRACED) sees it stopped.
//   - A stop sends only the received signal: no SIGCONT after it, and no
//     SIGKILL at the grace period unless TEND_GRACE_PERIOD asks for one.
//   - When the app exits, its process group gets TERM (setsid mode) and
//     tend exits with the app's code; a program that cannot be started
//     exits 2.
//   - tend changes to / once the app has started (hooks and exec probes
//     keep the directory tend was started in).
type DumbInit struct {
	Setsid bool // off with -c, --single-child or DUMB_INIT_SETSID=0
	Debug  bool // -v, --verbose or DUMB_INIT_DEBUG=1: dumb-init's lines
	// GraceKill: TEND_GRACE_PERIOD was given, so a stop ends in SIGKILL
	// at the grace period as in tend's own mode; dumb-init never kills.
	GraceKill bool
	// URG: asynchronous preemption is off (AsyncPreemptOff), so a SIGURG
	// is never the runtime's own and is forwarded.
	URG bool
}

// ExitExecFailed is dumb-init's exit code when the program cannot be run.
const ExitExecFailed = 2

// dumb reports whether the machine runs in the dumb-init mode.
func (m *machine) dumb() bool { return m.cfg.DumbInit != nil }

// graceKill: whether a stop ends in SIGKILL at the grace period.
func (m *machine) graceKill() bool { return m.cfg.DumbInit == nil || m.cfg.DumbInit.GraceKill }

// dumbHandOff reports whether recv is the first HUP or CONT after tend
// detached from the terminal of the session it led: the kernel sends both
// to tend's group then, and they must not reach the app (dumb-init #136).
func (m *machine) dumbHandOff(recv unix.Signal) bool {
	i := slices.Index(m.st.handOff, recv)
	if i < 0 {
		return false
	}
	m.st.handOff = slices.Delete(m.st.handOff, i, i+1)
	m.log.DumbInitf("Ignoring tty hand-off signal %d.", recv)
	return true
}

// isJobStop: the terminal's stop signals, after which dumb-init suspends
// itself.
func isJobStop(sig unix.Signal) bool {
	return sig == unix.SIGTSTP || sig == unix.SIGTTIN || sig == unix.SIGTTOU
}

// dumbSuspend stops tend as dumb-init stops itself after forwarding a
// terminal stop signal; the SIGCONT that resumes it is then forwarded. As
// PID 1 the kernel discards the SIGSTOP, as it does dumb-init's.
func (m *machine) dumbSuspend(recv unix.Signal) {
	if !isJobStop(recv) {
		return
	}
	m.log.DumbInitf("Suspending self due to TTY signal.")
	m.w.suspend()
}

// dumbAppExit is dumb-init's last act: TERM to what is left of the app's
// process group in setsid mode, then the exit with the app's code, which
// the drain and post-stop follow here. In single-child mode dumb-init
// sends its TERM to the reaped pid itself, which can only reach a
// stranger: tend sends nothing there, and says what dumb-init says.
func (m *machine) dumbAppExit(code int) {
	if m.cfg.DumbInit.Setsid {
		m.w.signalExitedGroup(m.st.appPid, unix.SIGTERM)
	}
	m.log.DumbInitf("Forwarded signal %d to children.", unix.SIGTERM)
	m.log.DumbInitf("Child exited with status %d. Goodbye.", code)
}

// DumbInitf writes one of dumb-init's -v lines, "[dumb-init] " and the
// message, when the dumb-init mode's debug output is on; in order with
// tend's own lines, through the same queue.
func (l *Logger) DumbInitf(format string, args ...any) {
	if l == nil || !l.dumb {
		return
	}
	l.Raw("[dumb-init] " + fmt.Sprintf(format, args...))
}

// ownsSockets reports whether tend itself will write to sockets: a health
// endpoint, an HTTP, TCP or gRPC probe, or an HTTP hook. A PIPE raised by
// one of those writes cannot be told from a PIPE someone sent, so the
// dumb-init mode then does not forward PIPE (signals.DumbInitForwarded).
func ownsSockets(cfg *Config) bool {
	if cfg.HealthAddr != "" {
		return true
	}
	for _, c := range cfg.Checks {
		if _, ok := c.Checker.(probe.Command); !ok {
			return true
		}
	}
	for _, hs := range [][]hooks.Action{cfg.PreStart, cfg.PostStart, cfg.PreStop, cfg.PostStop} {
		for _, a := range hs {
			if _, ok := a.(hooks.HTTPGet); ok {
				return true
			}
		}
	}
	return false
}

// dumbStarted does what dumb-init does once its child runs: says so, and
// leaves the working directory, so that tend never holds a mount busy; the
// app keeps it, and hooks and exec probes are started in it (childDir).
func (l *Loop) dumbStarted(pid int) {
	l.log.DumbInitf("Child spawned with PID %d.", pid)
	if l.cfg.DumbInit.Setsid {
		// The child says both in dumb-init; ours cannot.
		if !l.ctty.ok {
			l.log.DumbInitf("Unable to attach to controlling tty (errno=%d %s).", int(l.ctty.errno), reaper.Strerror(l.ctty.errno))
		}
		l.log.DumbInitf("setsid complete.")
	}
	if dir, err := os.Getwd(); err == nil {
		l.childDir = dir
	}
	if err := os.Chdir("/"); err != nil {
		l.log.DumbInitf("Unable to chdir(\"/\") (errno=%v)", err)
	}
}

// reportExits writes dumb-init's lines for what the last Reap collected:
// the SIGCHLD that woke it, then each exit. Only a Reap that collected
// something says so: tend also reaps without a SIGCHLD (the sweep after
// the start), and a SIGCHLD whose exits a sweep already took has nothing
// to report.
func (l *Loop) reportExits() {
	if len(l.exits) == 0 {
		return
	}
	l.log.DumbInitf("Received signal %d.", unix.SIGCHLD)
	for _, e := range l.exits {
		if e.Status.Signaled() {
			l.log.DumbInitf("A child with PID %d was terminated by signal %d.", e.Pid, e.Status.Signal())
		} else {
			l.log.DumbInitf("A child with PID %d exited with exit status %d.", e.Pid, e.Code())
		}
	}
	l.exits = l.exits[:0]
}

// reap is every Reap the loop makes, with the dumb-init mode's report.
func (l *Loop) reapAll() (bool, error) {
	none, err := l.reap.Reap()
	l.reportExits()
	return none, err
}

// suspend is the world's self-suspend (dumbSuspend).
func (l *Loop) suspend() {
	_ = unix.Kill(os.Getpid(), unix.SIGSTOP) // cannot fail for oneself
}

// signalExitedGroup signals the process group the reaped app led. Its pid
// cannot have been reused while the group has members: the kernel keeps a
// pid allocated as long as a process group carries its number, so
// kill(-pid) reaches the app's group or nothing (ESRCH).
func (l *Loop) signalExitedGroup(pid int, sig unix.Signal) {
	if pid <= 0 {
		return
	}
	_ = unix.Kill(-pid, sig) // ESRCH: the group is empty
}

// observeExits keeps each exit for reportExits; called by the reaper
// under its lock, on the loop's goroutine (only the loop reaps).
func (l *Loop) observeExits(e reaper.Exit) { l.exits = append(l.exits, e) }

// DumbInitExecError is dumb-init's line for a program that cannot be run,
// "[dumb-init] PROG: STRERROR", and whether err is that failure; tend then
// exits ExitExecFailed, as dumb-init.
func DumbInitExecError(err error) (string, bool) {
	var e *reaper.ExecError
	if !errors.As(err, &e) {
		return "", false
	}
	errno := unix.ENOENT
	_ = errors.As(e.Err, &errno) // not an errno: dumb-init's most likely
	return fmt.Sprintf("[dumb-init] %s: %s\n", e.Prog, reaper.Strerror(errno)), true
}
