package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/health"
	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/internal/user"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/signals"
)

// buildConfig turns parsed flags, then the environment for any flag that was
// not given, into a Config, starting from plan.Default. Flags win over
// variables.
func buildConfig(v values) (*plan.Config, error) {
	cfg := plan.Default()
	cfg.Args = v.set.Args()
	for _, read := range []func(*plan.Config, values) error{readBasics, readHooks, readSignals, readReload} {
		if err := read(&cfg, v); err != nil {
			return nil, err
		}
	}
	cfg.TerminationMessagePath = terminationPath(v)
	for _, err := range []error{
		v.duration("min-shutdown-window", &cfg.MinShutdownWindow),
		v.duration("hook-timeout", &cfg.HookTimeout),
		v.duration("grace-period", &cfg.GracePeriod),
		v.duration("drain-timeout", &cfg.DrainTimeout),
	} {
		if err != nil {
			return nil, err
		}
	}
	if err := probeConfig(&cfg, v); err != nil {
		return nil, err
	}
	if err := readNotify(&cfg, v); err != nil {
		return nil, err
	}
	if err := waitConfig(&cfg, v); err != nil {
		return nil, err
	}
	_, given := v.str("grace-period")
	cfg.ResolveGrace(given) // after the hooks: post-stop decides it
	return &cfg, nil
}

// readBasics reads tini's flags, the verbosity and the log format.
func readBasics(cfg *plan.Config, v values) error {
	var err error
	for _, b := range []struct {
		flag string
		dst  *bool
	}{{"subreaper", &cfg.Subreaper}, {"kill-group", &cfg.KillGroup}, {"warn-on-reap", &cfg.WarnOnReap}} {
		if *b.dst, err = v.boolean(b.flag); err != nil {
			return err
		}
	}
	if cfg.Verbosity, err = v.verbosity(); err != nil {
		return err
	}
	if s, ok := v.str("log-format"); ok {
		if cfg.LogFormat, err = logger.ParseFormat(strings.TrimSpace(s)); err != nil {
			return usagef("invalid --log-format value %s: %v", excerpt.Quote(s), err)
		}
	}
	for _, s := range v.list("remap-exit") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 || n > 255 {
			return usagef("invalid --remap-exit/-e value %s: want an exit code 0..255", excerpt.Quote(s))
		}
		cfg.RemapExit[n] = true
	}
	if s, ok := v.str("pdeathsig"); ok {
		if cfg.Pdeathsig, err = signals.Parse(s); err != nil {
			return usagef("invalid --pdeathsig/-p value %s: %v", excerpt.Quote(s), err)
		}
	}
	return nil
}

// readHooks reads the hook actions and --user.
func readHooks(cfg *plan.Config, v values) error {
	for _, h := range []struct {
		flag string
		dst  *[]hooks.Action
	}{{"pre-start", &cfg.PreStart}, {"post-start", &cfg.PostStart}, {"pre-stop", &cfg.PreStop}, {"post-stop", &cfg.PostStop}} {
		for _, val := range v.list(h.flag) {
			c, err := hooks.ParseAction(val)
			if err != nil {
				return usagef("invalid --%s value %s: %v", h.flag, excerpt.Quote(val), err)
			}
			*h.dst = append(*h.dst, c)
		}
	}
	if s, ok := v.str("user"); ok {
		u, err := user.LookupUser(s)
		if err == nil {
			err = u.CheckSwitch()
		}
		if err != nil {
			return usagef("%v", err)
		}
		cfg.User = u
	}
	return nil
}

// readSignals reads the stop signal, then the rewrite rules.
func readSignals(cfg *plan.Config, v values) error {
	if s, ok := v.str("stop-signal"); ok {
		sig, err := signals.Parse(s)
		if err == nil {
			err = signals.CheckStopSignal(sig)
		}
		if err != nil {
			return usagef("invalid --stop-signal value %s: %v", excerpt.Quote(s), err)
		}
		cfg.StopSignal, cfg.StopSignalSet = sig, true
	}
	// After the stop signal: it is caught whatever it is, so a rule may
	// rewrite it even when tend would not forward it.
	for _, r := range v.list("rewrite-signal") {
		from, to, err := signals.ParseRewrite(strings.TrimSpace(r))
		if err == nil {
			err = signals.CheckRewriteFrom(from, cfg.StopSignal)
		}
		if err != nil {
			return usagef("invalid --rewrite-signal/-r value: %v", err)
		}
		cfg.Rewrite[from] = to
	}
	return nil
}

