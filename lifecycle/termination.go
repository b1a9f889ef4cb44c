package lifecycle

import (
	"errors"
	"log/slog"

	"github.com/tend-init/tend/logger"
	"github.com/tend-init/tend/termination"
)

// writeTerminationMessage writes why tend decided the outcome to the
// termination-message file (package termination), and logs the outcome: a
// refusal (something the app planted, a failed or stalled write) as a
// warning, the rest as information.
func (l *Loop) writeTerminationMessage(why string) {
	path := l.cfg.TerminationMessagePath
	if path == "" {
		return
	}
	err := termination.Write(path, why)
	fields := l.log.With(slog.String("path", path), logger.ErrField(err))
	var r *termination.Refusal
	switch {
	case err == nil:
		l.log.With(slog.String("path", path)).Debugf("termination message written to %s", path)
	case errors.As(err, &r):
		fields.Warnf("termination message not written to %s: %v", path, err)
	default:
		fields.Infof("termination message not written to %s: %v", path, err)
	}
}
