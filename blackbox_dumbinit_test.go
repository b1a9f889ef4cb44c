package main_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// dumbInitBin is tend installed as dumb-init: a link whose name selects
// the dumb-init mode (argv[0]'s basename).
func dumbInitBin(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "dumb-init")
	if err := os.Symlink(tendBin, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// printSignals is dumb-init's own test app (testdata/dumb-init), run from
// there: it prints the number of every signal 1..31 it catches, one per
// line. It is Python, not a Go fakeapp, because a Go app gets its own
// runtime's SIGURG.
func printSignals(t *testing.T) (dir string, argv []string) {
	t.Helper()
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3 (make deps installs it)")
	}
	dir, err := filepath.Abs("testdata/dumb-init")
	if err != nil {
		t.Fatal(err)
	}
	return dir, []string{py, "-m", "testing.print_signals"}
}

// TestDumbInitProxiesSignals is dumb-init's test_proxies_signals without
// SIGPROF, which no Go program can receive (docs/design.md): every other
// catchable signal but the terminal stops, URG, PIPE and the fault signals
// included, reaches the app, in order, and nothing else does: not the Go
// runtime's own URG, not a SIGCONT after TERM. In both setsid modes.
func TestDumbInitProxiesSignals(t *testing.T) {
	bin := dumbInitBin(t)
	dir, app := printSignals(t)
	var sigs []syscall.Signal
	for s := syscall.Signal(1); s <= 31; s++ {
		switch s {
		case syscall.SIGKILL, syscall.SIGSTOP, syscall.SIGCHLD, syscall.SIGPROF,
			syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU:
			continue
		}
		sigs = append(sigs, s)
	}
	for _, setsid := range []string{"1", "0"} {
		t.Run("DUMB_INIT_SETSID="+setsid, func(t *testing.T) {
			p := startTend(t, opts{bin: bin, dir: dir, env: []string{"DUMB_INIT_SETSID=" + setsid}}, app...)
			p.stdout.wait(t, "ready (pid:", 10*time.Second)
			want := []string{p.stdout.String()}
			for _, s := range sigs {
				p.signal(s)
				want = append(want, strconv.Itoa(int(s)))
				p.stdout.waitCount(t, "", len(want), 5*time.Second)
			}
			// A line too many would be a URG or CONT of tend's own: give it
			// the time the others took, then compare every line.
			p.signal(syscall.SIGUSR1)
			want = append(want, strconv.Itoa(int(syscall.SIGUSR1)))
			p.stdout.waitCount(t, "", len(want), 5*time.Second)
			if got := strings.Split(p.stdout.String(), "\n"); !reflect.DeepEqual(got, want) {
				t.Fatalf("the app got\n%q\nwant\n%q", got, want)
			}
			p.signal(syscall.SIGKILL)
		})
	}
}

// TestDumbInitKeepsTendFeatures: in the dumb-init mode tend's own features
// work through its variables: the pre-stop hook runs before the app gets
// TERM, the health endpoint answers, and a program that cannot run exits 2
// with dumb-init's line.
func TestDumbInitKeepsTendFeatures(t *testing.T) {
	bin := dumbInitBin(t)
	t.Run("pre-stop and health", func(t *testing.T) {
		p := startTend(t, opts{bin: bin, env: []string{"TEND_PRE_STOP=echo pre-stop ran", "TEND_HEALTH_ADDR=127.0.0.1:0", "TEND_VERBOSITY=2"}},
			fakeappBin, "signals", "TERM", "0")
		p.stdout.wait(t, "ready", 10*time.Second)
		p.stderr.wait(t, "health endpoint on", 10*time.Second)
		p.signal(syscall.SIGTERM)
		p.stdout.wait(t, "got SIGTERM", 10*time.Second)
		if code := p.wait(10 * time.Second); code != 0 {
			t.Fatalf("exit %d, want the app's 0", code)
		}
		if i, j := p.stdout.index("pre-stop ran"), p.stdout.index("got SIGTERM"); i < 0 || i > j {
			t.Fatalf("pre-stop did not run before the app got TERM:\n%s", p.stdout.String())
		}
		if p.stdout.has("got SIGCONT") {
			t.Fatalf("the app got a SIGCONT dumb-init never sends:\n%s", p.stdout.String())
		}
	})
	t.Run("exec failure", func(t *testing.T) {
		code, _, stderr := runTend(t, opts{bin: bin}, "/does/not/exist")
		if code != 2 || stderr != "[dumb-init] /does/not/exist: No such file or directory" {
			t.Fatalf("exit %d, stderr %q; want 2 and dumb-init's line", code, stderr)
		}
	})
}

// TestDumbInitSaysURGIsHeldBack: a tend whose runtime preempts with URG
// (a plain go build, or GODEBUG=asyncpreemptoff=0) cannot forward URG in
// the dumb-init mode, and says so in one line, at the mode's default
// verbosity (errors only); a tend built as make build says nothing.
func TestDumbInitSaysURGIsHeldBack(t *testing.T) {
	bin := dumbInitBin(t)
	const line = "URG is not forwarded: Go's asynchronous preemption is on in this tend"
	for _, c := range []struct {
		env  []string
		want bool
	}{{nil, false}, {[]string{"GODEBUG=asyncpreemptoff=0"}, true}} {
		code, _, stderr := runTend(t, opts{bin: bin, env: c.env}, fakeappBin, "exit", "0")
		if code != 0 || strings.Contains(stderr, line) != c.want || strings.Count(stderr, "\n") != 0 {
			t.Errorf("%q: exit %d, stderr %q; want 0 and the line %v, one line at most", c.env, code, stderr, c.want)
		}
	}
}

// TestGoCannotReceiveSIGPROF runs the proof of the one case of dumb-init's
// suite that is excused (testdata/golimits/sigprof): a Go program that asks
// for SIGPROF never gets it. Should a Go release change that, this fails,
// and the dumb-init mode can forward PROF.
func TestGoCannotReceiveSIGPROF(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "run", "./testdata/golimits/sigprof").CombinedOutput()
	if err != nil || string(out) != "40 41 \n" {
		t.Fatalf("go run ./testdata/golimits/sigprof: %v, %q; want \"40 41 \\n\"", err, out)
	}
}
