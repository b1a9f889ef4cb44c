package notify

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// senderBin is testdata/notifysend, built once by TestMain.
var senderBin string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "notify-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil { // TestReceiverPermissions runs it as nobody
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	senderBin = filepath.Join(dir, "notifysend")
	build := exec.Command("go", "build", "-o", senderBin, "../testdata/notifysend")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building notifysend: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

func allowAll(pid int) bool { return true }

func listen(t testing.TB, o Options) *Receiver {
	t.Helper()
	if o.Parent == "" {
		o.Parent = t.TempDir()
	}
	r, err := Listen(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() }) // test cleanup; Close is checked in TestReceiverClose
	return r
}

// send runs notifysend with args against r and returns its stdout.
func send(t *testing.T, r *Receiver, wantCode int, args ...string) string {
	t.Helper()
	cmd := exec.Command(senderBin, args...)
	cmd.Env = append(StripEnv(os.Environ()), r.Env())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != wantCode {
		t.Fatalf("notifysend %q: %v (exit %d, want %d)\n%s", args, err, code, wantCode, errb.String())
	}
	return out.String()
}

func next(t *testing.T, r *Receiver) Message {
	t.Helper()
	select {
	case m, ok := <-r.C:
		if !ok {
			t.Fatalf("C closed: %v", r.Err())
		}
		return m
	case <-time.After(10 * time.Second):
		t.Fatalf("no message in 10 s; counts %v", counts(r))
	}
	return Message{}
}

// waitCount waits until r has read n datagrams in all.
func waitCount(t *testing.T, r *Receiver, n uint64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for r.Received() < n {
		if time.Now().After(deadline) {
			t.Fatalf("read %d datagrams of %d in %v; counts %v", r.Received(), n, within, counts(r))
		}
		time.Sleep(time.Millisecond) // polling a counter the reader goroutine owns, with a deadline
	}
}

func counts(r *Receiver) string {
	var b strings.Builder
	for d := Accepted; d < nDrops; d++ {
		fmt.Fprintf(&b, "%s=%d ", d, r.Count(d))
	}
	return b.String()
}

// TestReceiverGoSender: a process using the protocol directly; the
// message carries its pid.
func TestReceiverGoSender(t *testing.T) {
	r := listen(t, Options{Allow: allowAll})
	send(t, r, 0, "READY=1", "STATUS=listening on :8080", "MAINPID=7")
	m := next(t, r)
	if !m.Ready || m.Status != "listening on :8080" || m.MainPID != 7 || m.PID <= 0 || m.UID != os.Getuid() {
		t.Fatalf("got %+v", m)
	}
}

// TestReceiverSystemdNotify: Debian's systemd-notify (252 here) sends
// "READY=1\nSTATUS=..." with its parent's pid in the credentials (as root
// it may claim it; its --pid defaults to the parent), then BARRIER=1 with
// a pipe attached and waits until the receiver closes that pipe, exiting
// 1 after 5 s if it is never closed. So it exits 0 only if tend closes
// the descriptors it refuses.
func TestReceiverSystemdNotify(t *testing.T) {
	bin, err := exec.LookPath("systemd-notify")
	if err != nil {
		t.Skip("systemd-notify not installed (Debian package systemd)")
	}
	r := listen(t, Options{Allow: allowAll})
	cmd := exec.Command(bin, "--ready", "--status=warming \x1b[31mcaches")
	cmd.Env = append(StripEnv(os.Environ()), r.Env())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-notify: %v\n%s", err, out)
	}
	m := next(t, r)
	if !m.Ready || m.Status != `warming \x1b[31mcaches` || m.PID <= 0 {
		t.Fatalf("got %+v", m)
	}
	t.Logf("systemd-notify (pid %d) claimed pid %d; tend is %d", cmd.Process.Pid, m.PID, os.Getpid())
	if got := r.Count(WithFds); got != 1 {
		t.Fatalf("BARRIER=1 with its fd: %d dropped for fds, want 1; %s", got, counts(r))
	}
}

// TestReceiverFds: descriptors attached are closed and the message
// dropped (the sender sees its pipe closed) and the loop never sees it.
func TestReceiverFds(t *testing.T) {
	r := listen(t, Options{Allow: allowAll})
	before := openFds(t)
	out := send(t, r, 0, "-fd", "READY=1")
	if !strings.Contains(out, "closed by receiver") {
		t.Fatalf("sender: %q", out)
	}
	if r.Count(WithFds) != 1 || r.Count(Accepted) != 0 {
		t.Fatalf("counts %s", counts(r))
	}
	if after := openFds(t); after > before {
		t.Fatalf("open descriptors %d -> %d: the sender's fd was kept", before, after)
	}
	send(t, r, 0, "READY=1") // still listening
	if m := next(t, r); !m.Ready {
		t.Fatalf("got %+v", m)
	}
}

