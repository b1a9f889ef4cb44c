package lifecycle

import (
	"log/slog"

	"github.com/tend-init/tend/plan"
)

// The fields of plan's types (package logger has the rest), one spelling
// each.
func hookField(k plan.HookKind) slog.Attr { return slog.String("hook", k.String()) }

// probeField names a check (its name, or its kind when unnamed), and
// probeKindField says which kind it is: startup, ready or live.
func probeField(c plan.Probe) slog.Attr     { return slog.String("probe", c.Name) }
func probeKindField(c plan.Probe) slog.Attr { return slog.String("probe_kind", c.Kind.String()) }