// probeConfig reads the health endpoint and the probes.
func probeConfig(cfg *plan.Config, v values) error {
	if addr, ok := v.str("health-addr"); ok {
		if err := health.ParseAddr(addr); err != nil {
			return usagef("invalid --health-addr: %v", err)
		}
		cfg.HealthAddr = addr
	}
	if err := probeParams(v, "probe-", &cfg.Probe); err != nil {
		return err
	}
	for _, kind := range []plan.ProbeKind{plan.ProbeStartup, plan.ProbeReady, plan.ProbeLive} {
		k := kind.String()
		params := cfg.Probe
		if err := probeParams(v, k+"-probe-", &params); err != nil {
			return err
		}
		vals := v.list(k + "-probe")
		names := map[string]bool{} // per kind: db may be both a readiness and a liveness check
		for i, val := range vals {
			c, err := parseCheck(kind, val, params)
			if err != nil {
				return usagef("invalid --%s-probe value %s: %v", k, excerpt.Quote(val), err)
			}
			if c.Name == "" {
				// Unnamed checks are named by kind, and position when
				// there are several.
				c.Name = k
				if len(vals) > 1 {
					c.Name = fmt.Sprintf("%s-%d", k, i+1)
				}
			}
			if names[c.Name] {
				return usagef("invalid --%s-probe value %s: a check named %s already exists", k, excerpt.Quote(val), excerpt.Quote(c.Name))
			}
			names[c.Name] = true
			cfg.Checks = append(cfg.Checks, c)
		}
	}
	return nil
}

// parseCheck reads one [NAME=]SPEC. Settings in a JSON Probe win over the
// flags. Validation is Kubernetes' (core/v1 validation of Probe): the
// success threshold of a liveness or startup probe must be 1.
func parseCheck(kind plan.ProbeKind, val string, p probe.Params) (plan.Probe, error) {
	name, spec := splitName(val)
	var c probe.Handler
	var st probe.Settings
	var err error
	if probe.IsJSON(spec) {
		c, st, err = probe.ParseJSON(spec)
	} else {
		c, err = probe.ParseSpec(spec)
	}
	if err != nil {
		return plan.Probe{}, err
	}
	p = st.Apply(p)
	switch {
	case p.Period < minPeriod || p.Timeout < minPeriod:
		return plan.Probe{}, fmt.Errorf("period and timeout must be at least %s", minPeriod)
	case kind != plan.ProbeReady && p.SuccessThreshold != 1:
		return plan.Probe{}, fmt.Errorf("a %s probe's success threshold must be 1, as in Kubernetes, not %d", kind, p.SuccessThreshold)
	case kind == plan.ProbeReady && st.GracePeriod != nil:
		// validateReadinessProbe (pkg/apis/core/validation/validation.go):
		// "must not be set for readinessProbes": a readiness probe stops
		// nothing.
		return plan.Probe{}, errors.New("terminationGracePeriodSeconds must not be set on a readiness probe, as in Kubernetes")
	}
	ch := plan.Probe{Kind: kind, Name: name, Handler: c, Params: p}
	if st.GracePeriod != nil {
		ch.GracePeriod = *st.GracePeriod
	}
	return ch, nil
}

// splitName splits "NAME=SPEC". A name is lower-case letters, digits, '-'
// and '_', starting with a letter, so that "db=tcp://…" is named while
// "FOO=1 cmd" (a shell assignment) and "http://…?a=b" are not.
func splitName(s string) (name, spec string) {
	n, rest, ok := strings.Cut(s, "=")
	if !ok || n == "" || n[0] < 'a' || n[0] > 'z' {
		return "", s
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return "", s
		}
	}
	return n, rest
}

// probeParams reads the five settings under prefix ("probe-" for the
// shared ones, "ready-probe-" and so on for a kind's) into p.
func probeParams(v values, prefix string, p *probe.Params) error {
	if s, ok := v.str(prefix + "initial-delay"); ok { // zero is allowed here, as in Kubernetes
		d, err := readDuration(s)
		switch {
		case errors.Is(err, errNotDuration) || err == nil && d < 0:
			return usagef("invalid --%sinitial-delay value %s: want a duration >= 0", prefix, excerpt.Quote(s))
		case err != nil:
			return usagef("invalid --%sinitial-delay value %s: %v", prefix, excerpt.Quote(s), err)
		}
		p.InitialDelay = d
	}
	for _, err := range []error{
		v.period(prefix+"period", &p.Period),
		v.period(prefix+"timeout", &p.Timeout),
		v.count(prefix+"failure-threshold", &p.FailureThreshold),
		v.count(prefix+"success-threshold", &p.SuccessThreshold),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// defaultTerminationLog is where Kubernetes mounts a container's
// termination-message file (terminationMessagePath's default).
const defaultTerminationLog = "/dev/termination-log"

// terminationPath is the termination-message file: as given (an empty
// value turns it off), else /dev/termination-log when it exists and tend
// may write it, as in a Kubernetes container, else none.
func terminationPath(v values) string {
	if v.given["termination-message-path"] {
		s, _ := v.str("termination-message-path")
		return s
	}
	if s, ok := v.env("TEND_TERMINATION_MESSAGE_PATH"); ok {
		return s
	}
	if unix.Access(defaultTerminationLog, unix.W_OK) == nil {
		return defaultTerminationLog
	}
	return ""
}
