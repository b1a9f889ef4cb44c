package plan

import (
	"strconv"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/internal/user"
	"github.com/tend-init/tend/probe"
)

// HookKind names a lifecycle hook: which of Config's hook lists runs, and
// the label of its runs in the log and /metrics.
type HookKind int

// The hooks, in the order they run.
const (
	HookNone HookKind = iota
	HookPreStart
	HookPostStart
	HookPreStop
	HookPostStop
	// HookReload runs when a --reload-on file changed (Config.Reload).
	HookReload
)

// String is the hook's name in its flags, the log and /metrics.
func (k HookKind) String() string {
	switch k {
	case HookPreStart:
		return "pre-start"
	case HookPostStart:
		return "post-start"
	case HookPreStop:
		return "pre-stop"
	case HookPostStop:
		return "post-stop"
	case HookReload:
		return "reload"
	}
	return "hook(" + strconv.Itoa(int(k)) + ")"
}

// Hooks is the list of actions hook k runs.
func (c *Config) Hooks(k HookKind) []hooks.Action {
	switch k {
	case HookPreStart:
		return c.PreStart
	case HookPostStart:
		return c.PostStart
	case HookPreStop:
		return c.PreStop
	case HookPostStop:
		return c.PostStop
	case HookReload:
		return c.Reload
	}
	return nil
}

// HookUser is who hook k runs as: --user, but for pre-start and post-stop,
// the set-up before and the clean-up after the app, tend itself (nil).
func (c *Config) HookUser(k HookKind) *user.User {
	if k == HookPreStart || k == HookPostStop {
		return nil
	}
	return c.User
}

// Remap is the app's exit code after the -e remaps: 0 for a code RemapExit
// names, else the code itself.
func (c *Config) Remap(code int) int {
	if c.RemapExit[code&0xff] {
		return 0
	}
	return code
}

// OwnsSockets reports whether tend itself will write to sockets: a health
// endpoint, an HTTP, TCP or gRPC probe, or an HTTP hook. A PIPE raised by
// one of those writes cannot be told from a PIPE someone sent, so
// ForwardCatchable then leaves PIPE out (signals.Catchable).
func (c *Config) OwnsSockets() bool {
	if c.HealthAddr != "" {
		return true
	}
	for _, p := range c.Checks {
		if _, ok := p.Handler.(probe.Command); !ok {
			return true
		}
	}
	return c.AnyHookAction(func(a hooks.Action) bool { _, ok := a.(hooks.HTTPGet); return ok })
}

// AnyHookAction reports whether an action of any hook matches.
func (c *Config) AnyHookAction(match func(hooks.Action) bool) bool {
	for _, acts := range [][]hooks.Action{c.PreStart, c.PostStart, c.PreStop, c.PostStop, c.Reload} {
		for _, a := range acts {
			if match(a) {
				return true
			}
		}
	}
	return false
}

// ProbeKind is what a check feeds: Kubernetes' startupProbe,
// readinessProbe or livenessProbe. It is probe.Kind, which the checks'
// state (probe.Set) is kept by.
type ProbeKind = probe.Kind

// The probe kinds; ProbeNone is no kind.
const (
	ProbeNone    = probe.None
	ProbeStartup = probe.Startup
	ProbeReady   = probe.Ready
	ProbeLive    = probe.Live
)
