package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Contract 1: invocation.
func TestInvocationPassesEverythingThrough(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := runTend(t, opts{pid1: true, dir: dir, env: []string{"FAKE=x y", "PATH=" + filepath.Dir(fakeappBin) + ":/usr/bin:/bin"}},
		"fakeapp", "info", "a b", "-v", "--", "-s")
	m := kv(out)
	if code != 0 || m["args"] != "a b|-v|--|-s" || m["cwd"] != dir || m["env_FAKE"] != "x y" {
		t.Fatalf("code=%d info=%v", code, m)
	}
	if m["ppid"] != "1" {
		t.Fatalf("the app's parent must be PID 1 (tend), got ppid=%s", m["ppid"])
	}
	if m["pgid"] != m["pid"] {
		t.Fatalf("the app must lead its own process group: %v", m)
	}
	code, out, _ = runTend(t, opts{stdin: "piped input\n"}, "-s", "--", fakeappBin, "cat")
	if code != 0 || out != "piped input" {
		t.Fatalf("stdin/stdout not passed through: %d %q", code, out)
	}
}

func TestOptionParsingStopsAtProgram(t *testing.T) {
	code, out, _ := runTend(t, opts{}, "-s", fakeappBin, "info", "-v", "-e", "3")
	if code != 0 || kv(out)["args"] != "-v|-e|3" {
		t.Fatalf("flags after the program belong to it: %d %q", code, out)
	}
}

// Contract 2: exit codes.
func TestExitCodes(t *testing.T) {
	noexec := filepath.Join(t.TempDir(), "noexec")
	if err := os.WriteFile(noexec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"passes code", []string{"--", fakeappBin, "exit", "3"}, 3, ""},
		{"zero", []string{"--", fakeappBin, "exit", "0"}, 0, ""},
		{"255", []string{"--", fakeappBin, "exit", "255"}, 255, ""},
		{"signal death", []string{"--", fakeappBin, "killself", "TERM"}, 143, ""},
		{"kill death", []string{"--", fakeappBin, "killself", "KILL"}, 137, ""},
		{"remap after 128+N", []string{"-e", "143", "--", fakeappBin, "killself", "TERM"}, 0, ""},
		{"remap other code only", []string{"-e", "2", "--", fakeappBin, "exit", "3"}, 3, ""},
		{"not found", []string{"--", "no-such-program-xyz"}, 127, "no-such-program-xyz"},
		{"not found path", []string{"--", "/no/such/prog"}, 127, "/no/such/prog"},
		{"not executable", []string{"--", noexec}, 126, noexec},
		{"directory", []string{"--", "/"}, 126, "exec /"},
		{"bad -e 300", []string{"-e", "300", "true"}, 1, "300"},
		{"bad -e abc", []string{"-e", "abc", "true"}, 1, "abc"},
		{"bad -e -1", []string{"-e", "-1", "true"}, 1, "-1"},
		{"unknown flag", []string{"-x", "true"}, 1, "-x"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runTend(t, opts{pid1: true}, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr=%q", code, c.code, errOut)
			}
			if c.msg != "" {
				lines := strings.Split(strings.TrimSpace(errOut), "\n")
				if len(lines) != 1 || !strings.Contains(lines[0], c.msg) || !strings.HasPrefix(lines[0], "[tend ") {
					t.Fatalf("want one tend line naming %q, got %q", c.msg, errOut)
				}
			}
			if strings.Contains(out, "[tend") {
				t.Fatalf("tend logged to stdout: %q", out)
			}
		})
	}
}

// Contract 3: reaping as PID 1, and as a subreaper with -s.
func TestReapsOrphanStorm(t *testing.T) {
	// A hang bound, not a timing: 1,000 forks under a -race tend took
	// 33-41 s on a loaded 2-core machine, past runTend's 30 s.
	p := startTend(t, opts{pid1: true}, "--", fakeappBin, "storm", "1000")
	code := p.wait(3 * time.Minute)
	out, errOut := p.stdout.String(), p.stderr.String()
	t.Logf("storm of 1000 orphans as PID 1: %s", strings.TrimSpace(out))
	if code != 0 || !strings.Contains(out, "storm n=1000 spawn=") {
		t.Fatalf("zombies left as PID 1: %d %s %s", code, out, errOut)
	}
	p = startTend(t, opts{}, "-s", "--", fakeappBin, "storm", "300")
	code = p.wait(3 * time.Minute)
	out, errOut = p.stdout.String(), p.stderr.String()
	if code != 0 || !strings.Contains(out, "storm n=300") || strings.Contains(errOut, "subreaper") {
		t.Fatalf("zombies left as subreaper: %d %s %s", code, out, errOut)
	}
}

func TestWarnOnReap(t *testing.T) {
	code, _, errOut := runTend(t, opts{pid1: true}, "-w", "--", fakeappBin, "storm", "10")
	if code != 0 || strings.Count(errOut, "Reaped zombie process with pid=") != 10 {
		t.Fatalf("want 10 reap warnings: %d %q", code, errOut)
	}
	_, _, errOut = runTend(t, opts{pid1: true}, "--", fakeappBin, "storm", "10")
	if strings.Contains(errOut, "Reaped zombie") {
		t.Fatalf("reap warnings without -w: %q", errOut)
	}
}

// Contract 5: flags.
func TestHelpVersionAndUnknownFlag(t *testing.T) {
	code, out, errOut := runTend(t, opts{}, "-h")
	if code != 0 || !strings.Contains(out, "--subreaper") || errOut != "" {
		t.Fatalf("-h: %d %q %q", code, out, errOut)
	}
	code, out, _ = runTend(t, opts{}, "--version")
	if code != 0 || !strings.HasPrefix(out, "tend ") {
		t.Fatalf("--version: %d %q", code, out)
	}
	code, out, errOut = runTend(t, opts{}, "--frobnicate", "true")
	if code != 1 || out != "" || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "frobnicate") {
		t.Fatalf("unknown flag: %d %q %q", code, out, errOut)
	}
}

