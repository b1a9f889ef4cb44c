package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// catatonitBins are Debian's catatonit (skipped when absent: apt-get
// install catatonit) and tend linked as catatonit, for side-by-side runs.
func catatonitBins(t *testing.T) map[string]string {
	t.Helper()
	peer, err := exec.LookPath("catatonit")
	if err != nil {
		t.Skip("no catatonit to compare with (apt-get install catatonit)")
	}
	link := filepath.Join(t.TempDir(), "catatonit")
	if err := os.Symlink(tendBin, link); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"catatonit": peer, "tend": link}
}

// maskPid hides the pid in catatonit's "ERROR (catatonit:PID):" lines,
// and argv[0]'s directory in glibc's messages.
var maskPid = regexp.MustCompile(`\(catatonit:\d+\)|^\S*/catatonit:`)

// TestCatatonitCommandLineSideBySide: tend as catatonit gives each command
// line catatonit's exit code and stderr, pid aside; stdout too but for -V
// (Docker's line with tend's version) and -L (tend's licence).
func TestCatatonitCommandLineSideBySide(t *testing.T) {
	bins := catatonitBins(t)
	for _, args := range [][]string{
		{}, {"-h"}, {"-g"}, {"-x"}, {"--foo"}, {"--version=1"}, {"-xV"}, {"sh", "-c", "true"},
		{"--", "sh", "-c", "exit 3"}, {"--", "sh", "-c", "kill -TERM $$"}, {"-g", "--", "true"},
		{"--", "/does/not/exist"}, {"/etc/passwd"}, {"-"}, {"--", "true", "-V"},
		{"-V"}, {"--version"}, {"-L"},
	} {
		got := map[string]string{}
		for name, bin := range bins {
			p := startTend(t, opts{bin: bin}, args...)
			code := p.wait(30 * time.Second)
			out := p.stdout.String()
			if len(args) > 0 && (args[0] == "-V" || args[0] == "--version" || args[0] == "-L") {
				out = strings.SplitN(out, " ", 2)[0] // "tini" / the licence's first word differs
				if args[0] == "-L" {
					out = "licence: " + map[bool]string{true: "some", false: "none"}[p.stdout.String() != ""]
				}
			}
			errLines := strings.Split(p.stderr.String(), "\n")
			for i, l := range errLines {
				errLines[i] = maskPid.ReplaceAllString(l, "(catatonit:N)")
			}
			got[name] = strings.Join(append([]string{"exit " + strconv.Itoa(code), "stdout " + out}, errLines...), "\n")
			if len(args) > 0 && args[0] == "-h" { // the first line: the rest names each one's sources
				got[name] = "exit " + strconv.Itoa(code) + " " + strings.SplitN(p.stderr.String(), "\n", 2)[0]
			}
		}
		if got["tend"] != got["catatonit"] {
			t.Errorf("catatonit %q:\ncatatonit:\n%s\ntend:\n%s", args, got["catatonit"], got["tend"])
		}
	}
}

// TestCatatonitSignalsSideBySide: as PID 1, tend as catatonit passes the
// app the same signals catatonit does: all but the fault signals, the
// terminal stops and CHLD, realtime ones included (PROF aside, which no Go
// program can receive; URG aside, which the Go fakeapp cannot tell from
// its runtime's). Each is followed by a WINCH, whose line marks that the
// one before it has been dealt with; catatonit reads its signalfd lowest
// number first, so a signal above WINCH's 28 may reach the app after its
// marker: they are sent highest first, so that each has many markers
// after it (sent last, 64 was once missed), and the set is compared, not
// the order, after a last WINCH.
func TestCatatonitSignalsSideBySide(t *testing.T) {
	bins := catatonitBins(t)
	var sigs []syscall.Signal
	for s := syscall.Signal(1); s <= 64; s++ {
		switch {
		case s == syscall.SIGKILL, s == syscall.SIGSTOP, s == syscall.SIGCHLD, s == syscall.SIGPROF,
			s == syscall.SIGWINCH, s == syscall.SIGURG, s > 31 && s < 35, s > 36 && s < 64:
			continue
		}
		sigs = append([]syscall.Signal{s}, sigs...) // highest first
	}
	got := map[string][]string{}
	for name, bin := range bins {
		p := startTend(t, opts{bin: bin, pid1: true, env: []string{"CATATONIT_DEBUG=1"}}, "--", fakeappBin, "signals", "none", "0")
		p.stdout.wait(t, "ready", 10*time.Second)
		if name == "tend" {
			// tend registers the realtime signals 20 ms after the app's
			// start (signals.RealtimeDelay; README, Signals), catatonit
			// before it: the comparison is of what each forwards once set
			// up. CATATONIT_DEBUG turns tend's debug lines on.
			p.stderr.wait(t, "realtime signals registered", 10*time.Second)
		}
		marks := 0
		for _, s := range append(sigs, syscall.SIGWINCH) {
			p.signal(s)
			p.signal(syscall.SIGWINCH)
			marks++
			p.stdout.waitCount(t, "got SIGWINCH", marks, 10*time.Second)
		}
		set := map[string]bool{}
		for _, l := range strings.Split(p.stdout.String(), "\n") {
			if strings.HasPrefix(l, "got ") && l != "got SIGWINCH" {
				set[strings.TrimPrefix(l, "got ")] = true
			}
		}
		for l := range set {
			got[name] = append(got[name], l)
		}
		sort.Strings(got[name])
		p.signal(syscall.SIGKILL)
	}
	if !reflect.DeepEqual(got["tend"], got["catatonit"]) {
		t.Fatalf("the app got\ncatatonit: %q\ntend:      %q", got["catatonit"], got["tend"])
	}
	t.Logf("forwarded by both: %q", got["tend"])
}

// TestCatatonitPauseSideBySide: -P runs no program, stays up on HUP, and
// exits 0 on TERM, as PID 1; and tend leaves the directory it was started
// in for /, as catatonit does since 0.2.1 (f80876f, "switch to / after
// spawning subprocess": podman unmounts the directory it runs -P in).
// Debian's 0.1.7 stays there: only tend's directory is checked.
func TestCatatonitPauseSideBySide(t *testing.T) {
	bins := catatonitBins(t)
	for name, bin := range bins {
		p := startTend(t, opts{bin: bin, dir: t.TempDir(), pid1: true}, "-P")
		deadline := time.Now().Add(10 * time.Second)
		if name != "tend" {
			deadline = time.Now().Add(100 * time.Millisecond)
		}
		cwd := ""
		for cwd != "/" && time.Now().Before(deadline) {
			cwd, _ = os.Readlink("/proc/" + strconv.Itoa(p.pid) + "/cwd")
			time.Sleep(5 * time.Millisecond) // polling /proc against a deadline
		}
		t.Logf("%s -P: cwd %s", name, cwd)
		if cwd != "/" && name == "tend" {
			t.Errorf("%s -P: cwd %q, want /", name, cwd)
		}
		p.signal(syscall.SIGHUP)
		p.signal(syscall.SIGTERM)
		if code := p.wait(10 * time.Second); code != 0 {
			t.Errorf("%s -P: HUP then TERM: exit %d, want 0; stderr %q", name, code, p.stderr.String())
		}
	}
}
