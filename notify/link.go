package notify

import (
	"os"
	"strings"
	"time"

	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/logger"
)

// Link is sd_notify as tend's event loop holds it: the set-up, the sockets,
// the watchdog's ticker and what was sent (the machine's decisions are
// lifecycle's, notifystate.go; the app's State is this package's).
//
// Outward: when tend's environment has NOTIFY_SOCKET (podman
// --sdnotify=container, Quadlet's Notify=, a Type=notify unit), tend tells
// that manager READY=1 once the app is ready, STATUS= for what it waits
// on, STOPPING=1 when a stop begins, and WATCHDOG=1 at half WATCHDOG_USEC
// while liveness holds. The app, hooks and probes do not see the variables
// unless --notify-pass gives them to the app, and then tend says nothing.
//
// Inward (--notify): the app gets a NOTIFY_SOCKET of tend's own; what it
// sends reaches the loop on Inbox from the receiver's goroutine, which only
// sends values (convention A.4).
//
// A Link is used on the loop goroutine only. The nil Link and the zero
// Link say nothing and receive nothing.
type Link struct {
	log *logger.Logger
	out *Sender // nil: nobody waits on tend, or --notify-pass
	// dog ticks at half of WATCHDOG_USEC; nil without a watchdog.
	dog     <-chan time.Time
	stopDog func()
	in      *Receiver // nil without --notify

	ready, stopping bool   // READY=1 and STOPPING=1 sent (or tried)
	said            string // the last STATUS= sent
	failed          int    // sends that failed, for the log
}

// parents is where the app's socket directory goes, first usable
// first: TMPDIR or /tmp, then /run and /dev/shm, which runtimes mount in
// a container even when the image (FROM scratch) has no /tmp.
var parents = []string{"", "/run", "/dev/shm"}

// Setup reads NOTIFY_SOCKET and WATCHDOG_*, opens the app's socket with
// inward (--notify), and returns the Link, the app's environment (appEnv,
// or tend's when nil, with the variables set as pass (--notify-pass) and
// inward say) and env, the hooks' and probes' environment, without the
// variables. When neither NOTIFY_SOCKET nor inward is set, both
// environments come back as they were. Call it before anything can fork.
// On error, what Setup opened is closed.
func Setup(log *logger.Logger, inward, pass bool, appEnv, env []string) (*Link, []string, []string, error) {
	k := &Link{log: log}
	_, outer := os.LookupEnv(EnvSocket)
	if !outer && !inward {
		return k, appEnv, env, nil // nothing to do, nothing to strip: the app's environment stays tend's
	}
	if appEnv == nil {
		appEnv = os.Environ()
	}
	if pass {
		log.Infof("notify: the app inherits %s=%s (--notify-pass); tend tells it nothing", EnvSocket, excerpt.Quote(os.Getenv(EnvSocket)))
	} else {
		appEnv = StripEnv(appEnv)
		k.setupSender()
	}
	if inward {
		self := os.Getpid()
		o := Options{
			// systemd's NotifyAccess=all, for the container: any of its
			// processes (the kernel gives pid 0, refused by the receiver,
			// to a sender outside tend's pid namespace), but not tend.
			Allow: func(pid int) bool { return pid != self },
		}
		var err error
		for _, o.Parent = range parents {
			if o.Parent != "" {
				if fi, serr := os.Stat(o.Parent); serr != nil || !fi.IsDir() {
					continue
				}
			}
			if k.in, err = Listen(o); err == nil {
				break
			}
		}
		if k.in == nil {
			k.Close()
			return nil, nil, nil, err
		}
		appEnv = append(appEnv, k.in.Env())
		log.Infof("notify: the app's %s (--notify): its READY=1 is a readiness condition", k.in.Env())
	}
	return k, appEnv, StripEnv(env), nil
}

