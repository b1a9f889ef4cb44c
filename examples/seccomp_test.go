package examples

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSeccompRefusesPidfds runs tend under seccomp profiles that refuse the
// pidfd calls, as a kernel before 5.3 (ENOSYS) or a strict runtime profile
// (EPERM) would: testdata/seccomp/pidfd-{enosys,eperm}.json allow
// everything else, and refuse pidfd_open, pidfd_send_signal, pidfd_getfd
// and waitid with idtype P_PIDFD (3), by its first argument.
//
// tend itself calls pidfd_open only to drain as a subreaper (not PID 1);
// Go's os package probes pidfd_open, waitid(P_PIDFD) and pidfd_send_signal
// once, before the first process start, and falls back to plain pids when
// any is refused. tend's reaper blocks in waitid(P_ALL), which the profiles
// leave alone. Under both profiles tend must still pass exit codes on,
// forward TERM, reap orphans, and drain: as PID 1 (kill(-1)) and as a
// subreaper below another init (kill(2) on each descendant, after checking
// its parent, where pidfd_open is refused).
func TestSeccompRefusesPidfds(t *testing.T) {
	p, base, image := scratchFixture(t, "seccomp", "FROM scratch\nCOPY tend /tend\nCOPY app /app\nCOPY check /check\nENTRYPOINT [\"/tend\", \"--\"]\n")

	for _, c := range []struct{ profile, errno string }{
		{"pidfd-enosys.json", "ENOSYS"},
		{"pidfd-eperm.json", "EPERM"},
	} {
		t.Run(c.errno, func(t *testing.T) {
			profile, err := filepath.Abs(filepath.Join("..", "testdata", "seccomp", c.profile))
			if err != nil {
				t.Fatal(err)
			}
			opts := []string{"--security-opt", "seccomp=" + profile}

			// The profile is in force: each pidfd call fails with its
			// errno inside the container, and waitid(P_ALL) still works.
			r := p.run(time.Minute, append(append([]string{"--rm"}, opts...), image, "/check", "probe")...)
			got := kvLines(r.stdout)
			for _, call := range []string{"pidfd_open", "pidfd_send_signal", "pidfd_getfd", "waitid_pidfd"} {
				if got[call] != c.errno {
					t.Errorf("%s: %q under %s, want %s", call, got[call], c.profile, c.errno)
				}
			}
			if got["waitid_all"] != "ECHILD" {
				t.Errorf("waitid(P_ALL) should reach the kernel (ECHILD), got %q", got["waitid_all"])
			}
			if r.err != nil || r.code != 0 || t.Failed() {
				t.Fatalf("the profile is not in force as written: %s", r)
			}

			initChecks(t, p, base+"-"+strings.ToLower(c.errno), image, opts...)

			t.Run("a subreaper drains its descendants", func(t *testing.T) {
				// A second tend below PID 1, with -s, drains only its
				// own descendants, which it finds in /proc and pins with
				// pidfd_open: refused, it must fall back to kill(2).
				entry := `["/tend", "--", "/tend", "-s", "-v", "--drain-timeout", "300ms", "--post-stop", "[\"/check\",\"gone\",\"/daemon.pid\"]", "--"]`
				r := p.run(time.Minute, append(append([]string{"--rm", "--entrypoint", entry}, opts...), image, "/app", "daemon", "/daemon.pid")...)
				if r.err != nil || r.code != 0 || !strings.Contains(r.stdout, "gone pid=") ||
					!strings.Contains(r.stderr, "drain: sent SIGTERM to 1 descendant(s)") || !strings.Contains(r.stderr, "sent SIGKILL to 1 descendant(s)") {
					t.Fatalf("want the subreaper to TERM, then KILL, its one TERM-ignoring descendant: %s", r)
				}
			})
		})
	}
}