func TestCombinedShortFlags(t *testing.T) {
	code, _, errOut := runTend(t, opts{}, "-sgvv", "-e3", "--", fakeappBin, "exit", "3")
	if code != 0 || !strings.Contains(errOut, "INFO: started") || strings.Contains(errOut, "subreaper") {
		t.Fatalf("-sgvv -e3: %d %q", code, errOut)
	}
	code, _, _ = runTend(t, opts{}, "-se", "3", "--", fakeappBin, "exit", "3")
	if code != 0 {
		t.Fatalf("-se 3: %d", code)
	}
}

func TestPdeathsigKillsTendWithItsParent(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pid")
	// The shell starts tend in the background and exits at once: tend's
	// parent dies, so tend gets SIGKILL.
	code, _, _ := runTend(t, opts{shell: `"$TEND" -s -p SIGKILL -- "$FAKEAPP" sleep 3 </dev/null >/dev/null 2>&1 & echo $! > ` + pidfile})
	if code != 0 {
		t.Fatal(code)
	}
	b, _ := os.ReadFile(pidfile)
	pid := strings.TrimSpace(string(b))
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			return // dead
		}
		if time.Now().After(deadline) {
			t.Fatalf("tend (pid %s) survived its parent with -p SIGKILL: %s", pid, st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Contracts 6 and 7: environment, and the not-PID-1 warning.
func TestNotPID1Warning(t *testing.T) {
	code, _, errOut := runTend(t, opts{}, "--", fakeappBin, "exit", "5")
	if code != 5 || !strings.Contains(errOut, "subreaper") || !strings.Contains(errOut, "zombie reaping won't work") {
		t.Fatalf("want the warning and the app's code: %d %q", code, errOut)
	}
	for _, env := range [][]string{{"TINI_SUBREAPER="}, {"TEND_SUBREAPER=1"}, {"TINI_VERBOSITY=0"}} {
		code, _, errOut = runTend(t, opts{env: env}, "--", fakeappBin, "exit", "5")
		if code != 5 || errOut != "" {
			t.Fatalf("%v: want no warning: %d %q", env, code, errOut)
		}
	}
	code, _, errOut = runTend(t, opts{env: []string{"TEND_REMAP_EXIT=5"}}, "-s", "--", fakeappBin, "exit", "5")
	if code != 0 || errOut != "" {
		t.Fatalf("TEND_REMAP_EXIT: %d %q", code, errOut)
	}
}

// Contract 8: signal rewriting.
func TestRewriteSignals(t *testing.T) {
	p := startTend(t, opts{pid1: true}, "-r", "TERM:QUIT", "-r", "10:0", "--", fakeappBin, "signals", "SIGQUIT", "3")
	p.stdout.wait(t, "ready", 10*time.Second)
	p.signal(syscall.SIGUSR1) // dropped
	p.signal(syscall.SIGUSR2)
	p.stdout.wait(t, "got SIGUSR2", 5*time.Second)
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 3 {
		t.Fatalf("TERM should arrive as QUIT: exit %d\n%s", code, p.stdout)
	}
	if p.stdout.has("got SIGUSR1") || p.stdout.has("got SIGTERM") {
		t.Fatalf("rewrite not applied:\n%s", p.stdout)
	}
	code, _, errOut := runTend(t, opts{}, "-r", "TERM:BOGUS", "true")
	if code != 1 || !strings.Contains(errOut, "BOGUS") {
		t.Fatalf("malformed rule: %d %q", code, errOut)
	}
}

// Contract 9: logging.
func TestLogPrefix(t *testing.T) {
	code, out, errOut := runTend(t, opts{pid1: true}, "-vvv", "--", fakeappBin, "exit", "0")
	if code != 0 || strings.Contains(out, "tend") {
		t.Fatalf("tend wrote to stdout: %q", out)
	}
	for _, l := range strings.Split(strings.TrimSpace(errOut), "\n") {
		if !strings.HasPrefix(l, "[tend 1] ") {
			t.Fatalf("log line without the prefix: %q", l)
		}
	}
}

// TestDroppedStopSignalStartsNoStop: -r TERM:0 drops TERM entirely, as the
// README says: no stop begins (readiness stays 200, no pre-stop) and the app
// never sees it; INT still stops.
func TestDroppedStopSignalStartsNoStop(t *testing.T) {
	addr := freeAddr(t)
	p := startTend(t, opts{pid1: true}, "-vv", "-r", "TERM:0", "--health-addr", addr, "--pre-stop", "echo pre-stop-ran",
		"--", fakeappBin, "signals", "SIGINT", "4")
	p.stdout.wait(t, "ready", 10*time.Second)
	waitStatus(t, addr, "/readyz", 200, 5*time.Second)
	p.signal(syscall.SIGTERM)
	p.stderr.wait(t, "dropped SIGTERM (rewrite rule)", 5*time.Second)
	if code, _ := status(addr, "/readyz"); code != 200 || p.stdout.has("pre-stop-ran") || p.stdout.has("got SIGTERM") {
		t.Fatalf("a dropped TERM began a stop: readyz %d\n%s", code, p.stdout)
	}
	p.signal(syscall.SIGINT)
	if code := p.wait(10 * time.Second); code != 4 || !p.stdout.has("pre-stop-ran") {
		t.Fatalf("INT must still stop through pre-stop: %d\n%s", code, p.stdout)
	}
}
