// Package grpcprobe runs the built tend binary against a real gRPC server:
// grpc-go's reference health service in ../grpcapp. It needs no kubelet,
// and e2e's TestMain (package e2e, the directory above) does not apply to
// it. `make grpc-test` runs it with the tend it just built (TEND); run
// alone, it builds tend from the repository itself.
package grpcprobe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
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

var tendBin, appBin string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "grpcprobe-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }() // a temporary directory: nothing to report
	tendBin = os.Getenv("TEND")
	builds := []struct{ dir, out, pkg string }{{"..", filepath.Join(dir, "grpcapp"), "./grpcapp"}}
	if tendBin == "" {
		tendBin = filepath.Join(dir, "tend")
		builds = append(builds, struct{ dir, out, pkg string }{"../..", tendBin, "."})
	}
	appBin = builds[0].out
	for _, b := range builds {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", b.out, b.pkg)
		if b.pkg == "." {
			cmd = exec.CommandContext(ctx, "sh", "packaging/gobuild.sh", "-o", b.out, b.pkg) // as it ships
		}
		cmd.Dir = b.dir
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", b.pkg, err, out)
			return 1
		}
	}
	return m.Run()
}

// lines collects a stream, so that a test can wait for a line to appear.
type lines struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	more chan struct{} // closed and replaced at each write
	eof  chan struct{}
}

func collect(r io.Reader) *lines {
	l := &lines{more: make(chan struct{}), eof: make(chan struct{})}
	go func() {
		defer close(l.eof)
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			l.mu.Lock()
			l.buf.Write(b[:n])
			close(l.more)
			l.more = make(chan struct{})
			l.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return l
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// wait waits until s has been written, failing the test at the deadline.
func (l *lines) wait(t *testing.T, s string, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		l.mu.Lock()
		has, more := strings.Contains(l.buf.String(), s), l.more
		l.mu.Unlock()
		if has {
			return
		}
		select {
		case <-more:
		case <-l.eof:
			if !strings.Contains(l.String(), s) {
				t.Fatalf("stream ended without %q:\n%s", s, l)
			}
			return
		case <-deadline:
			t.Fatalf("no %q within %s:\n%s", s, d, l)
		}
	}
}

type tendProc struct {
	t              *testing.T
	cmd            *exec.Cmd
	stdout, stderr *lines
	done           chan struct{}
	code           int
}

// startTend starts tend with args; the test's cleanup kills it if the
// test did not wait for it.
func startTend(t *testing.T, args ...string) *tendProc {
	t.Helper()
	cmd := exec.Command(tendBin, args...)
	or, ow, _ := os.Pipe()
	er, ew, _ := os.Pipe()
	cmd.Stdout, cmd.Stderr = ow, ew
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = ow.Close() // the child holds its own copies
	_ = ew.Close()
	p := &tendProc{t: t, cmd: cmd, stdout: collect(or), stderr: collect(er), done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			p.code = ee.ExitCode()
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill() // a failed test left it running
			<-p.done
		}
	})
	return p
}

// wait returns tend's exit code, failing the test at the deadline.
func (p *tendProc) wait(d time.Duration) int {
	p.t.Helper()
	select {
	case <-p.done:
		<-p.stderr.eof
		return p.code
	case <-time.After(d):
		p.t.Fatalf("tend did not exit within %s\nstderr:\n%s", d, p.stderr)
	}
	return -1
}

func (p *tendProc) stop() int {
	p.t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM) // it may have exited already: wait says
	return p.wait(20 * time.Second)
}

// runTend runs tend to completion: its exit code and stderr.
func runTend(t *testing.T, args ...string) (int, string) {
	t.Helper()
	p := startTend(t, args...)
	code := p.wait(30 * time.Second)
	return code, p.stderr.String()
}

// freeAddr is a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }() // only the port number was wanted
	return ln.Addr().String()
}

// waitStatus polls url until it answers code and returns the body,
// failing the test at the deadline.
func waitStatus(t *testing.T, url string, code int, d time.Duration) string {
	t.Helper()
	c := http.Client{Timeout: time.Second}
	last := "no answer"
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, err := c.Get(url)
		if err != nil {
			last = err.Error()
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close() // read in full: nothing left to lose
		if resp.StatusCode == code {
			return string(b)
		}
		last = strconv.Itoa(resp.StatusCode) + " " + string(b)
	}
	t.Fatalf("%s: no %d within %s; last %s", url, code, d, last)
	return ""
}
