package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tend-init/tend/internal/notifypeer"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
)

// notifyMode is the PID-1 helper mode of these tests, dispatched from init
// as termMode is.
const notifyMode = "notify"

// notifyCase is what the helper runs: the app, --notify and its watchdog,
// and a readiness probe that passes once ReadyFile exists.
type notifyCase struct {
	Args      []string
	Notify    bool
	Watchdog  time.Duration
	ReadyFile string
	TermPath  string
}

func init() {
	if os.Getenv(helperEnv) == notifyMode {
		os.Exit(notifyHelper())
	}
}

func notifyHelper() int {
	var c notifyCase
	if err := json.Unmarshal([]byte(os.Getenv("TEND_TEST_ARGS")), &c); err != nil || os.Getpid() != 1 {
		fmt.Printf("RESULT error=bad-args-or-not-pid-1:%v\n", err)
		return 1
	}
	cfg := plan.Default()
	cfg.Args, cfg.Notify, cfg.NotifyWatchdog = c.Args, c.Notify, c.Watchdog
	cfg.TerminationMessagePath = c.TermPath
	cfg.Verbosity = logger.LevelInfo
	cfg.GracePeriod = 5 * time.Second
	if c.ReadyFile != "" {
		h, err := probe.ParseSpec("test -e " + c.ReadyFile)
		if err != nil {
			fmt.Printf("RESULT error=%v\n", err)
			return 1
		}
		p := cfg.Probe
		p.Period = 100 * time.Millisecond
		cfg.Checks = []plan.Probe{{Kind: plan.ProbeReady, Name: "ready", Handler: h, Params: p}}
	}
	l, err := New(cfg, os.Stderr)
	if err != nil {
		fmt.Printf("RESULT error=%v\n", err)
		return 1
	}
	fmt.Printf("RESULT code=%d\n", l.Run(context.Background()))
	return 0
}

// startNotifyHelper starts tend as PID 1 of a new namespace, as pid1
// does, with env added (NOTIFY_SOCKET, WATCHDOG_USEC). Lines written to in
// reach the app's stdin; result waits for the RESULT line.
func startNotifyHelper(t *testing.T, c notifyCase, env ...string) (cmd *exec.Cmd, in io.Writer, result func() string) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("the notify PID-1 tests run as root (the manager socket is the test's, outside a user namespace)")
	}
	cmd, stdin, r := pid1With(t, notifyMode, c, env...)
	return cmd, stdin, func() string { return readUntil(t, r, "RESULT", 60*time.Second) }
}

// needSystemdNotify skips without Debian's systemd-notify, the real sender.
func needSystemdNotify(t *testing.T) {
	if _, err := exec.LookPath("systemd-notify"); err != nil {
		if os.Getenv("TEND_REQUIRE_CONTAINERS") == "1" {
			t.Fatal("systemd-notify is missing (apt-get install systemd)")
		}
		t.Skip("SKIP: systemd-notify is missing (apt-get install systemd)")
	}
}

// readNanos reads a file holding date +%s%N.
func readNanos(t *testing.T, path string) time.Time {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return time.Unix(0, n)
}

