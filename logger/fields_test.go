package logger

import (
	"errors"
	"log/slog"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestFields: each shared field has its one key and its value's form.
func TestFields(t *testing.T) {
	for _, c := range []struct {
		got  slog.Attr
		want string
	}{
		{SignalField(unix.SIGTERM), "signal=SIGTERM"},
		{DurationField(1500 * time.Millisecond), "duration=1.5s"},
		{AppPidField(42), "app_pid=42"},
		{ErrField(errors.New("boom")), "error=boom"},
		{ErrField(nil), "error="},
	} {
		if c.got.String() != c.want {
			t.Errorf("got %s, want %s", c.got, c.want)
		}
	}
}
