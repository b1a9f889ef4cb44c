package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tend-init/tend/plan"
)

func TestPostStartSeesAppWhileItRuns(t *testing.T) {
	dir := t.TempDir()
	p := startTend(t, opts{pid1: true},
		"--post-start", `echo "hook=$TEND_HOOK app=$TEND_APP_PID alive=$(kill -0 $TEND_APP_PID && echo yes)" > `+dir+`/ps`,
		"--", "sh", "-c", `echo "apppid=$$"; exec "$FAKEAPP" signals TERM 0`)
	p.stdout.wait(t, "ready", 10*time.Second)
	appPid := strings.TrimPrefix(p.stdout.wait(t, "apppid=", time.Second), "apppid=")
	deadline := time.Now().Add(10 * time.Second)
	var got string
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(dir + "/ps"); err == nil && strings.HasSuffix(string(b), "\n") {
			got = strings.TrimSpace(string(b))
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got != "hook=post-start app="+appPid+" alive=yes" {
		t.Fatalf("post-start saw %q, app pid %s", got, appPid)
	}
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestExecFormHookUsesNoShell(t *testing.T) {
	// Shell metacharacters reach the program literally: no shell ran.
	code, out, errOut := runTend(t, opts{pid1: true},
		"--post-stop", `["`+fakeappBin+`", "info", "$HOME;|*"]`, "--", fakeappBin, "exit", "0")
	if code != 0 || kv(out)["args"] != "$HOME;|*" {
		t.Fatalf("exec form: %d %q %q", code, out, errOut)
	}
}

func TestPreStopFinishesBeforeAppGetsTerm(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "-v",
		"--pre-stop", "sleep 0.3; echo prestop-done",
		"--", fakeappBin, "signals", "TERM", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	pre, term := p.stdout.index("prestop-done"), p.stdout.index("got SIGTERM")
	if pre < 0 || term < 0 || pre > term {
		t.Fatalf("pre-stop must finish before the app's TERM:\n%s", p.stdout)
	}
	if !p.stderr.has("pre-stop succeeded") {
		t.Fatalf("steps are logged at -v:\n%s", p.stderr)
	}
}

func TestHungPreStopIsCutAtHookTimeout(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "--hook-timeout", "300ms",
		"--pre-stop", "exec sleep 60", "--", fakeappBin, "signals", "TERM", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	start := time.Now()
	p.signal(syscall.SIGTERM)
	code := p.wait(10 * time.Second)
	if code != 0 || !p.stdout.has("got SIGTERM") || !p.stderr.has("timed out") {
		t.Fatalf("exit %d\n%s\n%s", code, p.stdout, p.stderr)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Fatalf("a 300ms hook timeout took %s", el)
	}
}

func TestGracePeriodKillsStubbornApp(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "--grace-period", "500ms",
		"--", fakeappBin, "ignore", "TERM", "--", "signals", "none", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 137 {
		t.Fatalf("want 137 after the grace period, got %d\n%s", code, p.stderr)
	}
	if !p.stderr.has("grace period of 500ms expired") {
		t.Fatalf("the kill is logged:\n%s", p.stderr)
	}
}

func TestFailingPostStartStopsApp(t *testing.T) {
	for _, hook := range []string{"exit 3", `["/no/such/hook"]`} {
		p := startTend(t, opts{pid1: true}, "-e", "0", "-e", "69",
			"--post-start", hook, "--", fakeappBin, "signals", "TERM", "0")
		code := p.wait(10 * time.Second)
		// The app only exits on TERM (handled, or fatal if it comes
		// before its handler is set), so tend's exit proves the stop.
		if code != plan.ExitStartHookFailed || !p.stderr.has("post-start failed") {
			t.Fatalf("%s: want exit %d and the app stopped, got %d\n%s\n%s", hook, plan.ExitStartHookFailed, code, p.stdout, p.stderr)
		}
	}
}

func TestPostStopSeesExitCode(t *testing.T) {
	code, out, _ := runTend(t, opts{pid1: true}, "-e", "3",
		"--post-stop", `echo "code=$TEND_EXIT_CODE hook=$TEND_HOOK"`, "--post-stop", "exit 1",
		"--", fakeappBin, "exit", "3")
	if code != 0 || !strings.Contains(out, "code=3 hook=post-stop") {
		t.Fatalf("post-stop: exit %d %q", code, out)
	}
	code, out, _ = runTend(t, opts{pid1: true}, "--post-stop", `echo "code=$TEND_EXIT_CODE"`, "--", fakeappBin, "killself", "TERM")
	if code != 143 || !strings.Contains(out, "code=143") {
		t.Fatalf("post-stop after a signal death: exit %d %q", code, out)
	}
}

func TestDrainTermsThenKills(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	code, out, errOut := runTend(t, opts{pid1: true}, "-v", "--drain-timeout", "500ms",
		"--post-stop", `for f in `+dir+`/*.pid; do test -e /proc/$(cat $f) && echo "alive $f"; done; echo checked`,
		"--", "sh", "-c", `sleep 60 & echo $! > `+dir+`/sleep.pid; "$FAKEAPP" daemon `+dir+`/daemon.pid; exit 4`)
	el := time.Since(start)
	if code != 4 || !strings.Contains(out, "checked") || strings.Contains(out, "alive") {
		t.Fatalf("drain left processes: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "drain: sent SIGTERM") || !strings.Contains(errOut, "sent SIGKILL") {
		t.Fatalf("drain steps not logged:\n%s", errOut)
	}
	if el > 5*time.Second {
		t.Fatalf("drain took %s", el)
	}
}

// TestDrainIsFastWhenChildrenObeyTerm: children that obey the drain's TERM
// end it at once, not at its timeout (3 s by default). Judged by tend's
// own log, not a clock: on a loaded machine start-up alone can take
// seconds.
func TestDrainIsFastWhenChildrenObeyTerm(t *testing.T) {
	code, _, errOut := runTend(t, opts{pid1: true}, "-v", "--", "sh", "-c", "sleep 60 & sleep 60 & exit 0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "drain: done in") || strings.Contains(errOut, "expired") || strings.Contains(errOut, "SIGKILL") {
		t.Fatalf("background children that obey TERM must end the drain before its timeout:\n%s", errOut)
	}
}

func TestHookOrphansAreReaped(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "-w",
		"--post-start", "(sleep 0.1; echo orphan-done) & (sleep 0.1) & exit 0",
		"--", fakeappBin, "signals", "TERM", "0")
	p.stdout.wait(t, "orphan-done", 10*time.Second)
	p.stderr.waitCount(t, "Reaped zombie process", 2, 5*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestTermDuringPostStart(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "-v", "--post-start", "echo hook-running; exec sleep 60",
		"--", fakeappBin, "signals", "TERM", "0")
	p.stdout.wait(t, "hook-running", 10*time.Second)
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGTERM)
	code := p.wait(10 * time.Second)
	if code != 0 || !p.stdout.has("got SIGTERM") || !p.stderr.has("a stop began") {
		t.Fatalf("TERM during post-start: exit %d\n%s\n%s", code, p.stdout, p.stderr)
	}
}

func TestAppExitsDuringPreStop(t *testing.T) {
	dir := t.TempDir()
	p := startTend(t, opts{pid1: true}, "-v",
		"--pre-stop", "touch "+dir+"/stopping; sleep 0.5; echo prestop-done",
		"--", "sh", "-c", `echo ready; while [ ! -e `+dir+`/stopping ]; do sleep 0.01; done; exit 4`)
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGTERM)
	code := p.wait(10 * time.Second)
	if code != 4 || !p.stdout.has("prestop-done") || p.stderr.has("sending SIGTERM to the app") {
		t.Fatalf("app exit during pre-stop: exit %d\n%s\n%s", code, p.stdout, p.stderr)
	}
}

func TestSecondTermDuringStop(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "--pre-stop", "sleep 0.3",
		"--", fakeappBin, "signals", "none", "0")
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGTERM)
	p.signal(syscall.SIGTERM) // held while pre-stop runs: no restart
	p.stdout.wait(t, "got SIGTERM", 5*time.Second)
	p.signal(syscall.SIGINT) // after the stop signal: forwarded at once
	p.stdout.wait(t, "got SIGINT", 5*time.Second)
	p.signal(syscall.SIGKILL)
	p.wait(10 * time.Second)
	if n := strings.Count(p.stdout.String(), "got SIGTERM"); n != 1 {
		t.Fatalf("the stop signal must be sent once, got %d", n)
	}
}

