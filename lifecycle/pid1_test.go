package lifecycle

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tend-init/tend/plan"
	"golang.org/x/sys/unix"
)

// helperEnv selects a PID-1 helper mode in a re-exec'd test binary.
const helperEnv = "TEND_TEST_PID1"

// pid1Helper runs inside a new PID namespace, as its PID 1, with the real
// parser, supervisor and loop. It prints one RESULT line for the test.
func pid1Helper(mode string) int {
	if os.Getpid() != 1 {
		fmt.Println("RESULT error=not-pid-1")
		return 1
	}
	var args []string
	if err := json.Unmarshal([]byte(os.Getenv("TEND_TEST_ARGS")), &args); err != nil {
		fmt.Println("RESULT error=bad-args")
		return 1
	}
	switch mode {
	case "run":
		code, reaped, err := superviseOnce(nil, args)
		fmt.Printf("RESULT code=%d reaped=%d leftover=%v err=%v\n", code, reaped, hasChildren(), err)
	case "codes":
		// args: fakeapp path, runs, orphans per run.
		runs, _ := strconv.Atoi(args[1])
		wrong := 0
		var reaped uint64
		rng := rand.New(rand.NewSource(1))
		for i := 0; i < runs; i++ {
			want := rng.Intn(256)
			codeArg := strconv.Itoa(want)
			if i%4 == 3 { // every fourth app dies by a signal
				sig := []int{1, 2, 9, 10, 15}[rng.Intn(5)]
				want, codeArg = 128+sig, "-"+strconv.Itoa(sig)
			}
			code, n, err := superviseOnce(nil, []string{args[0], "spawn", args[2], codeArg})
			reaped += n
			if err != nil || code != want {
				wrong++
				fmt.Printf("run %d: want %d got %d err=%v\n", i, want, code, err)
			}
		}
		fmt.Printf("RESULT wrong=%d runs=%d reaped=%d leftover=%v\n", wrong, runs, reaped, hasChildren())
	case "fire":
		// args: runs. Each app keeps orphaning processes in the
		// background while it exits with a random code or signal.
		runs, _ := strconv.Atoi(args[0])
		wrong := 0
		var reaped uint64
		rng := rand.New(rand.NewSource(2))
		start := time.Now()
		for i := 0; i < runs; i++ {
			want := rng.Intn(256)
			end := "exit " + strconv.Itoa(want)
			if rng.Intn(4) == 0 {
				sig := []int{1, 2, 3, 6, 9, 10, 12, 14, 15}[rng.Intn(9)]
				want, end = 128+sig, "kill -"+strconv.Itoa(sig)+" $$"
			}
			script := "(while :; do (true &); done) & i=0; while [ $i -lt 3 ]; do (true &); i=$((i+1)); done; " + end
			code, n, err := superviseOnce(func(c *plan.Config) { c.DrainTimeout = 2 * time.Second }, []string{"sh", "-c", script})
			reaped += n
			if err != nil || code != want {
				wrong++
				fmt.Printf("run %d: want %d got %d err=%v\n", i, want, code, err)
			}
		}
		fmt.Printf("RESULT wrong=%d runs=%d reaped=%d leftover=%v took=%s\n", wrong, runs, reaped, hasChildren(), time.Since(start).Round(time.Millisecond))
	case "wait":
		code, _, err := superviseOnce(waitHelperConfig(args), []string{"sh", "-c", "echo APP"})
		fmt.Printf("RESULT code=%d leftover=%v err=%v\n", code, hasChildren(), err)
	case "pidreuse":
		fmt.Println("RESULT " + pidReuse())
	default:
		fmt.Println("RESULT error=unknown-mode")
		return 1
	}
	return 0
}

func superviseOnce(edit func(*plan.Config), argv []string) (code int, reaped uint64, err error) {
	cfg := plan.Default()
	cfg.Args = argv
	if edit != nil {
		edit(&cfg)
	}
	l, err := New(cfg, os.Stderr)
	if err != nil {
		return -1, 0, err
	}
	code = l.Run(context.Background())
	return code, l.Orphans(), nil
}

// hasChildren reports whether anything is left to reap: after tend's loop
// ends there must be no zombie and no process at all.
func hasChildren() bool {
	var ws unix.WaitStatus
	_, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
	return !errors.Is(err, unix.ECHILD)
}

// pid1 starts the test binary as PID 1 of a new PID namespace (and a user
// namespace when not root), in helper mode.
func pid1(t *testing.T, mode string, args ...string) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
	t.Helper()
	return pid1With(t, mode, args)
}

