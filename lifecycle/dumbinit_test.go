package lifecycle

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/signals"
	"golang.org/x/sys/unix"
)

// dumbInit is the behaviour dumb-init's command line fills
// (mode/dumbinit.go, checked by mode's TestDumbInitBehaviour), without
// the trace and the grace period's SIGKILL.
func dumbInit(c *plan.Config, group plan.AppGroup) {
	c.Behaviour = plan.Behaviour{ForwardCatchable: true, SuspendOnJobStop: true, AppGroup: group,
		TermGroupOnExit: group == plan.GroupSession, ChdirRoot: true, TraceTag: "[dumb-init] ",
		ExecFailCode: 2, ExecFailLine: "[dumb-init] %[1]s: %[2]s\n"}
}

// TestDumbInitMachine: the dumb-init mode's behaviours, on the state
// machine with no processes (behaviour.go names them; dumb-init.c is the
// source).
func TestDumbInitMachine(t *testing.T) {
	setsid := func(c *plan.Config) {
		dumbInit(c, plan.GroupSession)
		c.KillGroup = true
		c.Rewrite = signals.Rewrite{unix.SIGTSTP: unix.SIGSTOP, unix.SIGTTIN: unix.SIGSTOP, unix.SIGTTOU: unix.SIGSTOP}
	}
	cases := []struct {
		name    string
		cfg     func(*plan.Config)
		handOff bool // tend detached from the terminal of the session it led
		steps   []step
		acts    []string
		code    int
		lines   []string // dumb-init's -v lines, in order, when set
	}{
		{
			name:  "TERM goes to the group alone: no CONT after it, no SIGKILL however long",
			cfg:   setsid,
			steps: []step{ev(sigEvent{unix.SIGTERM}), after(time.Hour, tick{}), ev(sigEvent{unix.SIGINT}), ev(appExit{143})},
			acts:  []string{"stop probes", "group SIGTERM", "group SIGINT", "exited group 42 SIGTERM"},
			code:  143,
		},
		{
			name: "TEND_GRACE_PERIOD given: SIGKILL at the grace period, as tend",
			cfg: func(c *plan.Config) {
				setsid(c)
				c.KillAtGrace = true
			},
			steps: []step{ev(sigEvent{unix.SIGTERM}), after(10*time.Second, tick{}), ev(appExit{137})},
			acts:  []string{"stop probes", "group SIGTERM", "group SIGKILL", "signal SIGKILL", "exited group 42 SIGTERM"},
			code:  137,
		},
		{
			name:  "TSTP goes to the group as STOP, then tend suspends itself; CONT wakes both",
			cfg:   setsid,
			steps: []step{ev(sigEvent{unix.SIGTSTP}), ev(sigEvent{unix.SIGCONT}), ev(sigEvent{unix.SIGTTOU}), ev(appExit{0})},
			acts:  []string{"group SIGSTOP", "suspend", "group SIGCONT", "group SIGSTOP", "suspend", "exited group 42 SIGTERM"},
		},
		{
			name: "a terminal stop signal a rule drops still suspends tend",
			cfg: func(c *plan.Config) {
				setsid(c)
				c.Rewrite[unix.SIGTTIN] = 0
			},
			steps: []step{ev(sigEvent{unix.SIGTTIN}), ev(appExit{0})},
			acts:  []string{"suspend", "exited group 42 SIGTERM"},
		},
		{
			name:    "after the terminal hand-off, the first HUP and the first CONT are not forwarded",
			cfg:     setsid,
			handOff: true,
			steps:   []step{ev(sigEvent{unix.SIGCONT}), ev(sigEvent{unix.SIGHUP}), ev(sigEvent{unix.SIGHUP}), ev(sigEvent{unix.SIGCONT}), ev(appExit{129})},
			acts:    []string{"group SIGHUP", "group SIGCONT", "exited group 42 SIGTERM"},
			code:    129,
		},
		{
			name: "single-child mode: the app alone, and no TERM to a group at its exit",
			cfg: func(c *plan.Config) {
				dumbInit(c, plan.GroupShared)
			},
			steps: []step{ev(sigEvent{unix.SIGUSR1}), ev(sigEvent{unix.SIGTSTP}), ev(appExit{3})},
			acts:  []string{"signal SIGUSR1", "signal SIGTSTP", "suspend"},
			code:  3,
		},
		{
			name: "-v: dumb-init's lines",
			cfg: func(c *plan.Config) {
				setsid(c)
				c.Trace = true
				c.Rewrite[unix.SIGTERM] = unix.SIGQUIT
				c.Rewrite[unix.SIGWINCH] = 0
			},
			steps: []step{ev(sigEvent{unix.SIGWINCH}), ev(sigEvent{unix.SIGTERM}), ev(appExit{0})},
			acts:  []string{"stop probes", "group SIGQUIT", "exited group 42 SIGTERM"},
			lines: []string{"Received signal 28.", "Translating signal 28 to 0.", "Not forwarding signal 0 to children (ignored).",
				"Received signal 15.", "Translating signal 15 to 3.", "Forwarded signal 3 to children.",
				"Forwarded signal 15 to children.", "Child exited with status 0. Goodbye."},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, r := newTestMachine(c.cfg)
			if m.cfg.Trace {
				m.log.SetTrace(m.cfg.TraceTag)
			}
			if c.handOff {
				m.st.ignoreOnce.Arm()
			}
			m.begin(42)
			for i, s := range c.steps {
				r.clock = r.clock.Add(s.wait)
				m.handle(s.ev)
				if m.st.internalErrors != 0 {
					t.Fatalf("step %d (%T): internal error:\n%s", i, s.ev, r.log.String())
				}
			}
			if m.st.phase != phaseDone {
				t.Errorf("phase %s, want done", m.st.phase)
			}
			if !reflect.DeepEqual(r.acts, c.acts) {
				t.Errorf("actions:\n got %q\nwant %q", r.acts, c.acts)
			}
			if code := m.exitCode(); code != c.code {
				t.Errorf("exit code %d, want %d", code, c.code)
			}
			var lines []string
			for _, l := range strings.Split(r.log.String(), "\n") {
				if s, ok := strings.CutPrefix(l, "[dumb-init] "); ok {
					lines = append(lines, s)
				}
			}
			if !reflect.DeepEqual(lines, c.lines) {
				t.Errorf("dumb-init lines:\n got %q\nwant %q", lines, c.lines)
			}
		})
	}
}

