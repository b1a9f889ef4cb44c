package notify_test

import (
	"fmt"
	"os"
	"time"

	"github.com/tend-init/tend/notify"
)

// Example shows the wiring the event loop needs: the outward Sender for
// podman or systemd, and the inward Receiver folded into a State.
func Example() {
	// At start, before the app: what tend tells its own manager.
	out, err := notify.FromEnv(os.LookupEnv) // nil when NOTIFY_SOCKET is unset; a nil Sender sends nothing
	if err != nil {
		fmt.Println("warning:", err)
	}
	period, err := notify.WatchdogFromEnv(os.LookupEnv, os.Getpid())
	if err != nil {
		fmt.Println("warning:", err)
	}
	_ = period // a ticker at notify.Interval(period) sends WATCHDOG=1 while liveness holds

	// --notify: the app's own socket; the app's env gets Env() after StripEnv.
	self := os.Getpid()
	in, err := notify.Listen(notify.Options{Parent: os.TempDir(), Allow: func(pid int) bool { return pid != self }})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer in.Close()
	env := append(notify.StripEnv([]string{"PATH=/bin", "NOTIFY_SOCKET=/run/outer"}), in.Env())
	fmt.Println(len(env))

	var st notify.State
	_ = out.Send("STATUS=waiting for post-start")
	select {
	case m := <-in.C: // in the loop's select, beside signals and exits
		st.Apply(m, time.Now())
	default:
	}
	if st.Ready {
		_ = out.Send("READY=1\nSTATUS=ready")
	}
	// Output: 2
}
