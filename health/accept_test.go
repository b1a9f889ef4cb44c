package health

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"
)

// holdConns opens n connections to addr that never send a byte.
func holdConns(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	held := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range held {
			_ = c.Close() // test cleanup
		}
	})
	for i := 0; i < n; i++ {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatalf("connection %d of %d: %v", i, n, err)
		}
		held = append(held, c)
	}
	return held
}

// livezUnderLoad asks /livez tries times, each within limit, and fails the
// test unless every answer is a 200 in time.
func livezUnderLoad(t *testing.T, addr string, tries int, limit time.Duration) {
	t.Helper()
	var worst time.Duration
	ok := 0
	for i := 0; i < tries; i++ {
		start := time.Now()
		code, _, err := roundTrip(addr, getLivez, limit)
		d := time.Since(start)
		worst = max(worst, d)
		if err != nil || code != 200 || d > limit {
			if i-ok < 5 { // the first few failures tell the story
				t.Errorf("try %d: %d %v after %s", i, code, err, d)
			}
			continue
		}
		ok++
	}
	t.Logf("/livez: %d of %d answered 200 within %s; worst %s", ok, tries, limit, worst)
	if ok != tries {
		t.Errorf("/livez: only %d of %d answered 200 within %s", ok, tries, limit)
	}
}

// TestEvictOldestIdle: idle connections past the cap evict the oldest idle
// one, so /livez still answers, instead of every new one being refused.
func TestEvictOldestIdle(t *testing.T) {
	s, _ := serveTest(t, func(s *Server) { s.maxConns = 16 })
	held := holdConns(t, s.Addr().String(), 64)
	livezUnderLoad(t, s.Addr().String(), 1, answerLimit())
	// The accept queue is FIFO, so by now all 64 were admitted in order.
	buf := make([]byte, 1)
	_ = held[0].SetReadDeadline(time.Now().Add(2 * time.Second)) // fails only on a closed conn, which Read reports
	if _, err := held[0].Read(buf); !errors.Is(err, io.EOF) {
		t.Errorf("the oldest idle connection was not closed: %v", err)
	}
	_ = held[63].SetReadDeadline(time.Now().Add(50 * time.Millisecond)) // as above
	var ne net.Error
	if _, err := held[63].Read(buf); !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("the newest idle connection was closed: %v", err)
	}
	livezUnderLoad(t, s.Addr().String(), 100, answerLimit())
}

// answerLimit is how fast /livez must answer: the 100 ms under
// make torture; in plain go test, on a shared CI machine under -race, a
// second, which still tells "answered" from "refused" (0 of 100 before).
func answerLimit() time.Duration {
	if os.Getenv("TEND_TORTURE") == "1" {
		return 100 * time.Millisecond
	}
	return time.Second
}

// TestTortureHeldConnections holds 5,000 idle connections, more than the
// real cap, under TEND_TORTURE=1.
func TestTortureHeldConnections(t *testing.T) {
	if os.Getenv("TEND_TORTURE") != "1" {
		t.Skip("holds 5,000 connections; set TEND_TORTURE=1")
	}
	const n = 5000
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if need := uint64(2*n + 256); lim.Cur < need { // both ends live in this process
		if lim.Max < need {
			t.Skipf("RLIMIT_NOFILE hard limit %d < %d", lim.Max, need)
		}
		old := lim
		lim.Cur = need
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) }) // best effort: the process ends soon
	}
	s, _ := serveTest(t, nil)
	t.Logf("connection cap %d", s.maxConns)
	holdConns(t, s.Addr().String(), n)
	livezUnderLoad(t, s.Addr().String(), 100, 100*time.Millisecond)
}

func TestConnCap(t *testing.T) {
	for _, c := range []struct {
		soft uint64
		want int
	}{
		{0, minConns}, {10, minConns}, {64, minConns}, {80, minConns}, {100, 36},
		{150, 86}, {128 + 64, 128}, {1024, 128}, {20000, 128}, {^uint64(0), 128},
	} {
		if got := connCap(c.soft); got != c.want {
			t.Errorf("connCap(%d) = %d, want %d", c.soft, got, c.want)
		}
	}
}

// TestListenCapFromRlimit: Listen fits the cap under the open-files limit.
func TestListenCapFromRlimit(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur < 1024 {
		t.Skipf("soft RLIMIT_NOFILE %d is already low", lim.Cur)
	}
	old := lim
	lim.Cur = 150 // far above what this test process holds open
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	s, err := Listen("127.0.0.1:0", "test")
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close() // only the cap was wanted
	if s.maxConns != 150-fdReserve {
		t.Fatalf("cap %d under a limit of 150", s.maxConns)
	}
}

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
