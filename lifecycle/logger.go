package lifecycle

import (
	"log/slog"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/plan"
	"github.com/tend-init/tend/signals"
)

// The fields' keys, one spelling each. Durations are slog's: whole
// nanoseconds.
func hookField(k plan.HookKind) slog.Attr { return slog.String("hook", k.String()) }
func sigField(s unix.Signal) slog.Attr    { return slog.String("signal", signals.Name(s)) }
func durField(d time.Duration) slog.Attr  { return slog.Duration("duration", d) }
func appPidField(pid int) slog.Attr       { return slog.Int("app_pid", pid) }

// errField is the error's text; "" for none.
func errField(err error) slog.Attr {
	if err == nil {
		return slog.String("error", "")
	}
	return slog.String("error", err.Error())
}

// probeField names a check (its name, or its kind when unnamed), and
// probeKindField says which kind it is: startup, ready or live.
func probeField(c plan.Probe) slog.Attr     { return slog.String("probe", c.Name) }
func probeKindField(c plan.Probe) slog.Attr { return slog.String("probe_kind", c.Kind.String()) }
