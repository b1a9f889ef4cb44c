package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Socket activation's edges: exec errors, --user, offers that are not
// tend's or are malformed (helpers in blackbox_activation_test.go).

// TestSocketActivationKeepsExecErrors: the shim that starts the app
// reports a failed exec to tend, so the codes and messages are those of a
// start without socket activation: 127 for a missing program, 126 for one
// that cannot run, a script without "#!" run by /bin/sh, and dumb-init's 2.
func TestSocketActivationKeepsExecErrors(t *testing.T) {
	dir := t.TempDir()
	noexec := filepath.Join(dir, "noexec")
	script := filepath.Join(dir, "script")
	if err := os.WriteFile(noexec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte("echo script ran as $0\nexit 7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dumb := dumbInitBin(t)
	cases := []struct {
		name string
		argv []string
		code int
	}{
		{"missing", []string{tendBin, "--", filepath.Join(dir, "missing")}, 127},
		{"not executable", []string{tendBin, "--", noexec}, 126},
		{"missing from PATH", []string{tendBin, "--", "no-such-program-anywhere"}, 127},
		{"script without #!", []string{tendBin, "--", script}, 7},
		{"dumb-init missing", []string{dumb, filepath.Join(dir, "missing")}, 2},
		{"dumb-init not executable", []string{dumb, noexec}, 2},
	}
	// tend's lines carry its pid; the rest must match.
	strip := func(s string) string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			if strings.HasPrefix(l, "[tend ") {
				if _, rest, ok := strings.Cut(l, "] "); ok {
					l = rest
				}
			}
			if !strings.Contains(l, "not PID 1") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, sock, _ := tcpSocket(t)
			plainCode, plainOut, plainErr := runTend(t, opts{bin: c.argv[0]}, c.argv[1:]...)
			p := startActivated(t, sock, nil, c.argv...)
			code := p.wait(30 * time.Second)
			if code != c.code || plainCode != c.code {
				t.Errorf("exit %d with socket activation, %d without; want %d\nstderr:\n%s", code, plainCode, c.code, p.stderr)
			}
			if a, b := strip(p.stderr.String()), strip(plainErr); a != b {
				t.Errorf("stderr with socket activation:\n%s\nwithout:\n%s", a, b)
			}
			if a := p.stdout.String(); a != plainOut {
				t.Errorf("stdout with socket activation %q, without %q", a, plainOut)
			}
		})
	}
}

// TestSocketActivationAsUser: --user applies at the fork, so the shim and
// then the app run as nobody, and the app still finds the socket as its
// own. Where the user cannot execute tend's own binary, the app starts
// without the shim, with the socket, and a warning says LISTEN_PID still
// names tend.
func TestSocketActivationAsUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("switching users needs root")
	}
	app := listenapp(t)
	// tend's binary as nobody may execute it, and as nobody may not.
	// (The kernel follows /proc/self/exe without searching the
	// directories above the file, so only the file's mode matters.)
	shared, private := filepath.Join(filepath.Dir(app), "tend"), filepath.Join(filepath.Dir(app), "tend-private")
	b, err := os.ReadFile(tendBin)
	if err == nil {
		err = os.WriteFile(shared, b, 0o755)
	}
	if err == nil {
		err = os.WriteFile(private, b, 0o700)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Run("shim", func(t *testing.T) {
		ln, sock, _ := tcpSocket(t)
		p := startActivated(t, sock, nil, shared, "--user", "nobody", "--", app, "serve")
		got := ask(t, "tcp", ln.Addr().String())
		if got["uid"] != "65534" || got["pid"] == "" || got["listen_pid"] != got["pid"] {
			t.Errorf("the app saw %v; want uid 65534 and LISTEN_PID = its pid\nstderr:\n%s", got, p.stderr)
		}
		if code := p.wait(20 * time.Second); code != 0 {
			t.Errorf("exit %d\nstderr:\n%s", code, p.stderr)
		}
	})
	t.Run("no shim", func(t *testing.T) {
		_, sock, _ := tcpSocket(t)
		p := startActivated(t, sock, nil, private, "--user", "nobody", "--", app, "serve")
		code := p.wait(20 * time.Second)
		if code != 3 || !strings.Contains(p.stderr.String(), "LISTEN_PID names tend") || !strings.Contains(p.stderr.String(), "is not my pid") {
			t.Errorf("exit %d, want the app's 3 (LISTEN_PID not its own) and tend's warning\nstderr:\n%s", code, p.stderr)
		}
	})
}

// TestSocketActivationOffers: an offer that names another process is left
// as it is, variables and descriptor, as catatonit leaves it; a malformed
// one is said at warning, tend starts the app all the same, and nobody
// gets the variables.
func TestSocketActivationOffers(t *testing.T) {
	app := listenapp(t)
	for _, c := range []struct {
		name, shell string
		warn        string
		keep        bool // hook and app see the variables unchanged
	}{
		{"another pid", `LISTEN_PID=1 exec "$0" "$@"`, "", true},
		{"garbage count", `LISTEN_PID=$$ LISTEN_FDS='1x' exec "$0" "$@"`, `LISTEN_FDS="1x" is not a count`, false},
		{"zero", `LISTEN_PID=$$ LISTEN_FDS=0 exec "$0" "$@"`, `LISTEN_FDS="0" is not a count`, false},
		{"closed fd", `LISTEN_PID=$$ LISTEN_FDS=5 exec "$0" "$@"`, "LISTEN_FDS=5 but descriptor", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, sock, _ := tcpSocket(t)
			hook := filepath.Join(t.TempDir(), "hook")
			// The app waits for post-start's report, so that its exit
			// does not cut post-start short.
			wait := `while [ ! -e "$1" ]; do sleep 0.02; done; exec "$0" check "$1.app"`
			cmd := exec.Command("sh", "-c", c.shell, tendBin, "--post-start", app+" check "+hook, "--", "sh", "-c", wait, app, hook)
			cmd.Env = append(os.Environ(), "LISTEN_FDS=1", "LISTEN_FDNAMES=web")
			cmd.ExtraFiles = []*os.File{sock}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if c.warn != "" && !strings.Contains(string(out), "WARN: socket activation: "+c.warn) {
				t.Errorf("no warning %q:\n%s", c.warn, out)
			}
			h := kv(readWhenPresent(t, hook, 20*time.Second))
			a := kv(readWhenPresent(t, hook+".app", 20*time.Second))
			if has := h["LISTEN_PID"] != "" && a["LISTEN_PID"] != ""; has != c.keep {
				t.Errorf("hook saw %v, app %v; want the variables kept: %v", h, a, c.keep)
			}
		})
	}
}
