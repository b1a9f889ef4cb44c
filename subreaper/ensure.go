package subreaper

import (
	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/reaper"
)

// Ensure sets the subreaper bit when set asks for it; otherwise, when tend
// is neither PID 1 nor a subreaper already and warn asks for it, it says
// where orphans go instead, as tini warns.
func Ensure(log *logger.Logger, set, pid1, warn bool) error {
	if set {
		return Set()
	}
	if pid1 {
		return nil
	}
	if is, err := Is(); err == nil && is {
		return nil // a wrapper set the bit and exec'd us
	}
	if !warn {
		return nil
	}
	if init := reaper.PID1Init(); init != "" {
		// A sidecar in a shared-PID pod: the pod's init reaps.
		log.Infof("tend is not PID 1 and not a child subreaper: orphans go to PID 1 (%s), an init that reaps them; tend's drain does not reach them (-s keeps them in tend's tree)", init)
		return nil
	}
	log.Warnf("tend is not PID 1 and not a child subreaper, so zombie reaping won't work: " +
		"orphans are re-parented elsewhere. Use -s or TINI_SUBREAPER, or run tend as PID 1")
	return nil
}
