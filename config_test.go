package main

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/lifecycle"
	"golang.org/x/sys/unix"
)

func envOf(kv ...string) lookupEnv {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func mustParse(t *testing.T, env lookupEnv, args ...string) *lifecycle.Config {
	t.Helper()
	cfg, _, err := parseConfig(append([]string{"tend"}, args...), env, &bytes.Buffer{})
	if err != nil || cfg == nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return cfg
}

func remaps(cfg *lifecycle.Config) []int {
	var out []int
	for i, on := range cfg.RemapExit {
		if on {
			out = append(out, i)
		}
	}
	return out
}

func TestParseFlags(t *testing.T) {
	type want struct {
		sub, group, warn bool
		verb             int
		remap            []int
		pdeath           unix.Signal
		args             []string
	}
	cases := []struct {
		name string
		args []string
		env  lookupEnv
		want want
	}{
		{"defaults", []string{"app"}, envOf(), want{verb: 1, args: []string{"app"}}},
		{"pause mode", nil, envOf(), want{verb: 1}},
		{"dashdash", []string{"--", "app", "-s"}, envOf(), want{verb: 1, args: []string{"app", "-s"}}},
		{"stops at first non-option", []string{"echo", "-v"}, envOf(), want{verb: 1, args: []string{"echo", "-v"}}},
		{"combined -sg", []string{"-sg", "app"}, envOf(), want{sub: true, group: true, verb: 1, args: []string{"app"}}},
		{"combined -sgvv", []string{"-sgvv", "app"}, envOf(), want{sub: true, group: true, verb: 3, args: []string{"app"}}},
		{"combined -se 3", []string{"-se", "3", "app"}, envOf(), want{sub: true, verb: 1, remap: []int{3}, args: []string{"app"}}},
		{"attached -se3", []string{"-se3", "app"}, envOf(), want{sub: true, verb: 1, remap: []int{3}, args: []string{"app"}}},
		{"repeated -e", []string{"-e", "143", "-e", "0", "--remap-exit=7", "app"}, envOf(), want{verb: 1, remap: []int{0, 7, 143}, args: []string{"app"}}},
		{"long names", []string{"--subreaper", "--kill-group", "--warn-on-reap", "--verbose", "app"}, envOf(), want{sub: true, group: true, warn: true, verb: 2, args: []string{"app"}}},
		{"-vvv", []string{"-vvv", "app"}, envOf(), want{verb: 4, args: []string{"app"}}},
		{"-p SIGKILL", []string{"-p", "SIGKILL", "app"}, envOf(), want{verb: 1, pdeath: unix.SIGKILL, args: []string{"app"}}},
		{"TINI_SUBREAPER empty", []string{"app"}, envOf("TINI_SUBREAPER", ""), want{sub: true, verb: 1, args: []string{"app"}}},
		{"TINI_KILL_PROCESS_GROUP empty", []string{"app"}, envOf("TINI_KILL_PROCESS_GROUP", ""), want{group: true, verb: 1, args: []string{"app"}}},
		{"TEND_SUBREAPER=1", []string{"app"}, envOf("TEND_SUBREAPER", "1"), want{sub: true, verb: 1, args: []string{"app"}}},
		{"TEND_SUBREAPER=0 beats TINI", []string{"app"}, envOf("TEND_SUBREAPER", "0", "TINI_SUBREAPER", ""), want{verb: 1, args: []string{"app"}}},
		{"TINI_VERBOSITY", []string{"app"}, envOf("TINI_VERBOSITY", "3"), want{verb: 3, args: []string{"app"}}},
		{"TINI_VERBOSITY=0 silences", []string{"app"}, envOf("TINI_VERBOSITY", "0"), want{verb: 0, args: []string{"app"}}},
		{"-v beats env", []string{"-v", "app"}, envOf("TINI_VERBOSITY", "0"), want{verb: 2, args: []string{"app"}}},
		{"TEND_REMAP_EXIT list", []string{"app"}, envOf("TEND_REMAP_EXIT", "143, 130"), want{verb: 1, remap: []int{130, 143}, args: []string{"app"}}},
		{"TEND_PDEATHSIG", []string{"app"}, envOf("TEND_PDEATHSIG", "SIGUSR1"), want{verb: 1, pdeath: unix.SIGUSR1, args: []string{"app"}}},
		{"TEND_WARN_ON_REAP", []string{"app"}, envOf("TEND_WARN_ON_REAP", "true"), want{warn: true, verb: 1, args: []string{"app"}}},
		{"app named help", []string{"help"}, envOf(), want{verb: 1, args: []string{"help"}}},
		{"--subreaper=true", []string{"--subreaper=true", "--", "echo", "x"}, envOf(), want{sub: true, verb: 1, args: []string{"echo", "x"}}},
		{"--warn-on-reap=false", []string{"-s", "--warn-on-reap=false", "sh"}, envOf(), want{sub: true, verb: 1, args: []string{"sh"}}},
		{"--kill-group=1", []string{"--kill-group=1", "sh"}, envOf(), want{group: true, verb: 1, args: []string{"sh"}}},
		{"--verbose=true", []string{"--verbose=true", "sh"}, envOf(), want{verb: 2, args: []string{"sh"}}},
		{"TEND_KILL_GROUP=0", []string{"app"}, envOf("TEND_KILL_GROUP", "0"), want{verb: 1, args: []string{"app"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := mustParse(t, c.env, c.args...)
			got := want{cfg.Subreaper, cfg.KillGroup, cfg.WarnOnReap, cfg.Verbosity, remaps(cfg), cfg.Pdeathsig, cfg.Args}
			if len(got.args) == 0 {
				got.args = nil
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestParseRejects(t *testing.T) {
	cases := []struct {
		args []string
		env  lookupEnv
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
		{[]string{"-r", "TTOU:0", "app"}, envOf(), "job-control"},
		{[]string{"app"}, envOf("TEND_REWRITE_SIGNAL", "TERM:QUIT,TTIN:TERM"), "SIGTTIN is a job-control signal"},
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
			var stderr bytes.Buffer
			code := run(context.Background(), append([]string{"tend"}, c.args...), c.env, &bytes.Buffer{}, &stderr)
			msg := strings.TrimSuffix(stderr.String(), "\n")
			if code != 1 || !strings.Contains(msg, c.msg) || strings.Contains(msg, "\n") {
				t.Fatalf("want exit 1 and one line naming %q, got %d %q", c.msg, code, stderr.String())
			}
		})
	}
}

// TestParseLogFormat: text by default; the flag beats TEND_LOG_FORMAT.
func TestParseLogFormat(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  lookupEnv
		want lifecycle.LogFormat
	}{
		{[]string{"app"}, envOf(), lifecycle.LogText},
		{[]string{"--log-format", "json", "app"}, envOf(), lifecycle.LogJSON},
		{[]string{"--log-format=text", "app"}, envOf("TEND_LOG_FORMAT", "json"), lifecycle.LogText},
		{[]string{"app"}, envOf("TEND_LOG_FORMAT", "json"), lifecycle.LogJSON},
		{[]string{"app"}, envOf("TEND_LOG_FORMAT", ""), lifecycle.LogText},
	} {
		if got := mustParse(t, c.env, c.args...).LogFormat; got != c.want {
			t.Errorf("%q: got %s, want %s", c.args, got, c.want)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}} {
		var out, stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"tend"}, args...), envOf(), &out, &stderr); code != 0 || stderr.Len() != 0 {
			t.Fatalf("%v: want exit 0 and nothing on stderr, got %d %q", args, code, stderr.String())
		}
		for _, flag := range []string{"--subreaper", "--remap-exit", "--kill-group", "--pdeathsig", "--warn-on-reap", "--verbose", "--rewrite-signal", "--pre-stop"} {
			if !strings.Contains(out.String(), flag) {
				t.Errorf("help lacks %s:\n%s", flag, out.String())
			}
		}
	}
	var out bytes.Buffer
	cfg, check, err := parseConfig([]string{"tend", "--version"}, envOf(), &out)
	if err != nil || cfg != nil || check != nil || out.String() != "tend "+version+"\n" {
		t.Fatalf("version: %v %q", err, out.String())
	}
}

func TestParseRewriteAndHooks(t *testing.T) {
	cfg := mustParse(t, envOf("TEND_PRE_STOP", "echo one\n---\n[\"/bin/two\", \"a,b\"]\n", "TEND_POST_STOP", "for i in 1 2; do\n  echo $i\ndone\n"),
		"-r", "TERM:QUIT", "-r", "10:0", "--rewrite-signal", "SIGUSR2:SIGHUP",
		"--post-start", "echo hi, there", "--post-start", `["/bin/true"]`,
		"--hook-timeout", "500ms", "--grace-period", "2m", "app")
	want := map[unix.Signal]unix.Signal{unix.SIGTERM: unix.SIGQUIT, unix.SIGUSR1: 0, unix.SIGUSR2: unix.SIGHUP}
	if !reflect.DeepEqual(map[unix.Signal]unix.Signal(cfg.Rewrite), want) {
		t.Fatalf("rewrite %v", cfg.Rewrite)
	}
	if want := []hooks.Action{hooks.Command{Shell: "echo hi, there"}, hooks.Command{Argv: []string{"/bin/true"}}}; !reflect.DeepEqual(cfg.PostStart, want) {
		t.Fatalf("post-start %+v", cfg.PostStart)
	}
	// A multi-line value is one script: a YAML `value: |` block.
	if want := []hooks.Action{hooks.Command{Shell: "for i in 1 2; do\n  echo $i\ndone"}}; !reflect.DeepEqual(cfg.PostStop, want) {
		t.Fatalf("post-stop %+v", cfg.PostStop)
	}
	if want := []hooks.Action{hooks.Command{Shell: "echo one"}, hooks.Command{Argv: []string{"/bin/two", "a,b"}}}; !reflect.DeepEqual(cfg.PreStop, want) {
		t.Fatalf("pre-stop from env %+v", cfg.PreStop)
	}
	// The stop signal is caught, so it may be rewritten even when tend
	// would not forward it otherwise.
	if cfg := mustParse(t, envOf(), "--stop-signal", "PWR", "-r", "PWR:TERM", "app"); cfg.Rewrite[unix.SIGPWR] != unix.SIGTERM {
		t.Fatalf("--stop-signal PWR -r PWR:TERM: rewrite %v", cfg.Rewrite)
	}
	if cfg.HookTimeout != 500*time.Millisecond || cfg.GracePeriod != 2*time.Minute || cfg.DrainTimeout != lifecycle.Default().DrainTimeout {
		t.Fatalf("durations %v %v %v", cfg.HookTimeout, cfg.GracePeriod, cfg.DrainTimeout)
	}
}

func TestExpandShort(t *testing.T) {
	specs := flagSpecs()
	cases := []struct{ in, want []string }{
		{[]string{"-sgvv", "x", "-sg"}, []string{"--subreaper", "--kill-group", "--verbose", "--verbose", "x", "-sg"}},
		{[]string{"-se", "3", "--", "-sg"}, []string{"--subreaper", "--remap-exit", "3", "--", "-sg"}},
		{[]string{"-e7", "x"}, []string{"--remap-exit", "7", "x"}},
		{[]string{"-e=7", "x"}, []string{"--remap-exit", "7", "x"}},
		{[]string{"--post-start", "-sg", "x"}, []string{"--post-start", "-sg", "x"}},
		{[]string{"-grace-period", "1s", "x"}, []string{"--grace-period", "1s", "x"}},
		{[]string{"-sz", "x"}, []string{"--subreaper", "-z", "x"}},
		{[]string{"--nope", "x"}, []string{"--nope", "x"}},
	}
	for _, c := range cases {
		if got := expandShort(c.in, specs); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %q want %q", c.in, got, c.want)
		}
	}
}