// pid1With is pid1 with any payload for the helper (as JSON in
// TEND_TEST_ARGS) and env added to the environment.
func pid1With(t *testing.T, mode string, payload any, env ...string) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
	t.Helper()
	b, _ := json.Marshal(payload)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), helperEnv+"="+mode, "TEND_TEST_ARGS="+string(b)), env...)
	cmd.Stderr = os.Stderr
	// A mount namespace too, so a helper can mount its own /proc.
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS}
	if os.Getuid() != 0 {
		cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) {
			t.Skipf("cannot create a PID namespace here: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }) // no-op once the test waited
	return cmd, stdin, bufio.NewReader(out)
}

// readUntil reads lines until one starts with prefix, or the deadline.
func readUntil(t *testing.T, r *bufio.Reader, prefix string, d time.Duration) string {
	t.Helper()
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	go func() {
		for {
			s, err := r.ReadString('\n')
			if err != nil || strings.HasPrefix(s, prefix) {
				ch <- line{strings.TrimSpace(s), err}
				return
			}
		}
	}()
	select {
	case l := <-ch:
		if l.err != nil {
			t.Fatalf("waiting for %q: %v", prefix, l.err)
		}
		return l.s
	case <-time.After(d):
		t.Fatalf("no %q line within %s", prefix, d)
	}
	return ""
}

func field(t *testing.T, line, key string) string {
	t.Helper()
	for _, f := range strings.Fields(line) {
		if k, v, ok := strings.Cut(f, "="); ok && k == key {
			return v
		}
	}
	t.Fatalf("no %s= in %q", key, line)
	return ""
}

func TestPID1OrphanStorm(t *testing.T) {
	const n = 1000
	cmd, _, out := pid1(t, "run", fakeappBin, "spawn", strconv.Itoa(n), "7")
	res := readUntil(t, out, "RESULT", 60*time.Second)
	if field(t, res, "code") != "7" || field(t, res, "reaped") != strconv.Itoa(n) || field(t, res, "leftover") != "false" {
		t.Fatalf("want code 7, %d orphans reaped, nothing left: %s", n, res)
	}
	_ = cmd.Wait() // its status is the helper's, already checked via RESULT
}

func TestPID1ExitCodesUnderStorm(t *testing.T) {
	runs := "500"
	if testing.Short() {
		runs = "100"
	}
	cmd, _, out := pid1(t, "codes", fakeappBin, runs, "4")
	res := readUntil(t, out, "RESULT", 5*time.Minute)
	if field(t, res, "wrong") != "0" || field(t, res, "leftover") != "false" {
		t.Fatalf("exit codes lost under an orphan storm: %s", res)
	}
	if n, _ := strconv.Atoi(field(t, res, "runs")); strconv.Itoa(n) != runs {
		t.Fatalf("ran %d of %s", n, runs)
	}
	if r, _ := strconv.Atoi(field(t, res, "reaped")); r < 4*atoiOr(runs) {
		t.Fatalf("want at least %d orphans reaped: %s", 4*atoiOr(runs), res)
	}
	_ = cmd.Wait()
}

func atoiOr(s string) int { n, _ := strconv.Atoi(s); return n }

func TestPID1SpuriousSIGCHLD(t *testing.T) {
	cmd, in, out := pid1(t, "run", "sh", "-c", "echo ready; read x; exit 5")
	readUntil(t, out, "ready", 10*time.Second)
	for i := 0; i < 200; i++ {
		if err := cmd.Process.Signal(syscall.SIGCHLD); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := io.WriteString(in, "go\n"); err != nil {
		t.Fatal(err)
	}
	res := readUntil(t, out, "RESULT", 10*time.Second)
	if field(t, res, "code") != "5" || field(t, res, "reaped") != "0" || field(t, res, "leftover") != "false" {
		t.Fatalf("spurious SIGCHLDs must change nothing: %s", res)
	}
	_ = cmd.Wait()
}

func TestPID1TermDuringChildStorm(t *testing.T) {
	// The app keeps orphaning short-lived processes, so SIGCHLD keeps
	// arriving at PID 1; the TERM sent in the middle must still reach it.
	script := `trap 'exit 42' TERM; i=0; while [ $i -lt 50 ]; do (true &); i=$((i+1)); done; echo ready; while :; do (true &); done`
	cmd, _, out := pid1(t, "run", "sh", "-c", script)
	readUntil(t, out, "ready", 10*time.Second)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	res := readUntil(t, out, "RESULT", 20*time.Second)
	if field(t, res, "code") != "42" || field(t, res, "leftover") != "false" {
		t.Fatalf("TERM lost in a SIGCHLD storm: %s", res)
	}
	if r, _ := strconv.Atoi(field(t, res, "reaped")); r < 50 {
		t.Fatalf("want the storm's orphans reaped: %s", res)
	}
	_ = cmd.Wait()
}

func TestPID1RecycledPidIsNeverSignalled(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("writing ns_last_pid needs CAP_SYS_ADMIN over the PID namespace")
	}
	cmd, _, out := pid1(t, "pidreuse")
	res := readUntil(t, out, "RESULT", 30*time.Second)
	if field(t, res, "reused") != "true" || field(t, res, "alive") != "true" ||
		field(t, res, "signal") != "<nil>" || field(t, res, "group") != "<nil>" {
		t.Fatalf("a signal meant for a reaped child hit the process that reused its pid: %s", res)
	}
	_ = cmd.Wait()
}
