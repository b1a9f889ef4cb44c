package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUserRunsTheAppHooksAndProbes: --user nobody runs the app, post-start,
// pre-stop and an exec probe as nobody, with nobody's HOME, as gosu would;
// post-stop, which cleans up after them, runs as tend (root).
func TestUserRunsTheAppHooksAndProbes(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("switching users needs root")
	}
	dir := t.TempDir()
	// nobody writes here too, through t.TempDir's own 0700 parent.
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	save := func(name string) string {
		f := filepath.Join(dir, name)
		return `echo "$(id -u):$(id -g) $HOME" > ` + f + `.tmp && mv ` + f + `.tmp ` + f
	}
	p := startTend(t, opts{pid1: true}, "--user", "nobody",
		"--post-start", save("post-start"), "--pre-stop", save("pre-stop"), "--post-stop", save("post-stop"),
		"--live-probe", save("probe"), "--live-probe-period", "50ms",
		// The test's binaries sit in a root-only directory: the app is
		// the shell itself.
		"--", "sh", "-c", save("app")+`; trap "exit 0" TERM; echo ready; while :; do sleep 0.1; done`)
	p.stdout.wait(t, "ready", 10*time.Second)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("tend's stderr:\n%s", p.stderr)
		}
	})
	read := func(name string) string {
		t.Helper()
		return strings.TrimSpace(readWhenPresent(t, filepath.Join(dir, name), 10*time.Second))
	}
	got := map[string]string{"app": read("app"), "post-start": read("post-start"), "probe": read("probe")}
	p.signal(syscall.SIGTERM)
	if code := p.wait(10 * time.Second); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.stderr)
	}
	got["pre-stop"], got["post-stop"] = read("pre-stop"), read("post-stop")
	for name, line := range got {
		want := "65534:65534 /nonexistent"
		if name == "post-stop" {
			want = "0:0 " + os.Getenv("HOME")
		}
		if line != want {
			t.Errorf("%s ran as %q, want %q", name, line, want)
		}
	}
}

// TestUserErrors: an unknown user is an error at start, exit 1, naming it.
func TestUserErrors(t *testing.T) {
	code, _, errOut := runTend(t, opts{}, "--user", "no-such-user", "--", "true")
	if code != 1 || !strings.Contains(errOut, `no user "no-such-user" in /etc/passwd`) {
		t.Fatalf("want exit 1 and the reason, got %d: %s", code, errOut)
	}
}

// withEtc runs tend with args in a mount namespace of its own where
// /etc/passwd and /etc/group are the given files (bind mounts, private to
// that namespace: the machine's own files are never touched), and
// returns its exit code, stdout, stderr and run time.
func withEtc(t *testing.T, passwd, group string, args ...string) (int, string, string, time.Duration) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("bind mounts need root")
	}
	script := `mount --bind "$1" /etc/passwd && mount --bind "$2" /etc/group && shift 2 && exec "$TEND" "$@"`
	argv := append([]string{"--mount", "--propagation", "private", "sh", "-c", script, "sh", passwd, group}, args...)
	start := time.Now()
	p := startTend(t, opts{bin: "unshare"}, argv...)
	code := p.wait(30 * time.Second)
	return code, p.stdout.String(), p.stderr.String(), time.Since(start)
}

// TestUserBadIdsNeverRoot: an entry asked for whose uid or gid is signed
// or out of range, in the image's /etc/passwd or /etc/group, and a
// number on the command line that is not plain decimal, are exit 1 at
// start naming the entry; the app never runs. Before: --user neg ran
// `id` as uid=0(root), nobody:neg7 as gid=0(root) (gosu 1.14: 4294967294
// and 4294967289).
func TestUserBadIdsNeverRoot(t *testing.T) {
	dir := t.TempDir()
	passwd, group := filepath.Join(dir, "passwd"), filepath.Join(dir, "group")
	files := map[string]string{
		passwd: "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n" +
			"app:x:4321:4322::/home/app:/bin/sh\nneg:x:-2:-2::/:/bin/sh\nplus:x:+1000:1000::/:/bin/sh\n" +
			"over:x:4294967296:1::/:/bin/sh\nmax:x:4294967295:1::/:/bin/sh\nshort:x:-2:-2\n",
		group: "root:x:0:\nneg7:x:-7:\nplus:x:+1000:\napps:x:4323:app",
	}
	for path, s := range files {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The fake files are the ones read: app exists only there.
	code, out, errOut, _ := withEtc(t, passwd, group, "--user", "app", "--", "sh", "-c", `echo "$(id -u):$(id -g):$(id -G) $HOME"`)
	if code != 0 || out != "4321:4322:4322 4323 /home/app" {
		t.Fatalf("--user app: exit %d, %q (want 4321:4322:4322 4323 /home/app): %s", code, out, errOut)
	}
	for _, c := range []struct{ spec, want string }{
		{"neg", `entry "neg": uid "-2" is not an id`},
		{"short", `entry "short": uid "-2" is not an id`},
		{"plus", `entry "plus": uid "+1000" is not an id`},
		{"over", `entry "over": uid "4294967296" is out of range`},
		{"max", `entry "max": uid "4294967295" is out of range`},
		{"nobody:neg7", `entry "neg7": gid "-7" is not an id`},
		{"nobody:plus", `entry "plus": gid "+1000" is not an id`},
		{"+0", `"+0" is not an id`},
		{"00", `"00" is not an id`},
		{"nobody:+0", `"+0" is not an id`},
		{"-2", `"-2" is not an id`},
	} {
		code, out, errOut, _ := withEtc(t, passwd, group, "--user", c.spec, "--", "id")
		if code != 1 || out != "" || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") > 0 {
			t.Errorf("--user %s: exit %d, stdout %q, stderr %q; want exit 1, no output, one line with %s", c.spec, code, out, errOut, c.want)
		}
	}
}

