package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/lifecycle"
	"github.com/tend-init/tend/probe"
	"github.com/tend-init/tend/signals"
	"golang.org/x/sys/unix"
)

// buildConfig turns parsed flags, then the environment for any flag that was
// not given, into a Config, starting from lifecycle.Default. Flags win over
// variables.
func buildConfig(v values) (*lifecycle.Config, error) {
	cfg := lifecycle.Default()
	cfg.Args = v.set.Args()
	var err error
	for _, b := range []struct {
		flag string
		dst  *bool
	}{{"subreaper", &cfg.Subreaper}, {"kill-group", &cfg.KillGroup}, {"warn-on-reap", &cfg.WarnOnReap}} {
		if *b.dst, err = v.boolean(b.flag); err != nil {
			return nil, err
		}
	}
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
		dst  *[]hooks.Action
	}{{"post-start", &cfg.PostStart}, {"pre-stop", &cfg.PreStop}, {"post-stop", &cfg.PostStop}} {
		for _, val := range v.list(h.flag) {
			c, err := hooks.ParseAction(val)
			if err != nil {
				return nil, usagef("invalid --%s value %q: %v", h.flag, val, err)
			}
			*h.dst = append(*h.dst, c)
		}
	}
	if s, ok := v.str("stop-signal"); ok {
		sig, err := signals.Parse(s)
		if err == nil {
			err = signals.CheckStopSignal(sig)
		}
		if err != nil {
			return nil, usagef("invalid --stop-signal value %q: %v", s, err)
		}
		cfg.StopSignal = sig
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
	return &cfg, nil
}

// probeConfig reads the health endpoint and probe flags.
func probeConfig(cfg *lifecycle.Config, v values) error {
	if addr, ok := v.str("health-addr"); ok {
		if err := probe.ParseAddr(addr); err != nil {
			return usagef("invalid --health-addr: %v", err)
		}
		cfg.HealthAddr = addr
	}
	for _, p := range []struct {
		flag string
		dst  *probe.Checker
	}{{"ready-probe", &cfg.ReadyProbe}, {"live-probe", &cfg.LiveProbe}} {
		if s, ok := v.str(p.flag); ok {
			c, err := probe.ParseSpec(s)
			if err != nil {
				return usagef("invalid --%s value %q: %v", p.flag, s, err)
			}
			*p.dst = c
		}
	}
	if s, ok := v.str("probe-initial-delay"); ok { // zero is allowed here, as in Kubernetes
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d < 0 {
			return usagef("invalid --probe-initial-delay value %q: want a duration >= 0", s)
		}
		cfg.Probe.InitialDelay = d
	}
	for _, err := range []error{
		v.period("probe-period", &cfg.Probe.Period),
		v.period("probe-timeout", &cfg.Probe.Timeout),
		v.count("probe-failure-threshold", &cfg.Probe.FailureThreshold),
		v.count("probe-success-threshold", &cfg.Probe.SuccessThreshold),
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
