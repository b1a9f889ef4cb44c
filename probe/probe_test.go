package probe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tend-init/tend/reaper"
)

func TestParseSpec(t *testing.T) {
	cases := []struct {
		in   string
		kind string // the Handler's type, "" when rejected
	}{
		{"http://127.0.0.1:8080/healthz", "probe.HTTP"},
		{"http://localhost/x", "probe.HTTP"},
		{"tcp://127.0.0.1:5432", "probe.TCP"},
		{"tcp://db:5432", "probe.TCP"},
		{"pg_isready -q", "probe.Command"},
		{`["/bin/check","--fast"]`, "probe.Command"},
		{"http://", ""},
		{"https://x:1/", "probe.HTTP"},
		{"https://[::1]:8443/healthz", "probe.HTTP"},
		{"https://", ""},
		{"https://x:/", ""},
		{"grpc://x:1", "probe.GRPC"},
		{"grpc://127.0.0.1:50051/grpc.health.v1.Health", "probe.GRPC"},
		{"grpc://x", ""},
		{"grpc://x:0", ""},
		{"grpc://x:1/s?q", ""},
		{"grpcs://x:1", "probe.GRPC"},
		{"grpcs://x", ""},
		// unix sockets, nginx's form, in every kind (target.UnixPrefix)
		{"http://unix:/run/app.sock:/healthz", "probe.HTTP"},
		{"https://unix:/run/app.sock", "probe.HTTP"},
		{"http://unix:run/app.sock:/x", ""},
		{"http://unix:/run/app.sock:x", ""},
		{"tcp://unix:/run/app.sock", "probe.TCP"},
		{"tcp://unix:/run/app.sock:/x", ""},
		{"tcp://unix:", ""},
		{"grpc://unix:/run/app.sock", "probe.GRPC"},
		{"grpcs://unix:/run/app.sock:/svc", "probe.GRPC"},
		{"grpc://unix:/" + strings.Repeat("a", 107), ""},
		{"grpc://unix:/a\x01", ""},
		{"POST http://x:1/", ""},
		{"echo http://x", "probe.Command"},
		{"tcp://nohost", ""},
		{"tcp://", ""},
		{"", ""},
		{"[", ""},
	}
	for _, c := range cases {
		s, err := ParseSpec(c.in)
		if (err == nil) != (c.kind != "") || (err == nil && fmt.Sprintf("%T", s) != c.kind) {
			t.Errorf("ParseSpec(%q) = %+v, %v", c.in, s, err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("multi-line error %q", err)
		}
	}
}

func TestThreshold(t *testing.T) {
	p := Params{FailureThreshold: 3, SuccessThreshold: 2}
	th := NewThreshold(p, true)
	steps := []struct {
		ok             bool
		state, changed bool
	}{
		{false, true, false}, {false, true, false}, {true, true, false}, // a success resets the run
		{false, true, false}, {false, true, false}, {false, false, true},
		{true, false, false}, {false, false, false}, {true, false, false}, {true, true, true},
	}
	for i, s := range steps {
		st, ch := th.Observe(s.ok)
		if st != s.state || ch != s.changed {
			t.Fatalf("step %d (%v): got %v,%v want %v,%v", i, s.ok, st, ch, s.state, s.changed)
		}
	}
}

func TestCheck(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
		case "/redirect":
			w.WriteHeader(302)
		case "/slow":
			time.Sleep(500 * time.Millisecond)
		default:
			w.WriteHeader(503)
		}
	}))
	defer ok.Close()
	if err := getURL(ok.URL+"/ok", time.Second); err != nil {
		t.Errorf("200: %v", err)
	}
	if err := getURL(ok.URL+"/redirect", time.Second); err != nil {
		t.Errorf("302 counts as success: %v", err)
	}
	if err := getURL(ok.URL+"/down", time.Second); err == nil || err.Error() != "status 503" {
		t.Errorf("503: %v", err)
	}
	if err := getURL(ok.URL+"/slow", 100*time.Millisecond); err == nil || err.Error() != "timed out" {
		t.Errorf("slow: %v", err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	_ = ln.Close()
	if err := getURL("http://"+closed+"/", time.Second); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("closed port: %v", err)
	}
}

