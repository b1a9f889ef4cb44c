package plan

import (
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/signals"
)

// TestIsStopSignal: TERM and INT always begin a stop, the configured stop
// signal too; WINCH or QUIT only when they are the stop signal.
func TestIsStopSignal(t *testing.T) {
	for _, c := range []struct {
		stop, recv unix.Signal
		want       bool
	}{
		{unix.SIGTERM, unix.SIGTERM, true},
		{unix.SIGTERM, unix.SIGINT, true},
		{unix.SIGTERM, unix.SIGQUIT, false},
		{unix.SIGTERM, unix.SIGWINCH, false},
		{unix.SIGTERM, unix.SIGHUP, false},
		{unix.SIGQUIT, unix.SIGQUIT, true},
		{unix.SIGWINCH, unix.SIGWINCH, true},
		{unix.SIGQUIT, unix.SIGTERM, true},
		{unix.SIGQUIT, unix.SIGUSR1, false},
	} {
		cfg := Config{StopSignal: c.stop}
		if got := cfg.IsStopSignal(c.recv); got != c.want {
			t.Errorf("stop signal %s: IsStopSignal(%s) = %v, want %v", signals.Name(c.stop), signals.Name(c.recv), got, c.want)
		}
	}
}

// TestOwnStopSignal: a stop tend begins sends the stop signal after the
// -r rules; 0 when a rule drops it.
func TestOwnStopSignal(t *testing.T) {
	for _, c := range []struct {
		name    string
		stop    unix.Signal
		rewrite signals.Rewrite
		want    unix.Signal
	}{
		{"no rule", unix.SIGTERM, nil, unix.SIGTERM},
		{"configured", unix.SIGQUIT, signals.Rewrite{}, unix.SIGQUIT},
		{"rewritten", unix.SIGTERM, signals.Rewrite{unix.SIGTERM: unix.SIGQUIT}, unix.SIGQUIT},
		{"another rule", unix.SIGTERM, signals.Rewrite{unix.SIGINT: unix.SIGUSR1}, unix.SIGTERM},
		{"dropped", unix.SIGTERM, signals.Rewrite{unix.SIGTERM: 0}, 0},
	} {
		cfg := Config{StopSignal: c.stop, Rewrite: c.rewrite}
		if got := cfg.OwnStopSignal(); got != c.want {
			t.Errorf("%s: OwnStopSignal() = %d, want %d", c.name, got, c.want)
		}
	}
}
