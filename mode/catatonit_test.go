package mode

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
)

// TestParseCatatonit: catatonit's command line, each case's exit code and
// output as Debian's catatonit 0.1.7 gives them (measured side by side:
// blackbox_catatonit_test.go runs both binaries), or the app and pause
// mode tend then runs.
func TestParseCatatonit(t *testing.T) {
	b := Build{Version: "v1.2.3", Commit: "abcdef1"}
	usage := catatonitUsage
	for _, c := range []struct {
		args   []string
		env    []string
		code   int
		out    string // stdout; "" checks it is empty
		err    string // stderr starts with it
		run    string // the app, with Exit 0 and a config
		pause  bool
		killPG bool
	}{
		{args: []string{"catatonit"}, code: 1, err: "ERROR (catatonit:7): missing program name\n" + usage},
		{args: []string{"catatonit", "-g"}, code: 1, err: "ERROR (catatonit:7): missing program name\n"},
		{args: []string{"catatonit", "-h"}, err: usage + "\noptions:\n  -g "},
		{args: []string{"catatonit", "-V"}, out: "tini version 1.2.3 - git.abcdef1\n"},
		{args: []string{"catatonit", "--version"}, out: "tini version 1.2.3 - git.abcdef1\n"},
		{args: []string{"catatonit", "--ver"}, out: "tini version 1.2.3 - git.abcdef1\n"},
		{args: []string{"catatonit", "-gV"}, out: "tini version"},
		{args: []string{"catatonit", "-Vx"}, out: "tini version"},
		{args: []string{"catatonit", "true", "-V"}, out: "tini version"},
		{args: []string{"catatonit", "-L"}, out: "tend: a minimal init"},
		{args: []string{"catatonit", "--version=1"}, code: 1, err: "catatonit: option '--version' doesn't allow an argument\n" + usage},
		{args: []string{"catatonit", "-x"}, code: 1, err: "catatonit: invalid option -- 'x'\n" + usage},
		{args: []string{"/bin/catatonit", "-xV"}, code: 1, err: "/bin/catatonit: invalid option -- 'x'\n" + usage},
		{args: []string{"catatonit", "--foo"}, code: 1, err: "catatonit: unrecognized option '--foo'\n" + usage},
		// getopt_long permutes: the program's flags are catatonit's...
		{args: []string{"catatonit", "sh", "-c", "true"}, code: 1, err: "catatonit: invalid option -- 'c'\n" + usage},
		// ...unless after "--", as podman writes it, or with POSIXLY_CORRECT.
		{args: []string{"catatonit", "--", "sh", "-c", "true"}, run: "sh -c true"},
		{args: []string{"catatonit", "sh", "-c", "true"}, env: []string{"POSIXLY_CORRECT", ""}, run: "sh -c true"},
		{args: []string{"catatonit", "a", "-g", "b", "--", "-c", "d"}, run: "a b -c d", killPG: true},
		{args: []string{"catatonit", "-g", "--", "app"}, run: "app", killPG: true},
		{args: []string{"catatonit", "-"}, run: "-"},
		{args: []string{"catatonit", "-P"}, pause: true},
		{args: []string{"catatonit", "-P", "--", "app"}, pause: true}, // -P runs no program
		{args: []string{"catatonit", "-h"}, env: []string{"CATATONIT_LOG", ""}, code: 1, err: "ERROR (catatonit:7): CATATONIT_LOG is reserved for future use\n"},
	} {
		var out, errb strings.Builder
		cfg, code, err := ParseCatatonit(c.args, envOf(c.env...), b, 7, &out, &errb)
		name := strings.Join(c.args, " ")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if code != c.code || !strings.HasPrefix(out.String(), c.out) || (c.out == "") != (out.Len() == 0) || !strings.HasPrefix(errb.String(), c.err) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want %d, %q, %q", name, code, out.String(), errb.String(), c.code, c.out, c.err)
		}
		if wantRun := c.run != "" || c.pause; wantRun != (cfg != nil) {
			t.Errorf("%s: config %v, want one: %v", name, cfg != nil, wantRun)
			continue
		}
		if cfg == nil {
			continue
		}
		if got := strings.Join(cfg.Args, " "); got != c.run || cfg.Pause != c.pause || cfg.KillGroup != c.killPG {
			t.Errorf("%s: app %q pause %v -g %v; want %q %v %v", name, got, cfg.Pause, cfg.KillGroup, c.run, c.pause, c.killPG)
		}
	}
}

