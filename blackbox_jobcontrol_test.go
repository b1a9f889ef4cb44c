package main_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestJobControlForwarded: a TTIN or TTOU sent to tend is for the app
// (gunicorn adds a worker on TTIN, removes one on TTOU) when it cannot be
// the terminal's stop for tend itself: tend leads its session (PID 1 in a
// container), or has no controlling terminal. tend forwards them, logs
// them at -vv as it logs HUP, never stops, and -r rewrites them.
func TestJobControlForwarded(t *testing.T) {
	for _, c := range []struct {
		name, shell string
		child       bool // tend is the shell's child (unshare forks it)
	}{
		// setsid execs tend in place: tend leads a session of its own.
		{"session leader", `exec setsid "$TEND" -vv -r TTOU:USR2 -- "$FAKEAPP" signals TERM 9`, false},
		// PID 1 of a new namespace, not leading its session (unshare
		// forks it), and without a controlling terminal (setsid).
		{"pid 1 without a terminal", `exec setsid unshare -pf --mount-proc "$TEND" -vv -r TTOU:USR2 -- "$FAKEAPP" signals TERM 9`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := startTend(t, opts{shell: c.shell})
			if c.child {
				p.pid = p.childOf(p.pid)
			}
			p.stdout.wait(t, "ready", 10*time.Second)
			p.stderr.wait(t, "realtime signals registered", 10*time.Second)
			p.signal(syscall.SIGTTIN)
			p.stdout.wait(t, "got SIGTTIN", 5*time.Second)
			p.stderr.wait(t, "forwarded SIGTTIN to pid", 5*time.Second)
			p.signal(syscall.SIGTTOU) // rewritten to USR2
			p.stdout.wait(t, "got SIGUSR2", 5*time.Second)
			// tend must still run, not stopped: it forwards the next one.
			if st := procState(p.pid); st == "T" {
				t.Fatalf("tend is stopped (state %s)", st)
			}
			p.signal(syscall.SIGTTIN)
			p.stdout.waitCount(t, "got SIGTTIN", 2, 5*time.Second)
			p.signal(syscall.SIGTERM)
			if code := p.wait(10 * time.Second); code != 9 {
				t.Fatalf("exit %d, want the app's 9\n%s", code, p.stderr)
			}
			if p.stdout.has("got SIGTTOU") {
				t.Fatal("TTOU was forwarded as itself despite -r TTOU:USR2")
			}
		})
	}
}

// TestJobControlIgnoredOnATerminal: run from an interactive shell, tend
// neither leads its session nor lacks a terminal, so a TTIN may be its own
// job's stop: it keeps tini's SIG_IGN, never stops, and does not pass it on.
func TestJobControlIgnoredOnATerminal(t *testing.T) {
	if _, err := os.Stat("/usr/bin/script"); err != nil {
		t.Skip("script(1) from util-linux is not installed")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	pidf := filepath.Join(dir, "pid")
	// script(1) gives the shell a terminal and a session; the inner sh
	// writes its pid and execs tend, which then leads neither (the ":"
	// keeps the outer shell from exec'ing the inner one).
	p := startTend(t, opts{shell: `script -qec 'sh -c "echo \$\$ > ` + pidf + `; exec $TEND -s -vv -- $FAKEAPP signals TERM 9 > ` + out + `"; :' /dev/null`})
	waitFileHas(t, pidf, "\n", 10*time.Second)
	b, _ := os.ReadFile(pidf)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	waitFileHas(t, out, "ready", 10*time.Second)
	// tend's stderr is the terminal, which script copies to its stdout.
	p.stdout.wait(t, "realtime signals registered", 10*time.Second)
	for _, s := range []syscall.Signal{syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGUSR1} {
		if err := syscall.Kill(pid, s); err != nil {
			t.Fatal(err)
		}
	}
	waitFileHas(t, out, "got SIGUSR1", 10*time.Second)
	if st := procState(pid); st == "T" {
		t.Fatalf("tend is stopped (state %s)", st)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.wait(10 * time.Second)
	b, _ = os.ReadFile(out)
	if strings.Contains(string(b), "got SIGTTIN") || strings.Contains(string(b), "got SIGTTOU") {
		t.Fatalf("a job-control signal was forwarded from a terminal's job:\n%s", b)
	}
}

// procState is the state letter of /proc/PID/stat ("" once gone).
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+3 > len(s) {
		return ""
	}
	return s[i+2 : i+3]
}

// waitFileHas waits until path holds want.
func waitFileHas(t *testing.T, path, want string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %q: %q", path, want, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
