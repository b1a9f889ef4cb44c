package mode

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/signals"
)

func TestDumbInitMode(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  []string
		want bool
		out  []string
	}{
		{[]string{"/usr/bin/dumb-init", "x"}, nil, true, []string{"/usr/bin/dumb-init", "x"}},
		{[]string{"dumb-init"}, nil, true, []string{"dumb-init"}},
		{[]string{"tend", "--dumb-init", "-c", "x"}, nil, true, []string{"tend", "-c", "x"}},
		{[]string{"tend", "x"}, []string{"TEND_MODE", "dumb-init"}, true, []string{"tend", "x"}},
		{[]string{"tend", "x"}, []string{"TEND_MODE", "tini"}, false, []string{"tend", "x"}},
		{[]string{"tend", "x", "--dumb-init"}, nil, false, []string{"tend", "x", "--dumb-init"}},
		{[]string{"/bin/dumb-init-old", "x"}, nil, false, []string{"/bin/dumb-init-old", "x"}},
	} {
		out, ok := DumbInitMode(c.args, envOf(c.env...))
		if ok != c.want || strings.Join(out, " ") != strings.Join(c.out, " ") {
			t.Errorf("DumbInitMode(%q, %q) = %q, %v; want %q, %v", c.args, c.env, out, ok, c.out, c.want)
		}
	}
}

