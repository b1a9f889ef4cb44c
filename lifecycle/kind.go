package lifecycle

import (
	"strconv"

	"github.com/tend-init/tend/hooks"
)

// HookKind names a lifecycle hook. Hook runs are tagged with it on their
// way back to the loop; hooks.Run never sees it.
type HookKind int

const (
	hookNone HookKind = iota
	hookPreStart
	hookPostStart
	hookPreStop
	hookPostStop
)

func (k HookKind) String() string {
	switch k {
	case hookPreStart:
		return "pre-start"
	case hookPostStart:
		return "post-start"
	case hookPreStop:
		return "pre-stop"
	case hookPostStop:
		return "post-stop"
	}
	return "hook(" + strconv.Itoa(int(k)) + ")"
}

func (c *Config) hookCommands(k HookKind) []hooks.Action {
	switch k {
	case hookPreStart:
		return c.PreStart
	case hookPostStart:
		return c.PostStart
	case hookPreStop:
		return c.PreStop
	case hookPostStop:
		return c.PostStop
	}
	return nil
}

// ProbeKind is what a check feeds: Kubernetes' startupProbe,
// readinessProbe or livenessProbe.
type ProbeKind int

const (
	probeNone ProbeKind = iota
	ProbeStartup
	ProbeReady
	ProbeLive
)

// String is the kind's label in /metrics and in its flags.
func (k ProbeKind) String() string {
	switch k {
	case ProbeStartup:
		return "startup"
	case ProbeReady:
		return "ready"
	case ProbeLive:
		return "live"
	}
	return "probe(" + strconv.Itoa(int(k)) + ")"
}

// childEnv is the environment of a hook or an exec probe: tend's own, plus
// TEND_HOOK naming what runs, TEND_APP_PID while there is an app, and
// TEND_EXIT_CODE for post-stop. It builds a fresh slice every time:
// appending to one shared os.Environ() slice once let the liveness probe's
// TEND_HOOK overwrite the readiness probe's.
func childEnv(base []string, name string, appPid int, exitCode *int) []string {
	env := make([]string, len(base), len(base)+3)
	copy(env, base)
	env = append(env, "TEND_HOOK="+name)
	if appPid > 0 {
		env = append(env, "TEND_APP_PID="+strconv.Itoa(appPid))
	}
	if exitCode != nil {
		env = append(env, "TEND_EXIT_CODE="+strconv.Itoa(*exitCode))
	}
	return env
}
