package config

import (
	"fmt"
	"strings"

	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/probe"
)

// pauseConfig decides whether no program means pause mode. Only when asked:
// --pause (TEND_PAUSE), or probes, which make tend the sidecar health
// responder and have nothing else to do. An empty CMD by mistake
// (ENTRYPOINT ["/tend","--"] with no CMD, or one cleared by --entrypoint)
// must not look like a running app: usage and exit 1, as tini and
// dumb-init. Hooks alone do not imply it: they are set-up and clean-up for
// an app, and a forgotten program beside them is the same mistake.
func pauseConfig(cfg *plan.Config, v values) error {
	var err error
	if cfg.Pause, err = v.boolean("pause"); err != nil {
		return err
	}
	if len(cfg.Checks) > 0 && len(cfg.Args) == 0 {
		cfg.Pause = true
	}
	switch {
	case cfg.Pause && len(cfg.Args) > 0:
		return usagef("--pause runs no program, but one was given (%s)", excerpt.Quote(cfg.Args[0]))
	case !cfg.Pause && len(cfg.Args) == 0:
		return usagef("no program given: usage: tend [OPTIONS] [--] PROGRAM [ARGS...]; " +
			"--pause (TEND_PAUSE=1) runs none, as a pause container; see tend -h")
	}
	return nil
}

// waitConfig reads --wait-for and --wait-timeout.
func waitConfig(cfg *plan.Config, v values) error {
	if s, ok := v.str("wait-timeout"); ok {
		d, err := readDuration(s)
		switch {
		case err == nil && d < 0:
			return usagef("invalid --wait-timeout value %s: want a duration >= 0 (0: no bound)", excerpt.Quote(s))
		case err != nil:
			return usagef("invalid --wait-timeout value %s: %v", excerpt.Quote(s), err)
		}
		cfg.WaitTimeout = d
	}
	names := map[string]bool{}
	for _, val := range v.list("wait-for") {
		w, err := parseWait(val, cfg.Probe)
		if err == nil && names[w.Name] {
			err = fmt.Errorf("a dependency named %s already exists", excerpt.Quote(w.Name))
		}
		if err != nil {
			return usagef("invalid --wait-for value %s: %v", excerpt.Quote(val), err)
		}
		names[w.Name] = true
		cfg.WaitFor = append(cfg.WaitFor, w)
	}
	return nil
}

// parseWait reads one [NAME=]SPEC, a probe's spec: the same parse, so that
// what tend can probe it can wait for. Of a JSON Probe's settings only
// timeoutSeconds applies: the wait has its own pace and no thresholds.
func parseWait(val string, p probe.Params) (plan.Wait, error) {
	name, spec := splitName(val)
	spec = strings.TrimSpace(spec)
	var h probe.Handler
	var st probe.Settings
	var err error
	if probe.IsJSON(spec) {
		h, st, err = probe.ParseJSON(spec)
	} else {
		h, err = probe.ParseSpec(spec)
	}
	if err != nil {
		return plan.Wait{}, err
	}
	p = st.Apply(p)
	if p.Timeout < minPeriod {
		return plan.Wait{}, fmt.Errorf("timeout must be at least %s", minPeriod)
	}
	if name == "" {
		name = spec
	}
	return plan.Wait{Name: name, Spec: spec, Handler: h, Timeout: p.Timeout}, nil
}