func TestParseDumbInit(t *testing.T) {
	const rewriteHelp = "Usage: -r option takes <signum>:<signum>, where <signum> is between 1 and 31.\n" +
		"This option can be specified multiple times.\nUse --help for full usage.\n"
	const usage = "Usage: dumb-init [option] program [args]\nTry dumb-init --help for full usage.\n"
	for _, c := range []struct {
		args    string
		env     []string
		code    int    // with no config
		stderr  string // exact, or a prefix when it ends in "..."
		prog    string // the program's args, joined by spaces
		setsid  bool
		debug   bool
		rewrite map[int]int
	}{
		{args: "", code: 1, stderr: usage},
		{args: "-v", code: 1, stderr: usage},
		{args: "--", code: 1, stderr: usage},
		{args: "-h x", stderr: "dumb-init v1.2.5\nUsage: dumb-init [option] command [[arg] ...]\n..."},
		{args: "--help", stderr: "dumb-init v1.2.5\n..."},
		{args: "--he", stderr: "dumb-init v1.2.5\n..."}, // an unambiguous prefix
		{args: "-V", stderr: "dumb-init v1.2.5\n"},
		{args: "--version x", stderr: "dumb-init v1.2.5\n"},
		{args: "--yolo /bin/true", code: 1, stderr: "dumb-init: unrecognized option '--yolo'\n"},
		{args: "--ver x", code: 1, stderr: "dumb-init: option '--ver' is ambiguous\n"},
		{args: "--help=1", code: 1, stderr: "dumb-init: option '--help' doesn't allow an argument\n"},
		{args: "--rewrite", code: 1, stderr: "dumb-init: option '--rewrite' requires an argument\n"},
		{args: "-r", code: 1, stderr: "dumb-init: option requires an argument -- 'r'\n"},
		{args: "-x y", code: 1, stderr: "dumb-init: invalid option -- 'x'\n"},
		{args: "-r echo hi", code: 1, stderr: rewriteHelp},
		{args: "-r 15 x", code: 1, stderr: rewriteHelp},
		{args: "-r 15::12 x", code: 1, stderr: rewriteHelp},
		{args: "-r 15:derp x", code: 1, stderr: rewriteHelp},
		{args: "-r 0:1 x", code: 1, stderr: rewriteHelp},
		{args: "-r 1:32 x", code: 1, stderr: rewriteHelp},
		{args: "-r 15:-1 x", code: 1, stderr: rewriteHelp},
		{args: "x", prog: "x", setsid: true, rewrite: map[int]int{20: 19, 21: 19, 22: 19}},
		{args: "-- -c x", prog: "-c x", setsid: true, rewrite: map[int]int{20: 19, 21: 19, 22: 19}},
		{args: "x -c", prog: "x -c", setsid: true, rewrite: map[int]int{20: 19, 21: 19, 22: 19}},
		{args: "-c x", prog: "x"},
		{args: "--single-child -- x", prog: "x"},
		{args: "--single x", prog: "x"},
		{args: "-vc x", prog: "x", debug: true},
		{args: "--verbose -c x", prog: "x", debug: true},
		{args: "--rewrite 15:3 -c x", prog: "x", rewrite: map[int]int{15: 3}},
		{args: "--rewrite=15:3 -c x", prog: "x", rewrite: map[int]int{15: 3}},
		{args: "-r15:3 -r 2:0 -r 15:4 -c x", prog: "x", rewrite: map[int]int{15: 4, 2: 0}},
		{args: "-r +1:31x -r 31:1 -c x", prog: "x", rewrite: map[int]int{1: 31, 31: 1}}, // sscanf ignores the rest
		{args: "-r 20:1 x", prog: "x", setsid: true, rewrite: map[int]int{20: 1, 21: 19, 22: 19}},
		{args: "x", env: []string{"DUMB_INIT_SETSID", "0"}, prog: "x"},
		{args: "x", env: []string{"DUMB_INIT_SETSID", "1"}, prog: "x", setsid: true, rewrite: map[int]int{20: 19, 21: 19, 22: 19}},
		{args: "-c x", env: []string{"DUMB_INIT_SETSID", "1"}, prog: "x"}, // only "0" changes it
		{args: "-c x", env: []string{"DUMB_INIT_DEBUG", "1"}, prog: "x", debug: true, stderr: "[dumb-init] Running in debug mode.\n"},
		{args: "-c x", env: []string{"DUMB_INIT_DEBUG", "yes"}, prog: "x"},
		{args: "x", env: []string{"DUMB_INIT_DEBUG", "1", "DUMB_INIT_SETSID", "0"}, prog: "x", debug: true,
			stderr: "[dumb-init] Running in debug mode.\n[dumb-init] Not running in setsid mode.\n"},
	} {
		var stderr bytes.Buffer
		args := append([]string{"dumb-init"}, strings.Fields(c.args)...)
		cfg, code, err := ParseDumbInit(args, envOf(c.env...), "", &stderr)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		got := stderr.String()
		if p, ok := strings.CutSuffix(c.stderr, "..."); ok {
			if !strings.HasPrefix(got, p) {
				t.Errorf("%q: stderr %q, want it to begin %q", c.args, got, p)
			}
		} else if got != c.stderr {
			t.Errorf("%q: stderr %q, want %q", c.args, got, c.stderr)
		}
		if c.prog == "" {
			if cfg != nil || code != c.code {
				t.Errorf("%q: config %+v, code %d; want none, code %d", c.args, cfg, code, c.code)
			}
			continue
		}
		if cfg == nil {
			t.Errorf("%q: no config (code %d)", c.args, code)
			continue
		}
		setsid := cfg.AppGroup == plan.GroupSession
		if strings.Join(cfg.Args, " ") != c.prog || setsid != c.setsid || cfg.TermGroupOnExit != c.setsid || cfg.Trace != c.debug || cfg.KillGroup != c.setsid {
			t.Errorf("%q: args %q setsid %v (TERM to the group at exit %v) trace %v kill-group %v; want %q %v %v %v", c.args, cfg.Args, setsid, cfg.TermGroupOnExit, cfg.Trace, cfg.KillGroup, c.prog, c.setsid, c.debug, c.setsid)
		}
		if len(cfg.Rewrite) != len(c.rewrite) {
			t.Errorf("%q: rewrite %v, want %v", c.args, cfg.Rewrite, c.rewrite)
		}
		for from, to := range c.rewrite {
			if got, ok := cfg.Rewrite[unix.Signal(from)]; !ok || got != unix.Signal(to) {
				t.Errorf("%q: rewrite of %d is %d (%v), want %d", c.args, from, got, ok, to)
			}
		}
	}
}

// TestDumbInitKeepsTendVariables: tend's features stay available through
// its variables, and the dumb-init mode's own defaults give way only to a
// variable that names the setting.
func TestDumbInitKeepsTendVariables(t *testing.T) {
	parse := func(env ...string) *plan.Config {
		t.Helper()
		cfg, _, err := ParseDumbInit([]string{"dumb-init", "app"}, envOf(env...), "", io.Discard)
		if err != nil || cfg == nil {
			t.Fatalf("ParseDumbInit(%q): %v, %v", env, cfg, err)
		}
		return cfg
	}
	def := parse()
	if def.Verbosity != logger.LevelError || def.KillAtGrace || def.HealthAddr != "" || len(def.PreStop) != 0 {
		t.Errorf("defaults: verbosity %d grace-kill %v health %q pre-stop %v; want errors only, no SIGKILL, nothing else", def.Verbosity, def.KillAtGrace, def.HealthAddr, def.PreStop)
	}
	cfg := parse("TEND_VERBOSITY", "3", "TEND_GRACE_PERIOD", "7s", "TEND_HEALTH_ADDR", "127.0.0.1:0",
		"TEND_PRE_STOP", "sleep 1", "TEND_READY_PROBE", "exec:true", "TEND_REWRITE_SIGNAL", "USR1:USR2")
	if cfg.Verbosity != 3 || !cfg.KillAtGrace || cfg.GracePeriod != 7*time.Second || cfg.HealthAddr != "127.0.0.1:0" ||
		len(cfg.PreStop) != 1 || len(cfg.Checks) != 1 || cfg.Rewrite[unix.SIGUSR1] != unix.SIGUSR2 || cfg.Rewrite[unix.SIGTSTP] != unix.SIGSTOP {
		t.Errorf("with TEND_*: %+v", cfg)
	}
	if _, _, err := ParseDumbInit([]string{"dumb-init", "app"}, envOf("TEND_GRACE_PERIOD", "soon"), "", io.Discard); err == nil {
		t.Error("a bad TEND_GRACE_PERIOD was accepted")
	}
}