// TestDumbInitCallersTerminal: dumb-init run from an interactive shell (a
// child of the session leader that holds the terminal) must leave the
// shell its terminal: dumb-init's child asks for it with TIOCSCTTY and 0,
// never 1 (which steals it as root), and on failure logs "Unable to attach
// to controlling tty" and runs the app (dumb-init.c, main). The caller is
// a shell that leads a session on a pty this test opened (not the test's
// terminal); it runs the built tend as dumb-init, as root and as uid
// 65534, and reports its own tty_nr (/proc/PID/stat) before and after.
// Debian's dumb-init runs in the same harness, and must pass it too.
func TestDumbInitCallersTerminal(t *testing.T) {
	dir, err := os.MkdirTemp("", "tend-devtty-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })  // temp dir; a leak is harmless
	if err := os.Chmod(dir, 0o755); err != nil { // the caller may be uid 65534
		t.Fatal(err)
	}
	tend := filepath.Join(dir, "dumb-init") // the name selects the mode
	build := exec.Command("sh", "packaging/gobuild.sh", "-o", tend, ".")
	build.Dir, build.Env = "..", append(os.Environ(), "CGO_ENABLED=0") // as it ships
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building tend: %v\n%s", err, out)
	}
	uids := []int{os.Getuid()} // not root: the caller's own uid only
	if os.Getuid() == 0 {
		uids = []int{0, 65534}
	}
	const unable = "[dumb-init] Unable to attach to controlling tty (errno=1 Operation not permitted)."
	cases := []struct {
		name, run string // how the caller runs dumb-init ($1)
		appTty    bool   // the app leads a session on the caller's terminal
	}{
		// The case: the shell's child, in the shell's session.
		{name: "child", run: `"$1"`},
		// A session of its own with no terminal (util-linux setsid):
		// stdin's terminal is not tend's, and the caller holds it.
		{name: "setsid", run: `setsid -w "$1"`},
		// tend leads the session (docker run -t, script(1)): the app
		// takes the terminal, with job control.
		{name: "leader", run: `exec "$1"`, appTty: true},
	}
	for _, bin := range []struct{ name, path string }{{"tend", tend}, {"debian-dumb-init", "/usr/bin/dumb-init"}} {
		for _, c := range cases {
			for _, uid := range uids {
				t.Run(fmt.Sprintf("%s/%s/uid=%d", bin.name, c.name, uid), func(t *testing.T) {
					if _, err := os.Stat(bin.path); err != nil {
						t.Skipf("SKIP: no %s here (apt-get install dumb-init): %v", bin.path, err)
					}
					got, code, out := fromTerminal(t, bin.path, c.run, uid)
					t.Logf("caller's report %v, code %d; terminal:\n%s", got, code, out)
					if got["before"] == "" || got["before"] == "0" {
						t.Fatalf("the caller had no controlling terminal to begin with (tty_nr %q): the harness is broken", got["before"])
					}
					if code != 7 || !strings.Contains(out, "app-ran") {
						t.Errorf("exit code %d, want the app's 7 (app ran: %v)", code, strings.Contains(out, "app-ran"))
					}
					if c.appTty {
						if want := "app-ran tty=" + got["before"]; !strings.Contains(out, want) || strings.Contains(out, unable) {
							t.Errorf("the app did not take the terminal tend let go of: want %q and no %q", want, unable)
						}
						return
					}
					if got["after"] != got["before"] {
						t.Errorf("the caller's controlling terminal (tty_nr) was %s, and %s after dumb-init ran: taken from it", got["before"], got["after"])
					}
					if !strings.Contains(out, unable) || !strings.Contains(out, "app-ran tty=0") {
						t.Errorf("want %q under -v, and the app with no terminal", unable)
					}
				})
			}
		}
	}
}