func openFds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestReceiverOversized: a datagram over MaxDatagram is dropped whole,
// not parsed from its first 4 KB; one of exactly MaxDatagram is taken.
func TestReceiverOversized(t *testing.T) {
	r := listen(t, Options{Allow: allowAll})
	send(t, r, 0, "-size", fmt.Sprint(MaxDatagram+1), "READY=1", "STATUS=")
	send(t, r, 0, "-size", "65000", "READY=1", "STATUS=")
	send(t, r, 0, "-size", fmt.Sprint(MaxDatagram), "WATCHDOG=1", "STATUS=")
	m := next(t, r)
	if m.Ready || !m.Watchdog || len(m.Status) == 0 {
		t.Fatalf("got %+v", m)
	}
	if r.Count(Truncated) != 2 {
		t.Fatalf("counts %s", counts(r))
	}
}

func TestReceiverNUL(t *testing.T) {
	r := listen(t, Options{Allow: allowAll})
	sendSelf(t, r.Path(), "READY=1\x00STATUS=x") // argv cannot carry a NUL
	sendSelf(t, r.Path(), "WATCHDOG=1\x00")      // one trailing NUL is allowed
	if m := next(t, r); m.Ready || !m.Watchdog {
		t.Fatalf("got %+v", m)
	}
	if r.Count(HasNUL) != 1 {
		t.Fatalf("counts %s", counts(r))
	}
}

// TestReceiverDenied: the caller's check decides by pid.
func TestReceiverDenied(t *testing.T) {
	self := os.Getpid()
	var seen []int
	r := listen(t, Options{Allow: func(pid int) bool { seen = append(seen, pid); return pid == self }})
	send(t, r, 0, "READY=1") // another process: refused
	waitCount(t, r, 1, 10*time.Second)
	sendSelf(t, r.Path(), "STATUS=from tend's own pid")
	m := next(t, r)
	if m.Ready || m.Status != "from tend's own pid" || m.PID != self {
		t.Fatalf("got %+v", m)
	}
	if r.Count(Denied) != 1 || len(seen) != 2 || seen[0] == self {
		t.Fatalf("counts %s, checked pids %v", counts(r), seen)
	}
}

// sendSelf sends from this process, with the protocol directly.
func sendSelf(t *testing.T, path, msg string) {
	t.Helper()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Sendto(fd, []byte(msg), 0, &unix.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
}

// TestReceiverNoCreds: a datagram whose credentials are missing, or whose
// pid is 0 (the kernel's answer for a sender outside tend's pid
// namespace), is dropped before the caller's check runs.
func TestReceiverNoCreds(t *testing.T) {
	called := false
	r := &Receiver{allow: func(int) bool { called = true; return true }, bucket: newBucket(1, 1, time.Now())}
	b := []byte("READY=1")
	outside := unix.UnixCredentials(&unix.Ucred{Pid: 0, Uid: 0, Gid: 0})
	inside := unix.UnixCredentials(&unix.Ucred{Pid: 42, Uid: 1000, Gid: 1000})
	for _, c := range []struct {
		oob  []byte
		want Drop
	}{{nil, NoCreds}, {outside, NoCreds}, {inside, Accepted}} {
		if d, m := r.judge(b, len(b), 0, c.oob); d != c.want || (d == Accepted && (m.PID != 42 || m.UID != 1000 || !m.Ready)) {
			t.Errorf("judge with %d bytes of control = %v %+v, want %v", len(c.oob), d, m, c.want)
		}
	}
	if !called {
		t.Error("the check never ran for the sender inside")
	}
}

// TestReceiverPermissions: the directory is tend's, 0711; the socket
// 0666, so an app under --user (or one that drops privileges itself) can
// reach it; a user other than root can send (checked as nobody).
func TestReceiverPermissions(t *testing.T) {
	r := listen(t, Options{Allow: allowAll})
	dir := filepath.Dir(r.Path())
	for _, c := range []struct {
		path string
		want os.FileMode
	}{{dir, os.ModeDir | 0o711}, {r.Path(), os.ModeSocket | 0o666}} {
		st, err := os.Lstat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode() != c.want {
			t.Fatalf("%s: mode %v, want %v", c.path, st.Mode(), c.want)
		}
	}
	if os.Getuid() != 0 {
		t.Skip("sending as another uid needs root")
	}
	// t.TempDir's parents are 0700 in some setups; make the chain passable
	// for nobody only down to Listen's own directory.
	for p := filepath.Dir(dir); p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
		if err := os.Chmod(p, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(senderBin, "READY=1")
	cmd.Env = []string{r.Env()}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if m := next(t, r); !m.Ready || m.UID != 65534 {
		t.Fatalf("got %+v", m)
	}
}

func TestReceiverClose(t *testing.T) {
	r, err := Listen(Options{Parent: t.TempDir(), Allow: allowAll})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := <-r.C; ok {
		t.Fatal("C still open after Close")
	}
	if _, err := os.Lstat(filepath.Dir(r.Path())); !os.IsNotExist(err) {
		t.Fatalf("directory left behind: %v", err)
	}
	if err := r.Close(); err != nil || r.Err() != nil {
		t.Fatalf("second Close: %v, Err %v", err, r.Err())
	}
}