func TestBadHookInputNeverStartsApp(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	for _, args := range [][]string{
		{"--post-start", ""},
		{"--pre-stop", `["unterminated"`},
		{"--post-stop", `[1]`},
		{"--hook-timeout", "soon"},
		{"--grace-period", "-5s"},
		{"--drain-timeout", "0s"},
	} {
		code, out, errOut := runTend(t, opts{pid1: true}, append(args, "--", "touch", marker)...)
		if code != 1 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, args[0]) {
			t.Fatalf("%v: want exit 1 and one line naming the flag, got %d %q", args, code, errOut)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%v: the app started", args)
		}
	}
}

// TestStopSignalsDuringPreStopAreHeld: a TERM or INT that arrives while
// pre-stop runs is neither dropped nor sent early: once pre-stop ends the
// app gets the stop signal, then each other signal held meanwhile.
func TestStopSignalsDuringPreStopAreHeld(t *testing.T) {
	dir := t.TempDir()
	p := startTend(t, opts{pid1: true}, "-v", "--pre-stop", "sleep 0.4; echo pre-stop-done > "+dir+"/done",
		"--", fakeappBin, "signals", "SIGUSR2", "9")
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGTERM)
	p.stderr.wait(t, "pre-stop: running", 5*time.Second)
	p.signal(syscall.SIGINT)
	p.stderr.wait(t, "received SIGINT while pre-stop runs", 5*time.Second)
	if p.stdout.has("got SIG") {
		t.Fatalf("a signal reached the app before pre-stop ended:\n%s", p.stdout)
	}
	// The app may see the two in either order: Go delivers pending
	// signals by number. What matters is both, once each, after pre-stop.
	p.stdout.wait(t, "got SIGTERM", 5*time.Second)
	p.stdout.wait(t, "got SIGINT", 5*time.Second)
	if _, err := os.Stat(dir + "/done"); err != nil {
		t.Fatal("pre-stop did not finish before the app was signalled")
	}
	p.signal(syscall.SIGUSR2)
	if code := p.wait(10 * time.Second); code != 9 {
		t.Fatalf("want 9, got %d\n%s\n%s", code, p.stdout, p.stderr)
	}
	if strings.Count(p.stdout.String(), "got SIGTERM") != 1 || strings.Count(p.stdout.String(), "got SIGINT") != 1 {
		t.Fatalf("want TERM and the held INT once each:\n%s", p.stdout)
	}
}