// TestUserHostileEtcFiles: /etc/passwd or /etc/group as /dev/zero, a FIFO
// with no writer, or one 64 MB line is exit 1 at start with a one-line
// reason, at once. Before: more than 10 s at 111-149 MB (/dev/zero as
// /etc/group: 1 GiB), and the FIFO blocked the start for good.
func TestUserHostileEtcFiles(t *testing.T) {
	dir := t.TempDir()
	good, fifo, long := filepath.Join(dir, "passwd"), filepath.Join(dir, "fifo"), filepath.Join(dir, "long")
	if err := os.WriteFile(good, []byte("nobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(long, []byte(strings.Repeat("x", 64<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, passwd, group, spec, want string
	}{
		{"passwd /dev/zero", "/dev/zero", good, "nobody", "/etc/passwd: not a regular file (a character device)"},
		{"passwd /dev/zero, a number", "/dev/zero", good, "65534", "/etc/passwd: not a regular file (a character device)"},
		{"passwd FIFO", fifo, good, "nobody", "/etc/passwd: not a regular file (a FIFO)"},
		{"passwd 64 MB line", long, good, "nobody", "/etc/passwd: line 1 is longer than 65536 bytes"},
		{"group /dev/zero", good, "/dev/zero", "nobody", "/etc/group: not a regular file (a character device)"},
		{"group FIFO", good, fifo, "nobody:users", "/etc/group: not a regular file (a FIFO)"},
		{"group 64 MB line", good, long, "nobody", "/etc/group: line 1 is longer than 65536 bytes"},
	} {
		code, out, errOut, took := withEtc(t, c.passwd, c.group, "--user", c.spec, "--", "id")
		if code != 1 || out != "" || !strings.Contains(errOut, c.want) || strings.Count(errOut, "\n") > 0 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1, no output, one line with %s", c.name, code, out, errOut, c.want)
		}
		t.Logf("%s: exit %d after %v: %s", c.name, code, took, errOut)
	}
}

// TestUserWhenNotRoot: tend run as nobody (65534:65534, as OpenShift runs
// an image under a uid of its own) with --user for itself runs the app as
// itself, with no setuid or setgroups, which only root may call; --user
// for anyone else is one line naming the switch and exit 1, before
// anything starts.
func TestUserWhenNotRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running tend as another uid needs root")
	}
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "tend")
	data, err := os.ReadFile(tendBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		user string
		code int
		out  string // stdout, or the start of stderr's line
	}{
		{"nobody", 0, "65534 65534"},
		{"65534", 0, "65534 65534"},
		{"65534:65534", 0, "65534 65534"},
		{"root", 1, `--user "root": cannot switch to uid 0 gid 0: tend runs as uid 65534`},
		{"65534:0", 1, `--user "65534:0": cannot switch to uid 65534 gid 0`},
	} {
		cmd := exec.Command(bin, "--user", c.user, "--", "sh", "-c", `echo "$(id -u) $(id -g)"`)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		cmd.Dir = "/"
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		got := strings.TrimSpace(out.String())
		if c.code != 0 {
			got = errb.String()
		}
		if code != c.code || !strings.Contains(got, c.out) || (c.code != 0 && strings.Count(got, "\n") != 1) {
			t.Errorf("--user %s as nobody: exit %d, %q (stderr %q); want %d, %q", c.user, code, got, errb.String(), c.code, c.out)
		}
	}
}
