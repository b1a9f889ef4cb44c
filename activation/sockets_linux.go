package activation

import (
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"time"

	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/reaper"
	"golang.org/x/sys/unix"
)

// What PID 1 receives for the app, the app must see as its own
// (catatonit #12-15): the loop's use of Parse, Take and Start.

// Sockets is an offer tend took for the app: tend's copies of the sockets
// until the app has them, and the app's environment when it is not tend's
// own. The zero Sockets holds nothing.
type Sockets struct {
	log   *logger.Logger
	files []*os.File
	// AppEnv is the app's environment: nil for os.Environ(), the
	// environment without the LISTEN_* variables after a malformed offer.
	AppEnv []string
}

// Receive takes a socket-activation offer addressed to tend before
// anything can fork, and returns the environment of hooks and probes:
// env without the LISTEN_* variables whenever the offer was tend's. An
// offer that names another process is left alone, variables and
// descriptors, as catatonit leaves it. A malformed one is said at warning
// and passed on to no one: the app, hooks and probes lose the variables,
// as sd_listen_fds(1) unsets them, and no descriptor is touched.
func (s *Sockets) Receive(log *logger.Logger, env []string) []string {
	s.log = log
	o, err := Parse(os.LookupEnv, os.Getpid(), OwnPidfdID)
	if errors.Is(err, ErrNotOurs) {
		return env
	}
	if err == nil {
		s.files, err = Take(o)
	}
	env = Strip(env)
	if err != nil {
		log.Warnf("socket activation: %v: tend passes no socket on, and no LISTEN_* variable", err)
		s.AppEnv = env
		return env
	}
	log.Infof("socket activation: %d socket(s) for the app, fds %d-%d (LISTEN_FDNAMES %s)",
		o.N, FirstFd, FirstFd+o.N-1, excerpt.Quote(o.Names))
	return env
}

// Starter is how the app starts: through start (the reaper's) when tend
// holds no socket, else through startListening.
func (s *Sockets) Starter(start func(*exec.Cmd) (*reaper.Child, error), ignored []unix.Signal) func(*exec.Cmd) (*reaper.Child, error) {
	if s.files == nil {
		return start
	}
	return func(cmd *exec.Cmd) (*reaper.Child, error) { return s.startListening(start, cmd, ignored) }
}

// startListening starts the app through the shim that sets LISTEN_PID to
// the app's pid. Where the shim itself cannot start (tend's binary not
// executable by --user's user, no /proc), the app is started directly with
// the sockets, as before socket activation was handled, and a warning says
// that LISTEN_PID still names tend.
func (s *Sockets) startListening(start func(*exec.Cmd) (*reaper.Child, error), cmd *exec.Cmd, ignored []unix.Signal) (*reaper.Child, error) {
	began := time.Now()
	c, err := Start(start, cmd, s.files, ignored)
	var shimErr *ErrShim
	if errors.As(err, &shimErr) {
		// "error": the key lifecycle's errField writes, one in every JSON line.
		s.log.With(slog.String("error", shimErr.Err.Error())).Warnf("socket activation: %v: the app starts without it, and LISTEN_PID names tend, so sd_listen_fds in the app ignores the sockets", shimErr)
		cmd.ExtraFiles = s.files
		return start(cmd)
	}
	if err == nil {
		s.log.Debugf("socket activation: the app was exec'd by the shim in %s", time.Since(began).Round(time.Microsecond))
	}
	return c, err
}

// Close closes tend's copies of the offered sockets once the app has them
// (or cannot get them): tend must not keep a listening socket open that
// only the app serves.
func (s *Sockets) Close() {
	for _, f := range s.files {
		_ = f.Close() // a descriptor tend only held: nothing to flush
	}
	s.files = nil
}
