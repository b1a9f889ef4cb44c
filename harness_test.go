package main_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// tendProc is one run of the built tend binary, optionally as PID 1 of a
// new PID namespace under `unshare -pf --mount-proc`.
type tendProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	pid    int // tend's pid as seen from the test
	stdout *lines
	stderr *lines
	done   chan struct{}
	code   int
}

type opts struct {
	pid1  bool     // run under unshare -pf --mount-proc
	env   []string // added to the environment
	dir   string
	stdin string
	shell string // run tend through `sh -c SHELL`, with $TEND set
	bin   string // run this instead of tendBin (tend under another name)
}

// lines collects a stream's lines and lets tests wait for one.
type lines struct {
	mu    sync.Mutex
	buf   []string
	moved chan struct{}
	eof   chan struct{}
}

func collect(r *os.File) *lines {
	l := &lines{moved: make(chan struct{}), eof: make(chan struct{})}
	go func() {
		defer close(l.eof)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.mu.Lock()
			l.buf = append(l.buf, sc.Text())
			close(l.moved)
			l.moved = make(chan struct{})
			l.mu.Unlock()
		}
		_ = r.Close() // read end; nothing to report
	}()
	return l
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.buf, "\n")
}

// wait blocks until a line contains s, or fails the test at the deadline.
func (l *lines) wait(t *testing.T, s string, d time.Duration) string {
	t.Helper()
	return l.waitCount(t, s, 1, d)
}

// waitCount blocks until n lines contain s, and returns the n-th.
func (l *lines) waitCount(t *testing.T, s string, n int, d time.Duration) string {
	t.Helper()
	deadline := time.After(d)
	for {
		l.mu.Lock()
		seen := 0
		for _, x := range l.buf {
			if strings.Contains(x, s) {
				if seen++; seen == n {
					l.mu.Unlock()
					return x
				}
			}
		}
		moved := l.moved
		l.mu.Unlock()
		select {
		case <-moved:
		case <-deadline:
			t.Fatalf("no line containing %q within %s; got:\n%s", s, d, l.String())
		}
	}
}

func (l *lines) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, x := range l.buf {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

// index returns the position of the first line containing s, or -1.
func (l *lines) index(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, x := range l.buf {
		if strings.Contains(x, s) {
			return i
		}
	}
	return -1
}

func startTend(t *testing.T, o opts, args ...string) *tendProc {
	t.Helper()
	bin := tendBin
	if o.bin != "" {
		bin = o.bin
	}
	var argv []string
	switch {
	case o.shell != "":
		argv = []string{"sh", "-c", o.shell}
	case o.pid1:
		argv = append([]string{"unshare", "-pf", "--mount-proc", bin}, args...)
	default:
		argv = append([]string{bin}, args...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), "TEND="+tendBin, "FAKEAPP="+fakeappBin), o.env...)
	cmd.Dir = o.dir
	if o.stdin != "" {
		cmd.Stdin = strings.NewReader(o.stdin)
	}
	p := launch(t, cmd)
	if o.pid1 {
		p.pid = p.childOf(cmd.Process.Pid)
	}
	return p
}

// launch starts cmd with its stdout and stderr collected, reports its code
// (128+N for a death by signal N) once it exits, and kills it if the test
// ends first.
func launch(t *testing.T, cmd *exec.Cmd) *tendProc {
	t.Helper()
	or, ow, _ := os.Pipe()
	er, ew, _ := os.Pipe()
	cmd.Stdout, cmd.Stderr = ow, ew
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = ow.Close() // the child holds its own copies
	_ = ew.Close()
	p := &tendProc{t: t, cmd: cmd, pid: cmd.Process.Pid, stdout: collect(or), stderr: collect(er), done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		p.code = 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			p.code = ee.ExitCode()
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				p.code = 128 + int(ws.Signal())
			}
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = syscall.Kill(p.pid, syscall.SIGKILL) // a failed test left it running
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// childOf finds the first child of pid, such as unshare's forked tend or
// tend's app. Children are listed per thread, and a Go program forks from
// any of its threads, so every task is read. It gives up quietly if the
// test's process has already exited: tend ran to completion.
func (p *tendProc) childOf(pid int) int {
	p.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
		for _, f := range tasks {
			b, _ := os.ReadFile(f)
			if fs := strings.Fields(string(b)); len(fs) > 0 {
				n, _ := strconv.Atoi(fs[0])
				return n
			}
		}
		select {
		case <-p.done:
			return 0
		case <-time.After(2 * time.Millisecond):
		}
	}
	p.t.Fatalf("pid %d has no child", pid)
	return 0
}

func (p *tendProc) signal(sig syscall.Signal) {
	p.t.Helper()
	if err := syscall.Kill(p.pid, sig); err != nil {
		p.t.Fatalf("kill %d %v: %v", p.pid, sig, err)
	}
}

// wait returns tend's exit code, failing the test at the deadline.
func (p *tendProc) wait(d time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
		// Read what was written before the exit. A leftover process
		// may hold the pipes open, so this is bounded.
		bound := time.After(2 * time.Second)
		for _, l := range []*lines{p.stdout, p.stderr} {
			select {
			case <-l.eof:
			case <-bound:
			}
		}
		return p.code
	case <-time.After(d):
		p.t.Fatalf("tend did not exit within %s\nstdout:\n%s\nstderr:\n%s", d, p.stdout, p.stderr)
	}
	return -1
}

// runTend runs tend to completion and returns its code, stdout and stderr.
func runTend(t *testing.T, o opts, args ...string) (int, string, string) {
	t.Helper()
	p := startTend(t, o, args...)
	code := p.wait(30 * time.Second)
	return code, p.stdout.String(), p.stderr.String()
}

// kv parses fakeapp info's key=value lines.
func kv(out string) map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[k] = v
		}
	}
	return m
}

func hexMaskHas(t *testing.T, mask string, sig syscall.Signal) bool {
	t.Helper()
	n, err := strconv.ParseUint(mask, 16, 64)
	if err != nil {
		t.Fatalf("bad mask %q", mask)
	}
	return n&(1<<(uint(sig)-1)) != 0
}

// readWhenPresent waits, up to d, until path exists and returns what it
// holds; the writers of such files write a temporary name and rename it,
// so a file that exists is whole.
func readWhenPresent(t *testing.T, path string, d time.Duration) string {
	t.Helper()
	for deadline := time.Now().Add(d); ; time.Sleep(5 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear within %s", path, d)
		}
	}
}