// callerScript leads the session (the test made the pty its controlling
// terminal), reports its tty_nr on fd 3, runs dumb-init ($1) as $2 says
// with -v and fd 3 closed, reports its tty_nr again and exits with
// dumb-init's code. The app says it ran, with its own tty_nr.
const callerScript = `ttynr() { k=$1; read -r s < /proc/$$/stat; set -- ${s##*) }; echo "$k=$5" >&3; }
ttynr before
eval "$2"' -v sh -c "$3" 3>&-'
code=$?
ttynr after
exit $code`

const appScript = `read -r s < /proc/$$/stat; set -- ${s##*) }; echo "app-ran tty=$5"; exit 7`

// fromTerminal runs callerScript as uid on a new pty, and returns its
// report, its exit code and what the terminal received.
func fromTerminal(t *testing.T, bin, run string, uid int) (report map[string]string, code int, out string) {
	master, slave := openPty(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("sh", "-c", callerScript, "caller", bin, run, appScript)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if uid != os.Getuid() {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}
	}
	err = cmd.Start()
	_ = w.Close()     // the caller holds its copy
	_ = slave.Close() // likewise; the master reads EIO once all are gone
	if err != nil {
		t.Fatal(err)
	}
	term := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(master) // EIO at the end: a pty's EOF
		term <- string(b)
	}()
	timer := time.AfterFunc(time.Minute, func() { _ = cmd.Process.Kill() }) // hang bound
	b, _ := io.ReadAll(r)
	_ = cmd.Wait() // the exit code is the result
	timer.Stop()
	select {
	case out = <-term:
	case <-time.After(time.Minute):
		t.Fatal("the pty stayed open after the caller exited")
	}
	_ = master.Close()
	report = map[string]string{}
	for _, l := range strings.Fields(string(b)) {
		if k, v, ok := strings.Cut(l, "="); ok {
			report[k] = v
		}
	}
	return report, cmd.ProcessState.ExitCode(), out
}

// openPty opens a new pty pair, as posix_openpt, grantpt and unlockpt do,
// neither end as this process's controlling terminal.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("SKIP: no pty here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}
