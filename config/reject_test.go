package config

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tend-init/tend/plan"
)

// rejected parses args as run does and returns what run makes of the
// rejection: the exit code and the message, which run logs as one line.
func rejected(args []string, env LookupEnv) (int, string) {
	_, _, err := Parse(append([]string{"tend"}, args...), env, testVersion, &bytes.Buffer{})
	if err == nil {
		return 0, ""
	}
	return plan.ExitCode(err), err.Error()
}

func TestParseRejects(t *testing.T) {
	cases := []struct {
		args []string
		env  LookupEnv
		msg  string
	}{
		{[]string{"-e", "300", "app"}, envOf(), "300"},
		{[]string{"-e", "abc", "app"}, envOf(), "abc"},
		{[]string{"-e", "-1", "app"}, envOf(), "-1"},
		{[]string{"-x", "app"}, envOf(), "-x"},
		{[]string{"--bogus", "app"}, envOf(), "bogus"},
		{[]string{"-p", "SIGNOPE", "app"}, envOf(), "SIGNOPE"},
		{[]string{"-r", "TERM", "app"}, envOf(), "TERM"},
		{[]string{"-r", "TERM:NOPE", "app"}, envOf(), "NOPE"},
		{[]string{"-r", "99:1", "app"}, envOf(), "99"},
		{[]string{"-r", "CHLD:TERM", "app"}, envOf(), "SIGCHLD is how tend learns to reap"},
		{[]string{"-r", "KILL:TERM", "app"}, envOf(), "SIGKILL cannot be caught"},
		{[]string{"-r", "STOP:0", "app"}, envOf(), "SIGSTOP cannot be caught"},
		{[]string{"-r", "SEGV:TERM", "app"}, envOf(), "SIGSEGV is a fault signal"},
		{[]string{"-r", "SIGSTKFLT:TERM", "app"}, envOf(), "SIGSTKFLT is a fault signal"},
		{[]string{"-r", "URG:USR1", "app"}, envOf(), "preemption"},
		{[]string{"-r", "PIPE:0", "app"}, envOf(), "SIGPIPE is about tend's own writes"},
		{[]string{"-r", "PROF:USR1", "app"}, envOf(), "profiler"},
		{[]string{"-r", "33:USR1", "app"}, envOf(), "reserved by the Go runtime"},
		// Long flags named with two dashes, as -h writes them.
		{[]string{"--grace-period"}, envOf(), "flag needs an argument: --grace-period"},
		{[]string{"--no-such-flag", "app"}, envOf(), "not defined: --no-such-flag"},
		{[]string{"app"}, envOf("TEND_REWRITE_SIGNAL", "TERM:QUIT,URG:TERM"), "SIGURG is the Go runtime's goroutine preemption signal"},
		{[]string{"app"}, envOf("TEND_REMAP_EXIT", "256"), "256"},
		{[]string{"app"}, envOf("TINI_VERBOSITY", "loud"), "TINI_VERBOSITY"},
		{[]string{"--post-start", "", "app"}, envOf(), "post-start"},
		{[]string{"--pre-stop", "  ", "app"}, envOf(), "pre-stop"},
		{[]string{"--post-stop", `["a",`, "app"}, envOf(), "post-stop"},
		{[]string{"--post-start", `[1,2]`, "app"}, envOf(), "post-start"},
		{[]string{"--post-start", `[]`, "app"}, envOf(), "post-start"},
		{[]string{"--hook-timeout", "soon", "app"}, envOf(), "soon"},
		{[]string{"--grace-period", "-5s", "app"}, envOf(), "-5s"},
		{[]string{"--grace-period", "10", "app"}, envOf(), `invalid --grace-period value "10": a bare number is not a duration: add a unit, e.g. 10s`},
		{[]string{"--probe-initial-delay", "5", "app"}, envOf(), `invalid --probe-initial-delay value "5": a bare number is not a duration: add a unit, e.g. 5s`},
		{[]string{"--probe-initial-delay", "-1s", "app"}, envOf(), `invalid --probe-initial-delay value "-1s": want a duration >= 0`},
		{[]string{"--probe-initial-delay", "soon", "app"}, envOf(), `invalid --probe-initial-delay value "soon": want a duration >= 0`},
		{[]string{"--hook-timeout", "1.5", "app"}, envOf(), "is not a duration: add a unit, e.g. 1.5s"},
		{[]string{"app"}, envOf("TEND_DRAIN_TIMEOUT", " 3 "), "is not a duration: add a unit, e.g. 3s"},
		{[]string{"app"}, envOf("TEND_PROBE_PERIOD", "5"), "is not a duration: add a unit, e.g. 5s"},
		{[]string{"--grace-period", "soon", "app"}, envOf(), "not a duration (want e.g. 500ms, 10s, 2m)"},
		{[]string{"--drain-timeout", "0", "app"}, envOf(), "drain-timeout"},
		{[]string{"app"}, envOf("TEND_GRACE_PERIOD", "later"), "later"},
		{[]string{"--subreaper=yes", "app"}, envOf(), "yes"},
		{[]string{"--verbose=2", "app"}, envOf(), "2"},
		{[]string{"app"}, envOf("TEND_SUBREAPER", "yes"), "TEND_SUBREAPER"},
		{[]string{"app"}, envOf("TEND_KILL_GROUP", "on"), "TEND_KILL_GROUP"},
		{[]string{"app"}, envOf("TEND_WARN_ON_REAP", "2"), "TEND_WARN_ON_REAP"},
		{[]string{"--check", ""}, envOf(), "--check"},
		{[]string{"--check", " "}, envOf(), "--check"},
		{[]string{"--probe-period", "1ns", "app"}, envOf(), "at least 10ms"},
		{[]string{"--probe-timeout", "9ms", "app"}, envOf(), "at least 10ms"},
		{[]string{"app"}, envOf("TEND_PROBE_PERIOD", "1us"), "at least 10ms"},
		{[]string{"--log-format", "yaml", "app"}, envOf(), "--log-format"},
		{[]string{"--log-format", "", "app"}, envOf(), "--log-format"},
		{[]string{"app"}, envOf("TEND_LOG_FORMAT", "JSON"), "--log-format"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, msg := rejected(c.args, c.env)
			if code != 1 || !strings.Contains(msg, c.msg) || strings.Contains(msg, "\n") {
				t.Fatalf("want exit 1 and one line naming %q, got %d %q", c.msg, code, msg)
			}
		})
	}
}

