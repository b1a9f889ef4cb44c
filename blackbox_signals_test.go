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

// Contract 4: signals.
func TestForwardsEverySignal(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "-vvv", "--", fakeappBin, "signals", "TERM", "9")
	p.stdout.wait(t, "ready", 10*time.Second)
	p.stderr.wait(t, "realtime signals registered", 10*time.Second)
	sigs := []syscall.Signal{syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2,
		syscall.SIGALRM, syscall.SIGCONT, syscall.SIGTSTP, syscall.SIGWINCH,
		syscall.SIGXCPU, syscall.SIGVTALRM, 35, 40, 64}
	for _, s := range sigs {
		// URG, PIPE and CHLD sent to tend are never forwarded and never
		// hurt it; sending them between real signals checks both.
		p.signal(syscall.SIGURG)
		p.signal(syscall.SIGPIPE)
		p.signal(syscall.SIGCHLD)
		p.signal(s)
		name := strconv.Itoa(int(s))
		if n, ok := sigNames[s]; ok {
			name = n
		}
		p.stdout.wait(t, "got "+name, 5*time.Second)
	}
	// The runtime-reserved signals cannot be forwarded, but must not kill
	// tend either, even from outside its namespace.
	for _, s := range []syscall.Signal{32, 33, 34} {
		p.signal(s)
	}
	p.signal(syscall.SIGUSR1)
	p.stdout.waitCount(t, "got SIGUSR1", 2, 5*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 9 {
		t.Fatalf("exit %d, want the app's 9", code)
	}
	if p.stdout.has("got SIGPIPE") {
		t.Fatal("SIGPIPE was forwarded")
	}
}

var sigNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGQUIT: "SIGQUIT", syscall.SIGUSR1: "SIGUSR1",
	syscall.SIGUSR2: "SIGUSR2", syscall.SIGALRM: "SIGALRM", syscall.SIGCONT: "SIGCONT",
	syscall.SIGTSTP: "SIGTSTP", syscall.SIGWINCH: "SIGWINCH", syscall.SIGPROF: "SIGPROF",
	syscall.SIGXCPU: "SIGXCPU", syscall.SIGVTALRM: "SIGVTALRM", syscall.SIGINT: "SIGINT",
	syscall.SIGTERM: "SIGTERM",
}

// groupScript runs fakeapp in the background of a shell, in the shell's
// process group, and reports USR1 in both.
const groupScript = `trap 'echo sh-got-usr1' USR1; "$FAKEAPP" signals none 0 & p=$!; echo started; while kill -0 $p 2>/dev/null; do wait $p; done`

func TestKillGroup(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		env  []string
	}{{"flag", []string{"-g"}, nil}, {"TINI_KILL_PROCESS_GROUP", nil, []string{"TINI_KILL_PROCESS_GROUP="}}} {
		t.Run(c.name, func(t *testing.T) {
			p := startTend(t, opts{pid1: true, env: c.env}, append(c.args, "--", "sh", "-c", groupScript)...)
			p.stdout.wait(t, "ready", 10*time.Second)
			p.signal(syscall.SIGUSR1)
			p.stdout.wait(t, "sh-got-usr1", 5*time.Second)
			p.stdout.wait(t, "got SIGUSR1", 5*time.Second)
			p.signal(syscall.SIGTERM)
			p.wait(10 * time.Second)
		})
	}
	p := startTend(t, opts{pid1: true}, "--", "sh", "-c", groupScript)
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGUSR1)
	p.stdout.wait(t, "sh-got-usr1", 5*time.Second)
	p.signal(syscall.SIGTERM)
	p.wait(10 * time.Second)
	if p.stdout.has("got SIGUSR1") {
		t.Fatal("without -g only the app itself gets the signal")
	}
}

func TestIgnoredSignalsStayIgnored(t *testing.T) {
	// sh's `trap ''` sets SIG_IGN, which exec keeps: tend starts with INT,
	// HUP and TTOU ignored, as under nohup or a background job.
	code, out, errOut := runTend(t, opts{shell: `trap '' INT HUP TTOU; exec "$TEND" -s -- "$FAKEAPP" info`})
	m := kv(out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP, syscall.SIGTTOU} {
		if !hexMaskHas(t, m["SigIgn"], s) {
			t.Errorf("app lost inherited SIG_IGN for %v: SigIgn=%s", s, m["SigIgn"])
		}
	}
	// Without them ignored, the app starts with default dispositions: tend
	// ignores TTIN/TTOU itself only after the app has started.
	_, out, _ = runTend(t, opts{}, "-s", "--", fakeappBin, "info")
	for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGTTOU, syscall.SIGTTIN, syscall.SIGPIPE, syscall.SIGTERM} {
		if hexMaskHas(t, kv(out)["SigIgn"], s) {
			t.Errorf("app inherited SIG_IGN for %v: %s", s, out)
		}
	}
	// tend itself keeps ignoring an inherited SIG_IGN: INT does not stop it.
	p := startTend(t, opts{shell: `trap '' INT; exec "$TEND" -s -- "$FAKEAPP" signals TERM 4`})
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGINT)
	p.signal(syscall.SIGUSR1)
	p.stdout.wait(t, "got SIGUSR1", 5*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 4 || p.stderr.has("stop: received SIGINT") {
		t.Fatalf("code %d, stderr %s", code, p.stderr)
	}
}

