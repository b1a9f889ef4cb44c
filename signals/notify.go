package signals

import (
	"os"
	"os/signal"

	"golang.org/x/sys/unix"
)

// Channels delivers signals to the event loop. SIGCHLD has its own channel so
// that a burst of child exits can never crowd out a TERM: os/signal drops a
// signal when its channel is full.
type Channels struct {
	// Child receives SIGCHLD. One buffered slot is enough, because the
	// reaper drains every exited child on each delivery.
	Child chan os.Signal
	// Forward receives every signal that tend forwards.
	Forward chan os.Signal
	// Ignored lists the forwardable signals that were ignored when tend
	// started. They are left ignored, so the app inherits SIG_IGN.
	Ignored []unix.Signal
	pipe    chan os.Signal
}

// Listen registers for SIGCHLD and the forwarded signals. Call it before
// starting any process, so that no early SIGCHLD or TERM is lost; then reap
// once after the start to catch exits that happened in between.
func Listen() *Channels {
	c := &Channels{
		Child:   make(chan os.Signal, 1),
		Forward: make(chan os.Signal, 64),
		// Notify, not signal.Ignore: Ignore would leak SIG_IGN for PIPE
		// into every exec'd child. Nobody reads this channel; a write to a
		// closed pipe then returns EPIPE instead of killing tend.
		pipe: make(chan os.Signal, 1),
	}
	signal.Notify(c.Child, unix.SIGCHLD)
	signal.Notify(c.pipe, unix.SIGPIPE)
	var fwd []os.Signal
	for _, s := range Forwarded() {
		// The runtime leaves an inherited SIG_IGN in place for HUP, INT
		// and the job-control signals until Notify is called; honour it.
		if signal.Ignored(s) {
			c.Ignored = append(c.Ignored, s)
			continue
		}
		fwd = append(fwd, s)
	}
	signal.Notify(c.Forward, fwd...)
	return c
}

// IgnoreJobControl makes tend ignore SIGTTIN and SIGTTOU, as tini does, so
// that tend is not stopped when it writes to a terminal whose foreground
// group is now the app's. Call it after the app has started: the app must
// not inherit SIG_IGN for them.
func IgnoreJobControl() {
	signal.Ignore(unix.SIGTTIN, unix.SIGTTOU)
}

// Stop undoes Listen, for tests that call Listen repeatedly.
func (c *Channels) Stop() {
	signal.Stop(c.Child)
	signal.Stop(c.Forward)
	signal.Stop(c.pipe)
}