// TestPID1NotifyOutward: with NOTIFY_SOCKET set, tend (PID 1) says STATUS=
// while its readiness probe has not passed, READY=1 once it has, WATCHDOG=1
// at half of WATCHDOG_USEC, and STOPPING=1 when TERM begins a stop; the
// app sees neither NOTIFY_SOCKET nor WATCHDOG_USEC.
func TestPID1NotifyOutward(t *testing.T) {
	sock, ch := notifypeer.Listen(t)
	dir := t.TempDir()
	ready := filepath.Join(dir, "ready")
	app := "env > " + dir + "/appenv; exec sleep 60"
	cmd, _, result := startNotifyHelper(t, notifyCase{Args: []string{"sh", "-c", app}, ReadyFile: ready},
		"NOTIFY_SOCKET="+sock, "WATCHDOG_USEC=400000")
	_, seen := notifypeer.Await(t, ch, "STATUS=waiting: readiness probe not passed yet", 30*time.Second)
	for _, m := range seen {
		if strings.Contains(m, "READY=1") {
			t.Fatalf("READY=1 before the readiness probe passed: %q", seen)
		}
	}
	t0 := time.Now()
	if err := os.WriteFile(ready, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	g, seen := notifypeer.Await(t, ch, "READY=1", 30*time.Second)
	t.Logf("READY=1 %s after the ready file (probe period 100ms); before it: %q", g.At.Sub(t0).Round(time.Millisecond), seen)
	var pings []time.Time
	for len(pings) < 6 {
		g, _ := notifypeer.Await(t, ch, "WATCHDOG=1", 30*time.Second)
		pings = append(pings, g.At)
	}
	var gaps []string
	for i := 1; i < len(pings); i++ {
		gaps = append(gaps, pings[i].Sub(pings[i-1]).Round(time.Millisecond).String())
	}
	t.Logf("WATCHDOG=1 every %s (WATCHDOG_USEC=400000: half is 200ms)", strings.Join(gaps, " "))
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	notifypeer.Await(t, ch, "STOPPING=1", 30*time.Second)
	if res := result(); field(t, res, "code") != "143" {
		t.Fatalf("want the app's 143 after TERM: %s", res)
	}
	env, err := os.ReadFile(filepath.Join(dir, "appenv"))
	if err != nil || !strings.Contains(string(env), "PATH=") {
		t.Fatalf("the app did not write its environment: %q, %v", env, err)
	}
	if strings.Contains(string(env), "NOTIFY_SOCKET=") || strings.Contains(string(env), "WATCHDOG_USEC=") {
		t.Fatalf("the app inherited the manager's variables:\n%s", env)
	}
}

// TestPID1NotifyInward: --notify gives the app a socket of tend's own; the
// app's READY=1 (from systemd-notify) is a readiness condition, RELOADING=1
// withdraws it until the next READY=1, and a missed --notify-watchdog
// stops the app with exit 75 and a termination message. tend's own
// STATUS= and READY=1 to the test's manager show each step.
func TestPID1NotifyInward(t *testing.T) {
	needSystemdNotify(t)
	sock, ch := notifypeer.Listen(t)
	dir := t.TempDir()
	term := filepath.Join(dir, "termination-log")
	if err := os.WriteFile(term, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	app := "read x; date +%s%N > " + dir + "/sent; systemd-notify --ready --status='serving 3 clients'; " +
		"read x; systemd-notify RELOADING=1 WATCHDOG=1; read x; systemd-notify READY=1 WATCHDOG=1; exec sleep 60"
	_, in, result := startNotifyHelper(t, notifyCase{Args: []string{"sh", "-c", app}, Notify: true, Watchdog: 5 * time.Second, TermPath: term},
		"NOTIFY_SOCKET="+sock)
	notifypeer.Await(t, ch, "STATUS=waiting: the app has not sent READY", 30*time.Second)
	_, _ = io.WriteString(in, "go\n")
	g, _ := notifypeer.Await(t, ch, "READY=1", 30*time.Second)
	t.Logf("the app's READY=1 (systemd-notify) reached the manager as tend's READY=1 in %s", g.At.Sub(readNanos(t, filepath.Join(dir, "sent"))).Round(time.Microsecond))
	_, _ = io.WriteString(in, "go\n")
	notifypeer.Await(t, ch, "STATUS=waiting: the app is reloading (RELOADING=1)", 30*time.Second)
	_, _ = io.WriteString(in, "go\n")
	notifypeer.Await(t, ch, "STATUS=ready", 30*time.Second)
	// The app now sends nothing more: its watchdog runs out.
	g, _ = notifypeer.Await(t, ch, "STOPPING=1", 60*time.Second)
	if res := result(); field(t, res, "code") != strconv.Itoa(plan.ExitLivenessFailed) {
		t.Fatalf("a missed watchdog must exit %d: %s", plan.ExitLivenessFailed, res)
	}
	msg, err := os.ReadFile(term)
	if err != nil || !strings.Contains(string(msg), "WATCHDOG=1") {
		t.Fatalf("termination message %q, %v", msg, err)
	}
	t.Logf("termination message: %s", strings.TrimSpace(string(msg)))
}
