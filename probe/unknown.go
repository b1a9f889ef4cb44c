package probe

import (
	"errors"

	"github.com/tend-init/tend/internal/excerpt"
	"golang.org/x/sys/unix"
)

// ErrUnknown marks an attempt that tend could not make for want of its own
// resources (file descriptors, processes, memory): the kubelet's "Unknown"
// result. It says nothing about the target, so it must never count as a
// failure: 300 idle connections to the health port under `ulimit -n 256`
// once made the liveness probe fail with EMFILE, and tend stopped a healthy
// app.
var ErrUnknown = errors.New("the probe could not be run")

type unknownError struct{ msg string }

func (e unknownError) Error() string        { return "could not run the probe: " + e.msg }
func (e unknownError) Is(target error) bool { return target == ErrUnknown }

// classify turns a resource error of tend's own into ErrUnknown, and any
// other error into its one-line form.
func classify(err error) error {
	if err == nil {
		return nil
	}
	for _, e := range []error{unix.EMFILE, unix.ENFILE, unix.EAGAIN, unix.ENOMEM, unix.ENOBUFS} {
		if errors.Is(err, e) {
			return unknownError{msg: excerpt.Escape(err.Error())}
		}
	}
	return err
}
