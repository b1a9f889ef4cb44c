package thread

import (
	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/plan"
)

// For is Budget for what cfg runs.
func For(cfg *plan.Config) int {
	n := Needs{
		TerminationMessage: cfg.TerminationMessagePath != "",
		Health:             cfg.HealthAddr != "",
		Relay:              cfg.AnyHookAction(isCommand),           // a command's output goes through the Relay
		Probes:             max(len(cfg.Checks), len(cfg.WaitFor)), // the wait ends before the probes begin
		Watcher:            len(cfg.ReloadOn) > 0,
	}
	// Hook goroutines: a pre-stop can start while a cancelled post-start
	// is still being killed; a post-stop runs alone, after both.
	switch {
	case len(cfg.PostStart) > 0 && len(cfg.PreStop) > 0:
		n.Hooks = 2
	case len(cfg.PreStart) > 0, len(cfg.PostStart) > 0, len(cfg.PreStop) > 0, len(cfg.PostStop) > 0:
		n.Hooks = 1
	}
	if len(cfg.Reload) > 0 {
		n.Hooks++ // a reload runs beside post-start, and a cancelled one beside pre-stop
	}
	return Budget(n)
}

// isCommand: a hook action that runs a command.
func isCommand(a hooks.Action) bool {
	_, ok := a.(hooks.Command)
	return ok
}
