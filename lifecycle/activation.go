package lifecycle

import (
	"errors"
	"os"
	"os/exec"
	"time"

	"github.com/tend-init/tend/activation"
	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/reaper"
)

// Socket activation (package activation): what PID 1 receives for the app,
// the app must see as its own (catatonit #12-15).

// takeSockets takes a socket-activation offer addressed to tend before
// anything can fork, and returns the environment of hooks and probes:
// env without the LISTEN_* variables whenever the offer was tend's. An
// offer that names another process is left alone, variables and
// descriptors, as catatonit leaves it. A malformed one is said at warning
// and passed on to no one: the app, hooks and probes lose the variables,
// as sd_listen_fds(1) unsets them, and no descriptor is touched.
func (l *Loop) takeSockets(env []string) []string {
	o, err := activation.Parse(os.LookupEnv, os.Getpid(), activation.OwnPidfdID)
	if errors.Is(err, activation.ErrNotOurs) {
		return env
	}
	if err == nil {
		l.listenFiles, err = activation.Take(o)
	}
	env = activation.Strip(env)
	if err != nil {
		l.log.Warnf("socket activation: %v: tend passes no socket on, and no LISTEN_* variable", err)
		l.appEnv = env
		return env
	}
	l.log.Infof("socket activation: %d socket(s) for the app, fds %d-%d (LISTEN_FDNAMES %s)",
		o.N, activation.FirstFd, activation.FirstFd+o.N-1, excerpt.Quote(o.Names))
	return env
}

// startListening starts the app through the shim that sets LISTEN_PID to
// the app's pid. Where the shim itself cannot start (tend's binary not
// executable by --user's user, no /proc), the app is started directly with
// the sockets, as before socket activation was handled, and a warning says
// that LISTEN_PID still names tend.
func (l *Loop) startListening(cmd *exec.Cmd) (*reaper.Child, error) {
	began := time.Now()
	c, err := activation.Start(l.reap.Start, cmd, l.listenFiles, l.sigs.Ignored)
	var shimErr *activation.ErrShim
	if errors.As(err, &shimErr) {
		l.log.With(errField(shimErr.Err)).Warnf("socket activation: %v: the app starts without it, and LISTEN_PID names tend, so sd_listen_fds in the app ignores the sockets", shimErr)
		cmd.ExtraFiles = l.listenFiles
		return l.reap.Start(cmd)
	}
	if err == nil {
		l.log.Debugf("socket activation: the app was exec'd by the shim in %s", time.Since(began).Round(time.Microsecond))
	}
	return c, err
}

// closeSockets closes tend's copies of the offered sockets once the app has
// them (or cannot get them): tend must not keep a listening socket open
// that only the app serves.
func (l *Loop) closeSockets() {
	for _, f := range l.listenFiles {
		_ = f.Close() // a descriptor tend only held: nothing to flush
	}
	l.listenFiles = nil
}
