package probe

import (
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// faultyListener fails the first fail Accepts (all of them if fail < 0)
// with ENOBUFS, as a kernel short of buffers does, and records each call.
type faultyListener struct {
	net.Listener
	mu     sync.Mutex
	fail   int
	calls  []time.Time
	called chan struct{} // a value per call, dropped when nobody waits
}

func (l *faultyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	l.calls = append(l.calls, time.Now())
	fail := l.fail != 0
	if l.fail > 0 {
		l.fail--
	}
	l.mu.Unlock()
	select {
	case l.called <- struct{}{}:
	default:
	}
	if fail {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.ENOBUFS)}
	}
	return l.Listener.Accept()
}

func (l *faultyListener) callTimes() []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Time(nil), l.calls...)
}

// TestAcceptErrorRetried: a transient accept error does not end Serve.
func TestAcceptErrorRetried(t *testing.T) {
	s, done := serveTest(t, func(s *Server) {
		s.ln = &faultyListener{Listener: s.ln, fail: 1, called: make(chan struct{})}
	})
	for i := 0; i < 3; i++ {
		if code, _, err := roundTrip(s.Addr().String(), getLivez, 2*time.Second); code != 200 {
			t.Fatalf("after an accept error, request %d: %d %v", i, code, err)
		}
	}
	select {
	case err := <-done:
		t.Fatalf("Serve returned %v", err)
	default:
	}
}

// TestAcceptBackoff: repeated errors are retried after pauses that double,
// not in a hot loop, and Serve still serves once they stop.
func TestAcceptBackoff(t *testing.T) {
	const fails = 6
	var fl *faultyListener
	s, _ := serveTest(t, func(s *Server) {
		fl = &faultyListener{Listener: s.ln, fail: fails, called: make(chan struct{})}
		s.ln = fl
	})
	if code, _, err := roundTrip(s.Addr().String(), getLivez, 5*time.Second); code != 200 {
		t.Fatalf("after %d accept errors: %d %v", fails, code, err)
	}
	calls := fl.callTimes()
	if len(calls) < fails+1 {
		t.Fatalf("%d Accept calls", len(calls))
	}
	want := minBackoff
	for i := 1; i <= fails; i++ {
		if gap := calls[i].Sub(calls[i-1]); gap < want {
			t.Errorf("retry %d after %s, want at least %s", i, gap, want)
		}
		want *= 2
	}
}

// TestCloseDuringBackoff: Close ends Serve, with nil, even while it is
// pausing between failed accepts.
func TestCloseDuringBackoff(t *testing.T) {
	fl := &faultyListener{fail: -1, called: make(chan struct{})}
	s, done := serveTest(t, func(s *Server) { fl.Listener = s.ln; s.ln = fl })
	deadline := time.After(5 * time.Second)
	for i := 0; i < 3; i++ { // three failures: Serve is backing off
		select {
		case <-fl.called:
		case <-deadline:
			t.Fatal("Accept not retried")
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve after Close: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Serve did not return after Close")
	}
	if n := len(fl.callTimes()); n > 10 {
		t.Errorf("%d Accept calls for a few milliseconds of errors: spinning", n)
	}
}

func TestNextBackoff(t *testing.T) {
	var d time.Duration
	var got []time.Duration
	for i := 0; i < 10; i++ {
		d = nextBackoff(d)
		got = append(got, d)
	}
	want := []time.Duration{5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000}
	for i := range want {
		if got[i] != want[i]*time.Millisecond {
			t.Fatalf("back-off steps %v", got)
		}
	}
}
