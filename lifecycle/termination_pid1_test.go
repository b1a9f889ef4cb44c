package lifecycle

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
)

// termMode is the PID-1 helper mode of these tests. It is dispatched from
// init, before TestMain, so that pid1Helper's list of modes stays as it is.
const termMode = "termination"

func init() {
	if os.Getenv(helperEnv) == termMode {
		os.Exit(terminationHelper())
	}
}

// terminationHelper runs, as PID 1, an app whose post-start hook fails, so
// that tend decides 69 and writes its termination message to the path in
// args[0]. Special paths: "proc" is this process's own /proc/PID/comm (a
// regular, empty, writable /proc file reached without a link; writing it
// renames the helper, and nothing else); "bind-null:FILE" bind-mounts
// /dev/null over FILE first (the helper has its own mount namespace). tend
// logs to stdout at info level; the last line is RESULT.
func terminationHelper() int {
	if os.Getpid() != 1 {
		fmt.Println("RESULT error=not-pid-1")
		return 1
	}
	path := os.Getenv("TEND_TEST_TERM_PATH")
	comm := ""
	switch {
	case path == "proc":
		self, err := os.Readlink("/proc/self") // our pid as this /proc counts
		if err != nil {
			fmt.Printf("RESULT error=%v\n", err)
			return 1
		}
		path = "/proc/" + self + "/comm"
		comm = path
	case strings.HasPrefix(path, "bind-null:"):
		path = strings.TrimPrefix(path, "bind-null:")
		if err := unix.Mount("/dev/null", path, "", unix.MS_BIND, ""); err != nil {
			fmt.Printf("RESULT error=bind-mount:%v\n", err)
			return 1
		}
	}
	before := readComm(comm)
	hook, err := hooks.ParseAction("exit 3")
	if err != nil {
		fmt.Printf("RESULT error=%v\n", err)
		return 1
	}
	cfg := plan.Default()
	cfg.Args = []string{"sleep", "30"}
	cfg.PostStart = []hooks.Action{hook}
	cfg.TerminationMessagePath = path
	cfg.Verbosity = logger.LevelInfo
	l, err := New(cfg, os.Stdout)
	if err != nil {
		fmt.Printf("RESULT error=%v\n", err)
		return 1
	}
	code := l.Run(context.Background())
	fmt.Printf("RESULT code=%d comm_changed=%v\n", code, readComm(comm) != before)
	return 0
}

func readComm(path string) string {
	if path == "" {
		return ""
	}
	b, _ := os.ReadFile(path) // compared before and after; an error reads as ""
	return string(b)
}

// runTermination runs the helper with path and returns tend's exit code,
// whether /proc/PID/comm changed, and tend's log. A helper that does not
// finish within 10 s fails the test: whatever sits at the path, tend must
// exit with its decided code within a bound.
func runTermination(t *testing.T, path string) (code int, commChanged bool, log string) {
	t.Helper()
	t.Setenv("TEND_TEST_TERM_PATH", path)
	cmd, _, out := pid1(t, termMode)
	lines := make(chan []string, 1)
	go func() {
		var all []string
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			all = append(all, sc.Text())
			if strings.HasPrefix(sc.Text(), "RESULT") {
				break
			}
		}
		lines <- all
	}()
	var all []string
	select {
	case all = <-lines:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: tend did not exit within 10s", path)
	}
	_ = cmd.Wait() // the helper's status; RESULT says what matters
	if len(all) == 0 || !strings.HasPrefix(all[len(all)-1], "RESULT") {
		t.Fatalf("%s: no RESULT line:\n%s", path, strings.Join(all, "\n"))
	}
	res := all[len(all)-1]
	if strings.Contains(res, "error=") {
		t.Fatalf("%s: %s", path, res)
	}
	code, _ = strconv.Atoi(field(t, res, "code"))
	return code, field(t, res, "comm_changed") == "true", strings.Join(all[:len(all)-1], "\n")
}

const termWant = "post-start failed: exit 3: exit code 3"

