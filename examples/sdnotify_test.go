package examples

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestPodmanSdnotify: `podman run -d --sdnotify=container` in front of
// tend, run as a Type=notify unit would run it (NOTIFY_SOCKET set to a
// test-owned socket). With --notify, tend gives the app a socket of its
// own; the app's READY=1 makes tend ready, and tend's READY=1 goes out
// through conmon's relay (podman 4.3: conmon --sdnotify-socket; `podman
// run -d` itself returns without waiting for it). The app takes a second
// before its READY=1, so that a READY=1 at the manager before the app's
// (conmon 2.1.6 passing tend's "STATUS=waiting: ... READY=1" on as
// READY=1, as it did) fails the test rather than hides in the figure.
//
// Five runs: the time from the app's send (its wall clock just before
// sendmsg) to READY=1's arrival at the test's socket (the kernel's
// SO_TIMESTAMPNS, the same CLOCK_REALTIME, whenever the test reads it) is
// reported (median, min-max), not asserted. Only READY=1 from this
// container's conmon counts (SO_PASSCRED), so a datagram left from an
// earlier run cannot.
func TestPodmanSdnotify(t *testing.T) {
	requirePodman(t)
	p := podman{dir: t.TempDir()}
	goBuildTend(t, filepath.Join(p.dir, "tend"), "sdnotify-test")
	goBuild(t, filepath.Join(p.dir, "notifysend"), "./testdata/notifysend")
	base := uniqueBase("sdnotify")
	image := "localhost/" + base
	file := filepath.Join(p.dir, "Containerfile")
	body := "FROM scratch\nCOPY tend /tend\nCOPY notifysend /notifysend\nENTRYPOINT [\"/tend\", \"--notify\", \"--\"]\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.do(2*time.Minute, "rmi", "-f", image) }) // best effort: the tag is unique
	if r := p.do(2*time.Minute, "build", "-f", file, "-t", image, "."); r.err != nil || r.code != 0 {
		cannotRun(t, "the container runtime cannot build a FROM scratch image here: %s", r)
	}
	// The manager: what systemd would be for a Type=notify unit.
	path := filepath.Join(t.TempDir(), "notify")
	mgr := listenManager(t, path)
	t.Setenv("NOTIFY_SOCKET", path) // podman's own environment, as systemd sets it
	var ds []time.Duration
	for i := range 5 {
		name := base + "-" + strconv.Itoa(i)
		t.Cleanup(func() { _ = p.do(time.Minute, "rm", "-f", "-t", "0", name) }) // best effort
		r := p.run(2*time.Minute, "-d", "--sdnotify=container", "-e", "TEND_VERBOSITY=2", "--name", name, image,
			"/notifysend", "-stay", "-after", "1s", "READY=1", "STATUS=from the app")
		returned := time.Now()
		if r.err != nil || r.code != 0 {
			if i == 0 && strings.Contains(r.stderr, "OCI runtime") {
				cannotRun(t, "the container runtime cannot start a container here: %s", r)
			}
			t.Fatalf("podman run -d --sdnotify=container: %s", r)
		}
		conmon, err := strconv.Atoi(strings.TrimSpace(p.must(t, 30*time.Second, "inspect", "--format", "{{.State.ConmonPid}}", name).stdout))
		if err != nil {
			t.Fatalf("run %d: conmon's pid: %v", i, err)
		}
		ready, others := mgr.readyFrom(t, int32(conmon), 30*time.Second)
		logs := p.must(t, 30*time.Second, "logs", name)
		sent := sentAt(logs.stdout)
		if sent.IsZero() {
			// The app prints at= before its send: READY=1 came first.
			t.Fatalf("run %d: READY=1 reached the manager before the app sent its READY=1 (no at= line yet: %q; other datagrams: %q); tend's log:\n%s",
				i, logs.stdout, others, logs.stderr)
		}
		if ready.Before(sent) {
			t.Fatalf("run %d: READY=1 reached the manager %s before the app sent its READY=1 (other datagrams: %q); tend's log:\n%s",
				i, sent.Sub(ready), others, logs.stderr)
		}
		ds = append(ds, ready.Sub(sent))
		t.Logf("run %d: app's READY=1 -> READY=1 at the manager %s; podman run -d returned %s before the app's send; other datagrams %q",
			i, ready.Sub(sent).Round(time.Millisecond), sent.Sub(returned).Round(time.Millisecond), others)
		if i == 0 {
			t.Logf("tend's log: %s", logs.stderr)
		}
		code, _, _ := p.stop(t, name)
		if code != "0" {
			t.Fatalf("run %d: podman stop: the app's 0 should pass through tend, got %s", i, code)
		}
	}
	slices.Sort(ds)
	t.Logf("the app's READY=1 -> READY=1 at podman --sdnotify=container's manager: median %s (min %s, max %s) of %d",
		ds[2].Round(time.Millisecond), ds[0].Round(time.Millisecond), ds[4].Round(time.Millisecond), len(ds))
}

// manager is a test-owned NOTIFY_SOCKET that knows each datagram's sender
// (SCM_CREDENTIALS) and arrival time (SCM_TIMESTAMPNS).
type manager struct{ conn *net.UnixConn }

func listenManager(t *testing.T, path string) manager {
	t.Helper()
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() }) // the test is over
	rc, err := conn.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PASSCRED, 1)
		if serr == nil {
			serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
		}
	})
	if err != nil || serr != nil {
		t.Fatalf("SO_PASSCRED, SO_TIMESTAMPNS: %v %v", err, serr)
	}
	return manager{conn}
}

// readyFrom reads datagrams until READY=1 comes from pid, and returns when
// it arrived, and the datagrams read before it ("pid: text").
func (m manager) readyFrom(t *testing.T, pid int32, d time.Duration) (time.Time, []string) {
	t.Helper()
	_ = m.conn.SetReadDeadline(time.Now().Add(d)) // a failed deadline shows as a hang bound's failure below
	buf, oob := make([]byte, 4096), make([]byte, 1024)
	var others []string
	for {
		n, oobn, _, _, err := m.conn.ReadMsgUnix(buf, oob)
		if err != nil {
			t.Fatalf("no READY=1 from conmon (pid %d) within %s (got %q): %v", pid, d, others, err)
		}
		from, at := int32(-1), time.Time{}
		msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
		if err != nil {
			t.Fatalf("control message: %v", err)
		}
		for _, c := range msgs {
			switch {
			case c.Header.Level != unix.SOL_SOCKET:
			case c.Header.Type == unix.SCM_CREDENTIALS:
				if cred, err := unix.ParseUnixCredentials(&c); err == nil {
					from = cred.Pid
				}
			case c.Header.Type == unix.SCM_TIMESTAMPNS && len(c.Data) >= int(unsafe.Sizeof(unix.Timespec{})):
				ts := *(*unix.Timespec)(unsafe.Pointer(&c.Data[0]))
				at = time.Unix(ts.Unix())
			}
		}
		text := string(buf[:n])
		if from == pid && slices.Contains(strings.Split(text, "\n"), "READY=1") {
			if at.IsZero() {
				t.Fatal("READY=1 came without its SCM_TIMESTAMPNS")
			}
			return at, others
		}
		others = append(others, fmt.Sprintf("%d: %s", from, text))
	}
}

// sentAt reads notifysend -stay's at=UNIXNANO line.
func sentAt(logs string) time.Time {
	for _, l := range strings.Split(logs, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "at="); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return time.Unix(0, n)
			}
		}
	}
	return time.Time{}
}