// TestAsyncPreemptOff: URG is forwarded only when the runtime cannot have
// sent it, as the runtime reads its settings: the build's, then GODEBUG's,
// the last of a name winning.
func TestAsyncPreemptOff(t *testing.T) {
	for _, c := range []struct {
		godebug, build string
		want           bool
	}{
		{"", "", false},
		{"", "asyncpreemptoff=1", true},
		{"", "gctrace=0,asyncpreemptoff=1", true},
		{"", "asyncpreemptoff=1,asyncpreemptoff=0", false},
		{"asyncpreemptoff=0", "asyncpreemptoff=1", false},
		{"asyncpreemptoff=1", "", true},
		{"gctrace=1", "asyncpreemptoff=1", true},
		{"asyncpreemptoff=1, asyncpreemptoff=0", "", false},
	} {
		env := envOf()
		if c.godebug != "" {
			env = envOf("GODEBUG", c.godebug)
		}
		if got := signals.AsyncPreemptOff(env, c.build); got != c.want {
			t.Errorf("GODEBUG=%q, build %q: %v, want %v", c.godebug, c.build, got, c.want)
		}
		cfg, _, err := ParseDumbInit([]string{"dumb-init", "x"}, env, c.build, io.Discard)
		if err != nil || cfg.ForwardURG != c.want {
			t.Errorf("GODEBUG=%q, build %q: config URG %v (%v), want %v", c.godebug, c.build, cfg.ForwardURG, err, c.want)
		}
	}
}

// TestDumbInitBehaviour: the preset dumb-init's command line fills, field
// by field (dumb-init.c, as mode/dumbinit.go cites it), and tend's own
// defaults beside it: a mode is these values, nothing the loop tests for.
func TestDumbInitBehaviour(t *testing.T) {
	want := plan.Behaviour{ForwardCatchable: true, SuspendOnJobStop: true, AppGroup: plan.GroupSession,
		TermGroupOnExit: true, ChdirRoot: true, TraceTag: "[dumb-init] ", ExecFailCode: 2, ExecFailLine: "[dumb-init] %[1]s: %[2]s\n"}
	for _, c := range []struct {
		args []string
		env  []string
		edit func(*plan.Behaviour)
	}{
		{args: []string{"dumb-init", "app"}},
		{args: []string{"dumb-init", "-c", "-v", "app"}, edit: func(b *plan.Behaviour) {
			b.AppGroup, b.TermGroupOnExit, b.Trace = plan.GroupShared, false, true
		}},
		{args: []string{"dumb-init", "app"}, env: []string{"TEND_GRACE_PERIOD", "3s", "GODEBUG", "asyncpreemptoff=1"}, edit: func(b *plan.Behaviour) {
			b.KillAtGrace, b.ForwardURG = true, true
		}},
	} {
		cfg, _, err := ParseDumbInit(c.args, envOf(c.env...), "", io.Discard)
		if err != nil || cfg == nil {
			t.Fatalf("%q: %v, %v", c.args, cfg, err)
		}
		w := want
		if c.edit != nil {
			c.edit(&w)
		}
		if cfg.Behaviour != w {
			t.Errorf("%q %q:\n got %+v\nwant %+v", c.args, c.env, cfg.Behaviour, w)
		}
	}
	tini := plan.Behaviour{ContAfterStop: true, KillAtGrace: true, WarnNotReaper: true}
	if got := plan.Default().Behaviour; got != tini {
		t.Errorf("tend's own behaviour %+v, want tini's %+v", got, tini)
	}
}