// TestSidecarExampleParses runs the sidecar example's arguments through the
// real parser: pause mode, with a named readiness and liveness check.
func TestSidecarExampleParses(t *testing.T) {
	b, err := os.ReadFile("examples/kubernetes/sidecar.yaml")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"tend"}
	for _, l := range strings.Split(string(b), "\n") {
		if a, ok := strings.CutPrefix(strings.TrimSpace(l), "- --"); ok {
			args = append(args, "--"+a)
		}
	}
	cfg := mustParse(t, envOf(), args[1:]...)
	if len(cfg.Args) != 0 || len(cfg.Checks) != 2 || cfg.Checks[0].Name != "redis" || cfg.Checks[1].Params.FailureThreshold != 5 {
		t.Fatalf("want pause mode with two checks named redis, got %+v", cfg)
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
		var stderr bytes.Buffer
		code := run(context.Background(), append([]string{"tend"}, args...), envOf(), &bytes.Buffer{}, &stderr)
		msg := strings.TrimSuffix(stderr.String(), "\n")
		if code != 1 || len(msg) > 500 || strings.ContainsAny(msg, "\n\x1b\x00") {
			t.Errorf("%s %.30q: exit %d, %d bytes: %.300q", args[0], args[1], code, len(msg), msg)
		}
	}
	for _, env := range []lookupEnv{
		envOf("TEND_SUBREAPER", long), envOf("TINI_VERBOSITY", long), envOf("TEND_POST_STOP", deep),
	} {
		var stderr bytes.Buffer
		code := run(context.Background(), []string{"tend", "app"}, env, &bytes.Buffer{}, &stderr)
		if msg := stderr.String(); code != 1 || len(msg) > 500 || strings.ContainsAny(strings.TrimSuffix(msg, "\n"), "\n\x1b") {
			t.Errorf("env: exit %d, %d bytes: %.300q", code, len(msg), msg)
		}
	}
}
