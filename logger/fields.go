package logger

import (
	"log/slog"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/signals"
)

// The fields' keys that tend's lines share, one spelling each. Durations
// are slog's: whole nanoseconds.
func SignalField(s unix.Signal) slog.Attr     { return slog.String("signal", signals.Name(s)) }
func DurationField(d time.Duration) slog.Attr { return slog.Duration("duration", d) }
func AppPidField(pid int) slog.Attr           { return slog.Int("app_pid", pid) }

// ErrField is the error's text; "" for none.
func ErrField(err error) slog.Attr {
	if err == nil {
		return slog.String("error", "")
	}
	return slog.String("error", err.Error())
}