// TestPID1TerminationMessageRefusesWhatTheAppPlanted: tend, as PID 1 and
// root, writes the message only to a regular file at exactly the path. A
// link (dangling into a root-only directory, to a file, to /dev/null, or
// in a directory of the path), a FIFO with or without a reader, a device,
// a /proc file and a hard link are refused with a warning, and tend still
// exits 69 in time.
func TestPID1TerminationMessageRefusesWhatTheAppPlanted(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rootOnly := filepath.Join(dir, "root-only")
	must(t, os.Mkdir(rootOnly, 0o700))
	must(t, os.WriteFile(filepath.Join(dir, "target"), nil, 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "real"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "hard1"), nil, 0o644))
	must(t, os.Link(filepath.Join(dir, "hard1"), filepath.Join(dir, "hard2")))
	must(t, os.WriteFile(filepath.Join(dir, "null"), nil, 0o644))
	for name, target := range map[string]string{
		"dangling": filepath.Join(rootOnly, "created"),
		"to-file":  filepath.Join(dir, "target"),
		"to-null":  "/dev/null",
		"link-dir": filepath.Join(dir, "real"),
	} {
		must(t, os.Symlink(target, filepath.Join(dir, name)))
	}
	must(t, unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(t, unix.Mkfifo(filepath.Join(dir, "fifo-read"), 0o644))
	// A reader that never reads: the FIFO opens, and must still be refused.
	rfd, err := unix.Open(filepath.Join(dir, "fifo-read"), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	must(t, err)
	t.Cleanup(func() { _ = unix.Close(rfd) }) // the test's own descriptor: nothing to report

	for _, c := range []struct {
		name, path, warn string
	}{
		{"dangling link into a root-only directory", filepath.Join(dir, "dangling"), "symbolic link"},
		{"link to an empty file", filepath.Join(dir, "to-file"), "symbolic link"},
		{"link to /dev/null", filepath.Join(dir, "to-null"), "symbolic link"},
		{"link among the directories", filepath.Join(dir, "link-dir", "msg"), "symbolic link"},
		{"FIFO with no reader", filepath.Join(dir, "fifo"), "FIFO"},
		{"FIFO with a reader", filepath.Join(dir, "fifo-read"), "FIFO"},
		{"/dev/null bind-mounted", "bind-null:" + filepath.Join(dir, "null"), "character device"},
		{"a /proc file", "proc", "procfs"},
		{"a hard link", filepath.Join(dir, "hard1"), "hard links"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, commChanged, log := runTermination(t, c.path)
			if code != plan.ExitStartHookFailed {
				t.Errorf("exit %d, want %d\n%s", code, plan.ExitStartHookFailed, log)
			}
			if !strings.Contains(log, "WARN: termination message not written") || !strings.Contains(log, c.warn) {
				t.Errorf("no warning naming %q:\n%s", c.warn, log)
			}
			if commChanged {
				t.Errorf("tend wrote into /proc")
			}
		})
	}
	if _, err := os.Lstat(filepath.Join(rootOnly, "created")); err == nil {
		t.Error("tend created the dangling link's target")
	}
	if _, err := os.Lstat(filepath.Join(dir, "real", "msg")); err == nil {
		t.Error("tend created a file through a linked directory")
	}
	for _, f := range []string{"target", "hard1"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); len(b) > 0 {
			t.Errorf("tend wrote %s through a link: %q", f, b)
		}
	}
	b := make([]byte, 100)
	if n, _ := unix.Read(rfd, b); n > 0 {
		t.Errorf("tend wrote %q into the FIFO", b[:n])
	}
}

// TestPID1TerminationMessageWritten: an empty regular file and a missing
// file (created, 0644 under the umask) get the message; the app's own
// message is kept; a missing directory is not created.
func TestPID1TerminationMessageWritten(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	must(t, os.WriteFile(empty, nil, 0o644))
	own := filepath.Join(dir, "own")
	must(t, os.WriteFile(own, []byte("app-wrote-this\n"), 0o644))
	absent := filepath.Join(dir, "absent")
	noDir := filepath.Join(dir, "no-such-dir", "msg")
	for _, c := range []struct{ path, want string }{
		{empty, termWant},
		{absent, termWant},
		{own, "app-wrote-this\n"},
	} {
		code, _, log := runTermination(t, c.path)
		b, err := os.ReadFile(c.path)
		if code != plan.ExitStartHookFailed || err != nil || string(b) != c.want {
			t.Errorf("%s: exit %d, file %q (%v); want %d, %q\n%s", c.path, code, b, err, plan.ExitStartHookFailed, c.want, log)
		}
	}
	if st, err := os.Stat(absent); err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&^0o644 != 0 {
		t.Errorf("the created file: %v %v", st.Mode(), err)
	}
	if code, _, log := runTermination(t, noDir); code != plan.ExitStartHookFailed || strings.Contains(log, "WARN: termination") {
		t.Errorf("missing directory: exit %d\n%s", code, log)
	}
	if _, err := os.Stat(filepath.Dir(noDir)); err == nil {
		t.Error("tend created the missing directory")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
