package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/signals"
	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"
)

// config is everything tend was asked to do, parsed once from the command
// line and the environment. Nothing reads flags or TEND_* variables later.
type config struct {
	Args       []string // the app and its arguments; empty means pause mode
	Subreaper  bool
	KillGroup  bool
	WarnOnReap bool
	Verbosity  int
	Pdeathsig  unix.Signal
	RemapExit  [256]bool
	Rewrite    signals.Rewrite

	PostStart    []hooks.Command
	PreStop      []hooks.Command
	PostStop     []hooks.Command
	HookTimeout  time.Duration
	GracePeriod  time.Duration
	DrainTimeout time.Duration

	HealthAddr   string
	ReadyProbe   *probe.Spec
	LiveProbe    *probe.Spec
	Probe        probe.Params
	Check        string // --check URL: be a HEALTHCHECK client, start nothing
	CheckTimeout time.Duration
}

// lookupEnv is os.LookupEnv, passed in so that tests control the
// environment without mutating the process's.
type lookupEnv func(string) (string, bool)

// errHandled reports that -h or --version already printed what was asked.
var errHandled = errors.New("handled")

// usageError is a bad flag, value or variable: exit 1, one line on stderr.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: oneLine(fmt.Sprintf(format, args...))}
}

// oneLine escapes line breaks, so that a message which quotes the user's
// input stays one line in the container log.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}

// parseConfig parses args (args[0] is the program name) and the environment.
// It prints help or the version to stdout itself and then returns errHandled.
//
// The flags are urfave/cli's, applied to a plain flag.FlagSet: cli's own
// App.Run looks every flag up through a regexp, which cost about half a
// millisecond of tend's start-up. The cli App is built only to print help.
func parseConfig(args []string, env lookupEnv, stdout io.Writer) (*config, error) {
	specs := flagSpecs()
	set := flag.NewFlagSet("tend", flag.ContinueOnError)
	set.SetOutput(io.Discard)
	set.Bool("help", false, "")
	set.Bool("h", false, "")
	for _, f := range cliFlags(specs) {
		if err := f.Apply(set); err != nil {
			return nil, usagef("%v", err)
		}
	}
	if err := set.Parse(expandShort(args[1:], specs)); err != nil {
		return nil, usagef("%v", err)
	}
	given := map[string]bool{}
	set.Visit(func(f *flag.Flag) { given[f.Name] = true })
	switch {
	case given["help"] || given["h"]:
		return nil, printHelp(specs, stdout)
	case given["version"]:
		_, _ = fmt.Fprintf(stdout, "tend %s\n", version) // stdout gone: nothing to report to
		return nil, errHandled
	}
	return buildConfig(values{set: set, given: given, env: env, specs: specs})
}

// printHelp renders usage through urfave/cli.
func printHelp(specs []flagSpec, stdout io.Writer) error {
	app := &cli.App{
		Name:            "tend",
		HelpName:        "tend",
		Usage:           "a minimal init for containers: reaps zombies, forwards signals, runs lifecycle hooks",
		UsageText:       "tend [flags] [--] PROGRAM [ARGS...]\ntend [flags]    (pause mode: reap and wait for TERM)",
		Flags:           cliFlags(specs),
		HideVersion:     true, // cli's -v would clash with tini's -v
		HideHelpCommand: true,
		Writer:          stdout,
		ErrWriter:       io.Discard,
		ExitErrHandler:  func(*cli.Context, error) {}, // run decides the exit code
	}
	if err := app.Run([]string{"tend", "--help"}); err != nil {
		return err
	}
	return errHandled
}

