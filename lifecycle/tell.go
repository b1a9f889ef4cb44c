package lifecycle

import "time"

// sd_notify, the loop's side: package notify speaks the protocol and holds
// the sockets (notify.Link); the machine's side is in notifystate.go.

// tellManager sends the manager what changed since the last event: READY=1
// the first time tend is ready, STOPPING=1 when a stop begins, and STATUS=
// whenever what tend waits on changes. It runs on the loop after every
// event.
func (l *Loop) tellManager() {
	if !l.note.Outward() {
		return
	}
	ready, stopping, status := l.m.managerState()
	l.note.Tell(ready, stopping, status, func() {
		if l.m.st.hasApp {
			l.log.Infof("notify: READY=1 to the manager, %s after the app started", l.m.now().Sub(l.m.st.appStarted).Round(time.Millisecond))
		} else {
			l.log.Infof("notify: READY=1 to the manager")
		}
	})
}

// watchdogPing sends WATCHDOG=1 while liveness holds: a loop that runs
// (this is the loop) and an app that is live by its checks.
func (l *Loop) watchdogPing() {
	if live, why := l.m.liveness(); !live {
		l.log.Debugf("notify: no WATCHDOG=1 to the manager: %s", why)
		return
	}
	l.note.Send("WATCHDOG=1")
}
