package main_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Socket activation (package activation): what PID 1 receives for the app,
// the app must see as its own (catatonit #12-15). The app is
// testdata/listenapp, a consumer with sd_listen_fds's checks.

// listenapp builds testdata/listenapp into the test's own directory,
// which it opens to everyone (t.TempDir's parent included), so that the
// app also runs as --user nobody.
func listenapp(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "listenapp")
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/listenapp")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building testdata/listenapp: %v\n%s", err, out)
	}
	return bin
}

// startActivated runs argv as systemd does a socket-activated service: the
// socket as fd 3, LISTEN_FDS=1, LISTEN_FDNAMES=web, and LISTEN_PID set to
// the service's pid (here by a shell that then execs argv in its place).
func startActivated(t *testing.T, sock *os.File, env []string, argv ...string) *tendProc {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", `LISTEN_PID=$$ exec "$0" "$@"`}, argv...)...)
	cmd.Env = append(append(os.Environ(), "LISTEN_FDS=1", "LISTEN_FDNAMES=web"), env...)
	cmd.ExtraFiles = []*os.File{sock}
	return launch(t, cmd)
}

// tcpSocket is a listening socket on the loopback, as a file to hand on,
// and the name of its inode in /proc/PID/fd.
func tcpSocket(t *testing.T) (ln *net.TCPListener, f *os.File, link string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	ln = l.(*net.TCPListener)
	f, err = ln.File()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	return ln, f, "socket:[" + strconv.FormatUint(st.Ino, 10) + "]"
}

// ask connects to the app and returns what it saw.
func ask(t *testing.T, network, addr string) map[string]string {
	t.Helper()
	c, err := net.DialTimeout(network, addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	var b strings.Builder
	buf := make([]byte, 512)
	for {
		n, err := c.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if b.Len() == 0 {
		t.Fatalf("the app did not answer on %s", addr)
	}
	return kv(b.String())
}

// holds reports which of pid's descriptors is link.
func holds(pid int, link string) []string {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	ents, _ := os.ReadDir(dir)
	var fds []string
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && l == link {
			fds = append(fds, e.Name())
		}
	}
	return fds
}

// TestSocketActivationGoesToTheAppOnly: with a socket handed to tend as
// systemd hands one, the app's sd_listen_fds finds it (LISTEN_PID is the
// app's pid, fd 3 a listening socket named web); the post-start hook and
// the exec probe see no LISTEN_* variable and no socket at fd 3; and once
// the app runs, tend no longer holds the socket. In tend's mode and in the
// dumb-init mode.
func TestSocketActivationGoesToTheAppOnly(t *testing.T) {
	app := listenapp(t)
	for _, mode := range []string{"tend", "dumb-init"} {
		t.Run(mode, func(t *testing.T) {
			ln, sock, link := tcpSocket(t)
			dir := t.TempDir()
			hook, probe := filepath.Join(dir, "hook"), filepath.Join(dir, "probe")
			hookCmd, probeCmd := app+" check "+hook, app+" check "+probe
			var p *tendProc
			if mode == "tend" {
				p = startActivated(t, sock, nil, tendBin, "-vvv", "--post-start", hookCmd, "--ready-probe", probeCmd, "--", app, "serve")
			} else {
				p = startActivated(t, sock, []string{"TEND_POST_START=" + hookCmd, "TEND_READY_PROBE=" + probeCmd},
					dumbInitBin(t), app, "serve")
			}
			t.Cleanup(func() {
				if t.Failed() {
					t.Logf("stderr:\n%s", p.stderr)
				}
			})
			for name, f := range map[string]string{"post-start": hook, "ready probe": probe} {
				got := kv(readWhenPresent(t, f, 20*time.Second))
				for k := range got {
					if strings.HasPrefix(k, "LISTEN_") {
						t.Errorf("%s inherited %s=%s", name, k, got[k])
					}
				}
				if strings.HasPrefix(got["fd3"], "socket:") {
					t.Errorf("%s inherited fd 3: %s", name, got["fd3"])
				}
			}
			// The app is running (it answers below): tend's copy is gone.
			if fds := holds(p.pid, link); len(fds) > 0 {
				t.Errorf("tend (pid %d) still holds the socket as fd %v", p.pid, fds)
			}
			got := ask(t, "tcp", ln.Addr().String())
			if got["pid"] == "" || got["listen_pid"] != got["pid"] || got["fds"] != "1" || got["names"] != "web" {
				t.Errorf("the app saw %v; want LISTEN_PID = its pid, 1 fd named web", got)
			}
			if code := p.wait(20 * time.Second); code != 0 {
				t.Errorf("exit %d, want the app's 0", code)
			}
		})
	}
}

// TestSocketActivationUnderSystemdSocketActivate: systemd's own tool in
// front of tend, as a socket unit would be (Debian's systemd package): it
// listens, execs tend on the first connection with LISTEN_PID naming
// tend, and the app behind tend serves that connection as its own.
func TestSocketActivationUnderSystemdSocketActivate(t *testing.T) {
	ssa, err := exec.LookPath("systemd-socket-activate")
	if err != nil {
		t.Skip("no systemd-socket-activate (Debian's systemd package)")
	}
	app := listenapp(t)
	for _, mode := range []string{"tend", "dumb-init"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			path, hook := filepath.Join(dir, "sock"), filepath.Join(dir, "hook")
			bin := tendBin
			if mode == "dumb-init" {
				bin = dumbInitBin(t)
			}
			// systemd-socket-activate passes on only the variables -E names.
			p := startTend(t, opts{bin: ssa}, "-E", "TEND_POST_START="+app+" check "+hook, "-E", "PATH",
				// The app waits for post-start's report, so that its
				// exit does not cut post-start short; exec keeps its pid.
				"-l", path, "--fdname=web", bin, "sh", "-c", `while [ ! -e "$1" ]; do sleep 0.02; done; exec "$0" serve`, app, hook)
			p.stderr.wait(t, "Listening on", 20*time.Second)
			got := ask(t, "unix", path)
			if got["pid"] == "" || got["listen_pid"] != got["pid"] || got["fds"] != "1" || got["names"] != "web" {
				t.Errorf("the app saw %v; want LISTEN_PID = its pid, 1 fd named web\nstderr:\n%s", got, p.stderr)
			}
			h := kv(readWhenPresent(t, hook, 20*time.Second))
			if h["LISTEN_PID"] != "" || h["LISTEN_FDS"] != "" || strings.HasPrefix(h["fd3"], "socket:") {
				t.Errorf("post-start inherited %v", h)
			}
			if code := p.wait(20 * time.Second); code != 0 {
				t.Errorf("exit %d, want the app's 0\nstderr:\n%s", code, p.stderr)
			}
		})
	}
}
