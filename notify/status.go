package notify

import "strings"

// Standing is where tend stands, as its manager hears it (Told).
type Standing int

const (
	Starting Standing = iota // before the app, or while it starts (post-start, startup checks)
	PreStart                 // pre-start runs
	Running                  // the app runs, or pause mode: ready when readiness holds
	PreStop                  // a stop began and pre-stop runs
	Stopping                 // the stop signal is sent: waiting for the app to exit
	Exited                   // the app exited: the tree drains, or tend is done
	PostStop                 // post-stop runs
)

// Told is what tend tells its manager at standing at, given tend's
// readiness (ok, and why in /readyz's words when not): ready once the app
// runs and readiness holds, stopping once a stop began or the app exited,
// and a STATUS= text for what tend waits on.
func Told(at Standing, ok bool, why string) (ready, stopping bool, status string) {
	switch at {
	case PreStart:
		return false, false, "waiting: pre-start running"
	case Running:
		if ok {
			return true, false, "ready"
		}
	case PreStop:
		return false, true, "stopping: pre-stop running"
	case Stopping:
		return false, true, "stopping: waiting for the app to exit"
	case Exited:
		return false, true, "stopping: the app exited"
	case PostStop:
		return false, true, "stopping: post-stop running"
	}
	return false, false, "waiting: " + strings.TrimPrefix(why, "not ready: ")
}

// statusSafe keeps a relay from reading tend's STATUS= text as READY=1 or
// WATCHDOG=1: conmon before 2.1.10 matches them anywhere in a datagram
// (src/conn_sock.c, "Do what OCI runtime does - only pass READY=1"; see
// docs/design.md, "sd_notify"). Tell applies it to STATUS= only: tend's
// own READY=1 and WATCHDOG=1 go as they are.
var statusSafe = strings.NewReplacer("READY=1", "READY", "WATCHDOG=1", "WATCHDOG")