func TestTerminalForeground(t *testing.T) {
	if _, err := os.Stat("/usr/bin/script"); err != nil {
		t.Skip("script(1) from util-linux is not installed")
	}
	out := filepath.Join(t.TempDir(), "info")
	code, _, errOut := runTend(t, opts{shell: `script -qec "$TEND -s -- $FAKEAPP info > ` + out + `" /dev/null`})
	b, _ := os.ReadFile(out)
	m := kv(string(b))
	if code != 0 || m["tpgid"] == "" || m["tpgid"] != m["pgid"] {
		t.Fatalf("the app's group must be the terminal's foreground: code=%d %v %s", code, m, errOut)
	}
}

// TestSignalsFromInsideCannotKillTend sends PID 1 every signal that tend
// does not forward, from inside its namespace, as a stray `kill -SEGV 1`
// would. The Go runtime crashes on a fault signal that nobody handles; the
// kernel drops such a signal for tini. tend must drop it too: the app runs
// on, post-stop runs, and the app's code comes out.
func TestSignalsFromInsideCannotKillTend(t *testing.T) {
	// Fault signals and what Go keeps for itself or libc.
	// (TTIN and TTOU are forwarded: TestJobControlForwarded.)
	sigs := "4 5 6 7 8 11 13 16 17 23 27 31 32 33 34"
	script := `sleep 0.2; for s in ` + sigs + `; do kill -$s 1 || echo "kill -$s failed"; done; sleep 0.3; echo app-survived; exit 7`
	code, out, errOut := runTend(t, opts{pid1: true}, "--post-stop", "echo post-stop ran", "--", "sh", "-c", script)
	if code != 7 || !strings.Contains(out, "app-survived") || !strings.Contains(out, "post-stop ran") || strings.Contains(out, "failed") {
		t.Fatalf("want the app's 7 after it survived every signal, got %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "fatal") {
		t.Fatalf("tend crashed:\n%s", errOut)
	}
}

// TestSignalsAtOnceCannotKillTend is TestSignalsFromInsideCannotKillTend
// with no pause: the app signals PID 1 the moment it runs, while tend may
// still be finishing its set-up (the standard forwarded signals are
// registered right after the fork, the realtime ones later). Each signal
// is either dropped or forwarded (sh ignores the forwarded ones); none may
// kill tend.
func TestSignalsAtOnceCannotKillTend(t *testing.T) {
	sigs := "4 5 6 7 8 11 13 16 17 21 22 23 25 27 29 30 31 32 33 34 10 12 14 26 28 35 40 64"
	script := `trap '' USR1 USR2 ALRM VTALRM WINCH XFSZ IO PWR TTIN TTOU 35 40 64; for s in ` + sigs + `; do kill -$s 1 || echo "kill -$s failed"; done; echo app-survived; exit 7`
	for i := 0; i < 5; i++ {
		code, out, errOut := runTend(t, opts{pid1: true}, "--", "sh", "-c", script)
		if code != 7 || !strings.Contains(out, "app-survived") || strings.Contains(out, "failed") {
			t.Fatalf("run %d: want the app's 7 after it survived every signal, got %d\nstdout:\n%s\nstderr:\n%s", i, code, out, errOut)
		}
		if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "fatal") {
			t.Fatalf("run %d: tend crashed:\n%s", i, errOut)
		}
	}
}

// TestPowerAndFileSignalsReachTheApp: PWR (with which LXC and Incus stop a
// container's init), XFSZ and IO reach the app, as tini forwards them.
func TestPowerAndFileSignalsReachTheApp(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "--", fakeappBin, "signals", "SIGTERM", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	for _, sig := range []syscall.Signal{syscall.SIGPWR, syscall.SIGXFSZ, syscall.SIGIO} {
		// Registered right after the app's start: resend until the app
		// has it, rather than wait for a time.
		name := "got " + sigNameOf(sig)
		deadline := time.Now().Add(10 * time.Second)
		for !p.stdout.has(name) {
			if time.Now().After(deadline) {
				t.Fatalf("the app never got %v:\n%s", sig, p.stdout)
			}
			p.signal(sig)
			time.Sleep(20 * time.Millisecond)
		}
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func sigNameOf(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGPWR:
		return "SIGPWR"
	case syscall.SIGXFSZ:
		return "SIGXFSZ"
	case syscall.SIGIO:
		return "SIGIO"
	}
	return sig.String()
}