func TestHTTPAndTCPProbes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthy" {
			w.WriteHeader(500)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	for spec, want := range map[string]bool{
		srv.URL + "/healthy":                    true,
		srv.URL + "/sick":                       false,
		"tcp://" + srv.Listener.Addr().String(): true,
		"tcp://127.0.0.1:1":                     false,
	} {
		s, err := ParseSpec(spec)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Attempt(ctx, Deps{}, time.Second); (err == nil) != want {
			t.Errorf("%s: got %v, want ok=%v", spec, err, want)
		}
	}
}

// reaperLoop drives a reaper on SIGCHLD, as tend's loop does.
func reaperLoop(t *testing.T) *reaper.Reaper {
	r := reaper.New(nil)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGCHLD)
	done := make(chan struct{})
	t.Cleanup(func() { signal.Stop(ch); close(done) })
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ch:
			case <-tick.C:
			case <-done:
				return
			}
			_, _ = r.Reap() // a failure shows up as a missing result below
		}
	}()
	return r
}

func TestExecProbeAndRun(t *testing.T) {
	r := reaperLoop(t)
	for spec, want := range map[string]string{"exit 0": "", "exit 1": "exit code 1", `["sleep","5"]`: "timed out"} {
		s, _ := ParseSpec(spec)
		err := s.Attempt(context.Background(), Deps{Starter: r, Env: os.Environ()}, 300*time.Millisecond)
		if (want == "" && err != nil) || (want != "" && (err == nil || !strings.Contains(err.Error(), want))) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
	s, _ := ParseSpec("exit 1")
	out := make(chan error)
	ctx, cancel := context.WithCancel(context.Background())
	go Run(ctx, s, Params{Period: 10 * time.Millisecond, Timeout: time.Second}, Deps{Starter: r, Env: os.Environ()},
		func(err error) bool {
			select {
			case out <- err:
				return true
			case <-ctx.Done():
				return false
			}
		})
	for i := 0; i < 3; i++ {
		if err := <-out; err == nil || !strings.Contains(err.Error(), "exit code 1") {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	cancel()
}

func TestResourceErrorsAreUnknown(t *testing.T) {
	for _, err := range []error{
		&os.SyscallError{Syscall: "pipe2", Err: syscall.EMFILE},
		fmt.Errorf("fork/exec /bin/sh: %w", syscall.EAGAIN),
		&net.OpError{Op: "dial", Err: &os.SyscallError{Syscall: "socket", Err: syscall.ENFILE}},
	} {
		if c := classify(err); !errors.Is(c, ErrUnknown) || strings.Contains(c.Error(), "\n") {
			t.Errorf("%v: want ErrUnknown, got %v", err, c)
		}
	}
	for _, err := range []error{errors.New("exit code 1"), syscall.ECONNREFUSED, fmt.Errorf("dial: %w", syscall.ECONNREFUSED)} {
		if c := classify(err); errors.Is(c, ErrUnknown) {
			t.Errorf("%v: the target's failure must stay a failure", err)
		}
	}
}

// TestCheckStatusTimeout: a read past the deadline, which http1 returns as a
// net.Error whose Timeout is true (http1.TestReadResponseHead), is reported
// as "timed out".
func TestCheckStatusTimeout(t *testing.T) {
	err := &net.OpError{Op: "read", Net: "tcp", Err: errTimeout{}}
	if got := verdict(0, err); got == nil || got.Error() != "timed out" {
		t.Errorf("checkStatus(%v) = %v, want timed out", err, got)
	}
}

// errTimeout is the error of a conn past its deadline.
type errTimeout struct{}

func (errTimeout) Error() string   { return "i/o timeout" }
func (errTimeout) Timeout() bool   { return true }
func (errTimeout) Temporary() bool { return true }
