package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
)

func envOf(kv ...string) LookupEnv {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// testVersion is the version Parse is given in tests: package main passes
// its own, set at build time.
const testVersion = "v0.0.0-test"

func mustParse(t *testing.T, env LookupEnv, args ...string) *plan.Config {
	t.Helper()
	cfg, _, err := Parse(append([]string{"tend"}, args...), env, testVersion, &bytes.Buffer{})
	if err != nil || cfg == nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	return cfg
}

func remaps(cfg *plan.Config) []int {
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
		env  LookupEnv
		want want
	}{
		{"defaults", []string{"app"}, envOf(), want{verb: 1, args: []string{"app"}}},
		{"pause mode", []string{"--pause"}, envOf(), want{verb: 1}},
		{"pause mode from TEND_PAUSE", nil, envOf("TEND_PAUSE", "1"), want{verb: 1}},
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

// TestParseLogFormat: text by default; the flag beats TEND_LOG_FORMAT.
func TestParseLogFormat(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  LookupEnv
		want logger.Format
	}{
		{[]string{"app"}, envOf(), logger.Text},
		{[]string{"--log-format", "json", "app"}, envOf(), logger.JSON},
		{[]string{"--log-format=text", "app"}, envOf("TEND_LOG_FORMAT", "json"), logger.Text},
		{[]string{"app"}, envOf("TEND_LOG_FORMAT", "json"), logger.JSON},
		{[]string{"app"}, envOf("TEND_LOG_FORMAT", ""), logger.Text},
	} {
		if got := mustParse(t, c.env, c.args...).LogFormat; got != c.want {
			t.Errorf("%q: got %s, want %s", c.args, got, c.want)
		}
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
	if cfg.HookTimeout != 500*time.Millisecond || cfg.GracePeriod != 2*time.Minute || cfg.DrainTimeout != plan.Default().DrainTimeout {
		t.Fatalf("durations %v %v %v", cfg.HookTimeout, cfg.GracePeriod, cfg.DrainTimeout)
	}
}

// TestSidecarExampleParses runs the sidecar example's arguments through the
// real parser: pause mode, with a named readiness and liveness check.
func TestSidecarExampleParses(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "examples/kubernetes/sidecar.yaml"))
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
