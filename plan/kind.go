package plan

import (
	"strconv"

	"github.com/tend-init/tend/hooks"
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