// setupSender opens the manager's socket and its watchdog. A bad value is
// a warning, not a set-up failure: the app can run all the same, and the
// manager, which waits in vain, says so in its own way.
func (k *Link) setupSender() {
	out, err := FromEnv(os.LookupEnv)
	if err != nil {
		k.log.Warnf("notify: %v: tend cannot tell its manager anything", err)
	}
	if out == nil {
		return
	}
	k.out = out
	period, err := WatchdogFromEnv(os.LookupEnv, os.Getpid())
	if err != nil {
		k.log.Warnf("notify: %v: tend sends no WATCHDOG=1", err)
	}
	if period > 0 {
		t := time.NewTicker(Interval(period))
		k.dog, k.stopDog = t.C, t.Stop
	}
	k.log.Infof("notify: tend tells %s READY=1 once the app is ready (watchdog %s)", excerpt.Quote(out.Addr()), period)
}

// Close releases both sockets and the ticker; the loop's Run defers it,
// and a failed set-up calls it.
func (k *Link) Close() {
	if k == nil {
		return
	}
	if k.stopDog != nil {
		k.stopDog()
	}
	_ = k.out.Close() // a datagram socket: nothing is queued on tend's side
	if k.in != nil {
		_ = k.in.Close() // removes the socket's directory; a leftover in /tmp is harmless
	}
}

// Inbox is the channel the loop reads the app's notifications from; nil
// without --notify.
func (k *Link) Inbox() <-chan Message {
	if k == nil || k.in == nil {
		return nil
	}
	return k.in.C
}

// Watchdog ticks when WATCHDOG=1 is due; nil without a watchdog.
func (k *Link) Watchdog() <-chan time.Time {
	if k == nil {
		return nil
	}
	return k.dog
}

// InboxClosed logs that the receiver stopped on a socket error. What the
// app said so far stands; the app can say nothing more.
func (k *Link) InboxClosed() {
	k.log.Errorf("notify: the app's socket stopped: %v; what the app said last stands", k.in.Err())
}

// Outward says whether tend tells a manager anything.
func (k *Link) Outward() bool { return k != nil && k.out != nil }

// Tell sends the manager what changed since the last call: READY=1 the
// first time ready holds (after readyLine, which logs it), STOPPING=1 when
// stopping first holds, and STATUS= whenever status (made safe by
// statusSafe) changes. Each send is one non-blocking datagram.
func (k *Link) Tell(ready, stopping bool, status string, readyLine func()) {
	if !k.Outward() {
		return
	}
	status = statusSafe.Replace(status)
	var msg []string
	switch {
	case stopping && !k.stopping:
		k.stopping = true
		msg = append(msg, "STOPPING=1")
	case ready && !k.ready && !k.stopping:
		k.ready = true
		msg = append(msg, "READY=1")
		readyLine()
	}
	if status != k.said {
		k.said = status
		msg = append(msg, "STATUS="+status)
	}
	if len(msg) > 0 {
		k.Send(strings.Join(msg, "\n"))
	}
}

// Ping sends WATCHDOG=1 when live holds (the loop that calls it runs, and
// the app is live by its checks); otherwise it logs why not at -vv.
func (k *Link) Ping(live bool, why string) {
	if !live {
		k.log.Debugf("notify: no WATCHDOG=1 to the manager: %s", why)
		return
	}
	k.Send("WATCHDOG=1")
}

// Send sends msg to the manager; a failure is a warning the first time,
// then a debug line.
func (k *Link) Send(msg string) {
	err := k.out.Send(msg)
	if err == nil {
		k.log.Debugf("notify: sent %s", excerpt.Quote(msg))
		return
	}
	k.failed++
	lost := strings.ReplaceAll(msg, "\n", " ")
	if k.failed == 1 {
		k.log.Warnf("notify: %s lost: %v (later failures are logged at -vv)", excerpt.Quote(lost), err)
		return
	}
	k.log.Debugf("notify: %s lost: %v (%d lost so far)", excerpt.Quote(lost), err, k.failed)
}