// buildConfig turns parsed flags, then the environment for any flag that was
// not given, into a config. Flags win over variables.
func buildConfig(v values) (*config, error) {
	cfg := &config{Args: v.set.Args(), Rewrite: signals.Rewrite{}}
	cfg.Subreaper = v.boolean("subreaper")
	cfg.KillGroup = v.boolean("kill-group")
	cfg.WarnOnReap = v.boolean("warn-on-reap")
	var err error
	if cfg.Verbosity, err = v.verbosity(); err != nil {
		return nil, err
	}
	for _, s := range v.list("remap-exit") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 || n > 255 {
			return nil, usagef("invalid --remap-exit/-e value %q: want an exit code 0..255", s)
		}
		cfg.RemapExit[n] = true
	}
	if s, ok := v.str("pdeathsig"); ok {
		if cfg.Pdeathsig, err = signals.Parse(s); err != nil {
			return nil, usagef("invalid --pdeathsig/-p value %q: %v", s, err)
		}
	}
	for _, r := range v.list("rewrite-signal") {
		from, to, err := signals.ParseRewrite(strings.TrimSpace(r))
		if err != nil {
			return nil, usagef("invalid --rewrite-signal/-r value: %v", err)
		}
		cfg.Rewrite[from] = to
	}
	for _, h := range []struct {
		flag string
		dst  *[]hooks.Command
	}{{"post-start", &cfg.PostStart}, {"pre-stop", &cfg.PreStop}, {"post-stop", &cfg.PostStop}} {
		for _, val := range v.list(h.flag) {
			c, err := hooks.Parse(val)
			if err != nil {
				return nil, usagef("invalid --%s value %q: %v", h.flag, val, err)
			}
			*h.dst = append(*h.dst, c)
		}
	}
	for _, d := range []struct {
		flag string
		dst  *time.Duration
		def  time.Duration
	}{
		{"hook-timeout", &cfg.HookTimeout, defaultHookTimeout},
		{"grace-period", &cfg.GracePeriod, defaultGracePeriod},
		{"drain-timeout", &cfg.DrainTimeout, defaultDrainTimeout},
	} {
		if *d.dst, err = v.duration(d.flag, d.def); err != nil {
			return nil, err
		}
	}
	if err := probeConfig(cfg, v); err != nil {
		return nil, err
	}
	return cfg, nil
}

// probeConfig reads the health endpoint, probe and --check flags.
func probeConfig(cfg *config, v values) error {
	var err error
	if addr, ok := v.str("health-addr"); ok {
		if err := probe.ParseAddr(addr); err != nil {
			return usagef("invalid --health-addr: %v", err)
		}
		cfg.HealthAddr = addr
	}
	for _, p := range []struct {
		flag string
		dst  **probe.Spec
	}{{"ready-probe", &cfg.ReadyProbe}, {"live-probe", &cfg.LiveProbe}} {
		if s, ok := v.str(p.flag); ok {
			spec, err := probe.ParseSpec(s)
			if err != nil {
				return usagef("invalid --%s value %q: %v", p.flag, s, err)
			}
			*p.dst = &spec
		}
	}
	cfg.Probe = probe.DefaultParams()
	if cfg.Probe.Period, err = v.duration("probe-period", cfg.Probe.Period); err != nil {
		return err
	}
	if cfg.Probe.Timeout, err = v.duration("probe-timeout", cfg.Probe.Timeout); err != nil {
		return err
	}
	if s, ok := v.str("probe-initial-delay"); ok { // zero is allowed here, as in Kubernetes
		d, perr := time.ParseDuration(strings.TrimSpace(s))
		if perr != nil || d < 0 {
			return usagef("invalid --probe-initial-delay value %q: want a duration >= 0", s)
		}
		cfg.Probe.InitialDelay = d
	}
	if cfg.Probe.FailureThreshold, err = v.count("probe-failure-threshold", cfg.Probe.FailureThreshold); err != nil {
		return err
	}
	if cfg.Probe.SuccessThreshold, err = v.count("probe-success-threshold", cfg.Probe.SuccessThreshold); err != nil {
		return err
	}
	cfg.Check, _ = v.str("check")
	cfg.CheckTimeout, err = v.duration("check-timeout", time.Second)
	return err
}

// Defaults for the lifecycle durations. The grace period is Kubernetes'
// terminationGracePeriodSeconds.
const (
	defaultHookTimeout  = 30 * time.Second
	defaultGracePeriod  = 30 * time.Second
	defaultDrainTimeout = 3 * time.Second
)

// parseDuration reads a Go duration that must be positive.
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("not a duration (want e.g. 500ms, 10s, 2m)")
	}
	if d <= 0 {
		return 0, fmt.Errorf("must be greater than zero")
	}
	return d, nil
}
