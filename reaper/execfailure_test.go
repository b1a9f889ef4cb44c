package reaper

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// TestExecFailure: a failure to run the program gives the mode's line with
// glibc's wording; any other error is not that failure.
func TestExecFailure(t *testing.T) {
	const format = "[dumb-init] %[1]s: %[2]s\n"
	for _, c := range []struct {
		err  error
		line string
		ok   bool
	}{
		{&ExecError{Prog: "nope", Code: 127, Err: unix.ENOENT}, "[dumb-init] nope: No such file or directory\n", true},
		{&ExecError{Prog: "/etc", Code: 126, Err: unix.EACCES}, "[dumb-init] /etc: Permission denied\n", true},
		{&ExecError{Prog: "x", Code: 1, Err: errors.New("odd")}, "[dumb-init] x: No such file or directory\n", true},
		{errors.New("listen: address in use"), "", false},
	} {
		line, ok := ExecFailure(c.err, format)
		if line != c.line || ok != c.ok {
			t.Errorf("%v: got %q, %v; want %q, %v", c.err, line, ok, c.line, c.ok)
		}
	}
}
