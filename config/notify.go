package config

import "github.com/tend-init/tend/plan"

// readNotify reads --notify, --notify-watchdog and --notify-pass (package
// notify; README, "Readiness over sd_notify").
func readNotify(cfg *plan.Config, v values) error {
	var err error
	if cfg.Notify, err = v.boolean("notify"); err != nil {
		return err
	}
	if cfg.NotifyPass, err = v.boolean("notify-pass"); err != nil {
		return err
	}
	if err := v.duration("notify-watchdog", &cfg.NotifyWatchdog); err != nil {
		return err
	}
	switch {
	case cfg.NotifyWatchdog > 0 && !cfg.Notify:
		// The watchdog is kept on tend's socket: without it, nothing
		// could ever feed it, and the app would be stopped at once.
		return usagef("--notify-watchdog needs --notify: the app's WATCHDOG=1 comes on the socket --notify gives it")
	case cfg.Notify && cfg.NotifyPass:
		// One NOTIFY_SOCKET per process: the app can have tend's or the
		// manager's, not both.
		return usagef("--notify and --notify-pass exclude each other: the app gets one NOTIFY_SOCKET, tend's (--notify) or the manager's (--notify-pass)")
	}
	return nil
}