// TestPauseModeRunsEveryHook: with no program, post-start runs at start
// (readiness waits for it), pre-stop when a stop begins, post-stop last.
func TestPauseModeRunsEveryHook(t *testing.T) {
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "-v", "--pause", "--health-addr", addr,
		"--post-start", "sleep 1; echo post-start-ran", "--pre-stop", "echo pre-stop-ran", "--post-stop", "echo post-stop-ran code=$TEND_EXIT_CODE")
	// The server answers "starting" until the loop first publishes.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		body := waitStatus(t, addr, "/readyz", 503, 5*time.Second)
		if strings.Contains(body, "post-start running") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("want not ready while post-start runs, got %q", body)
		}
	}
	p.stdout.wait(t, "post-start-ran", 5*time.Second)
	waitStatus(t, addr, "/readyz", 200, 5*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("pause mode exits 0 on TERM, got %d\n%s", code, p.stderr)
	}
	pre, post := p.stdout.index("pre-stop-ran"), p.stdout.index("post-stop-ran code=0")
	if pre < 0 || post < pre {
		t.Fatalf("want pre-stop, then post-stop:\n%s", p.stdout)
	}
}

// TestMultiLineHookIsOneScript: a hook variable set from a YAML `value: |`
// block is one shell script, loop and all; --- separates several actions.
func TestMultiLineHookIsOneScript(t *testing.T) {
	code, out, errOut := runTend(t, opts{env: []string{"TEND_POST_STOP=for i in 1 2; do\n  echo hook-$i\ndone\n---\necho second"}}, "--", "true")
	if code != 0 || !strings.Contains(out, "hook-1\nhook-2\nsecond") {
		t.Fatalf("want the loop's two lines, then the second action; got %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
