package config

import (
	"strconv"
	"strings"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/signals"
)

// readReload reads --reload-on, --reload-signal, --reload and
// --stop-exit-code.
func readReload(cfg *plan.Config, v values) error {
	for _, p := range v.list("reload-on") {
		if strings.TrimSpace(p) == "" || strings.ContainsRune(p, 0) {
			return usagef("invalid --reload-on value %s: want a file or directory path", excerpt.Quote(p))
		}
		cfg.ReloadOn = append(cfg.ReloadOn, p)
	}
	sigGiven := false
	if s, ok := v.str("reload-signal"); ok {
		sig, err := signals.Parse(s)
		if err != nil {
			return usagef("invalid --reload-signal value %s: %v", excerpt.Quote(s), err)
		}
		cfg.ReloadSignal, sigGiven = sig, true
	}
	for _, val := range v.list("reload") {
		a, err := hooks.ParseAction(val)
		if err != nil {
			return usagef("invalid --reload value %s: %v", excerpt.Quote(val), err)
		}
		cfg.Reload = append(cfg.Reload, a)
	}
	switch {
	case sigGiven && len(cfg.Reload) > 0:
		return usagef("--reload-signal and --reload exclude each other: a change either signals the app or runs the action")
	case len(cfg.ReloadOn) == 0 && (sigGiven || len(cfg.Reload) > 0):
		return usagef("--reload-signal and --reload act on a --reload-on change: give --reload-on PATH")
	}
	if s, ok := v.str("stop-exit-code"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 || n > 255 {
			return usagef("invalid --stop-exit-code value %s: want an exit code 0..255", excerpt.Quote(s))
		}
		cfg.StopExitCode, cfg.StopExitCodeSet = n, true
	}
	return nil
}