// TestErrorsQuoteAnExcerpt: a rejected value, however long or strange, is
// quoted as a short excerpt with its control bytes escaped: the error stays
// one short line (a 60,000-deep JSON value once made a 240 KB line).
func TestErrorsQuoteAnExcerpt(t *testing.T) {
	deep := strings.Repeat("[", 60000) + strings.Repeat("]", 60000)
	long := strings.Repeat("\x1b[31m", 20000)
	cases := [][]string{
		{"--post-start", deep, "app"},
		{"--pre-stop", `{"exec":{"command":` + deep + `}}`, "app"},
		{"--live-probe", deep, "app"},
		{"--ready-probe", `{"tcpSocket":{"port":80},"` + long + `":1}`, "app"},
		{"--startup-probe", "tcp://" + long, "app"},
		{"--grace-period", strings.Repeat("9", 100000), "app"},
		{"--hook-timeout", long, "app"},
		{"--probe-period", long, "app"},
		{"-e", long, "app"},
		{"-p", long, "app"},
		{"-r", long, "app"},
		{"-r", "TERM:" + long, "app"},
		{"--stop-signal", long, "app"},
		{"--log-format", long, "app"},
		{"--health-addr", long, "app"},
		{"--probe-failure-threshold", long, "app"},
	}
	for _, args := range cases {
		code, msg := rejected(args, envOf())
		if code != 1 || len(msg) > 500 || strings.ContainsAny(msg, "\n\x1b\x00") {
			t.Errorf("%s %.30q: exit %d, %d bytes: %.300q", args[0], args[1], code, len(msg), msg)
		}
	}
	for _, env := range []LookupEnv{
		envOf("TEND_SUBREAPER", long), envOf("TINI_VERBOSITY", long), envOf("TEND_POST_STOP", deep),
	} {
		if code, msg := rejected([]string{"app"}, env); code != 1 || len(msg) > 500 || strings.ContainsAny(msg, "\n\x1b") {
			t.Errorf("env: exit %d, %d bytes: %.300q", code, len(msg), msg)
		}
	}
}
