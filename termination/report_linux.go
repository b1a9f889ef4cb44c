package termination

import (
	"errors"
	"log/slog"

	"github.com/tend-init/tend/logger"
)

// Report writes why to the termination-message file at path (Write), if
// there is one, and logs the outcome: a refusal (something the app
// planted, a failed or stalled write) as a warning, the rest as
// information.
func Report(log *logger.Logger, path, why string) {
	if path == "" {
		return
	}
	err := Write(path, why)
	if err == nil {
		log.With(slog.String("path", path)).Debugf("termination message written to %s", path)
		return
	}
	fields := log.With(slog.String("path", path), logger.ErrField(err))
	var r *Refusal
	switch {
	case errors.As(err, &r):
		fields.Warnf("termination message not written to %s: %v", path, err)
	default:
		fields.Infof("termination message not written to %s: %v", path, err)
	}
}