// TestCatatonitBehaviour: the preset catatonit's behaviour fills, and the
// TEND_* variables that still win over it.
func TestCatatonitBehaviour(t *testing.T) {
	cfg, _, err := ParseCatatonit([]string{"catatonit", "--", "app"}, envOf(), Build{Version: "v9"}, 42, nil, nil)
	if err != nil || cfg == nil {
		t.Fatal(cfg, err)
	}
	want := plan.Behaviour{ForwardCatchable: true, ChdirRoot: true, AppGroup: plan.GroupOwn,
		ExecFailCode: 1, ExecFailLine: "ERROR (catatonit:42): failed to exec pid1: %[2]s\n"}
	if cfg.Behaviour != want {
		t.Errorf("behaviour %+v, want %+v", cfg.Behaviour, want)
	}
	if !cfg.Subreaper || cfg.Verbosity != logger.LevelError || !cfg.SocketActivation || cfg.Version != "v9" {
		t.Errorf("subreaper %v verbosity %d activation %v version %q; want true, errors only, true, v9", cfg.Subreaper, cfg.Verbosity, cfg.SocketActivation, cfg.Version)
	}
	for _, s := range []unix.Signal{unix.SIGSEGV, unix.SIGABRT, unix.SIGTSTP, unix.SIGTTIN, unix.SIGTTOU} {
		if to, ok := cfg.Rewrite[s]; !ok || to != 0 {
			t.Errorf("%v: rule %v %v, want dropped as catatonit drops it", s, to, ok)
		}
	}
	for _, s := range []unix.Signal{unix.SIGSTKFLT, unix.SIGHUP, unix.SIGWINCH, unix.SIGPWR} {
		if _, ok := cfg.Rewrite[s]; ok {
			t.Errorf("%v: has a rule; catatonit forwards it", s)
		}
	}
	cfg, _, err = ParseCatatonit([]string{"catatonit", "--", "app"},
		envOf("CATATONIT_DEBUG", "", "TEND_GRACE_PERIOD", "3s", "TEND_REWRITE_SIGNAL", "TSTP:USR1"), Build{}, 1, nil, nil)
	if err != nil || cfg == nil {
		t.Fatal(cfg, err)
	}
	if cfg.Verbosity != logger.LevelDebug || !cfg.KillAtGrace || cfg.Rewrite[unix.SIGTSTP] != unix.SIGUSR1 {
		t.Errorf("CATATONIT_DEBUG, TEND_GRACE_PERIOD, TEND_REWRITE_SIGNAL: verbosity %d kill %v TSTP->%v", cfg.Verbosity, cfg.KillAtGrace, cfg.Rewrite[unix.SIGTSTP])
	}
}

// TestCatatonitModeSelected: the names and the variable that select it.
func TestCatatonitModeSelected(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  []string
		mode string
	}{
		{[]string{"/usr/bin/catatonit", "-P"}, nil, "catatonit"},
		{[]string{"tend", "--", "app"}, []string{"TEND_MODE", "catatonit"}, "catatonit"},
		{[]string{"/run/podman-init", "--", "app"}, nil, "tend"},
		{[]string{"/sbin/docker-init", "--", "app"}, nil, "docker-init"},
	} {
		if m, _ := Of(c.args, envOf(c.env...)); m.Name != c.mode {
			t.Errorf("%q %q: mode %s, want %s", c.args, c.env, m.Name, c.mode)
		}
	}
}
