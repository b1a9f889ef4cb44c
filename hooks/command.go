// Package hooks runs tend's lifecycle hooks (post-start, pre-stop,
// post-stop) with Kubernetes semantics. Hook processes are started and
// collected through the reaper, never through cmd.Wait, and each runs in its
// own process group so that a timeout kills everything it started.
package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"

	"github.com/tend-init/tend/internal/excerpt"
)

// Command is one hook command: either a shell string run as
// /bin/sh -c VALUE, or an exec-form argv run directly, for images that have
// no shell.
type Command struct {
	Shell string   // shell form; empty for exec form
	Argv  []string // exec form; nil for shell form
}

// Parse reads a hook value. A value that starts with "[" must be a JSON
// array of strings with a non-empty first element; anything else that is
// not blank is a shell command. Its errors quote only an excerpt of s
// (internal/excerpt): a value can be any size and hold any bytes.
func Parse(s string) (Command, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return Command{}, errors.New("empty hook command")
	}
	if !strings.HasPrefix(t, "[") {
		return Command{Shell: s}, nil
	}
	var argv []string
	if err := json.Unmarshal([]byte(t), &argv); err != nil {
		return Command{}, fmt.Errorf("hook %s is not a JSON array of strings: %v", excerpt.Quote(s), err)
	}
	if len(argv) == 0 || argv[0] == "" {
		return Command{}, fmt.Errorf("hook %s has an empty program", excerpt.Quote(s))
	}
	return Command{Argv: argv}, nil
}

// String renders the command for logs.
func (c Command) String() string {
	if c.Argv != nil {
		b, err := json.Marshal(c.Argv)
		if err != nil { // []string always marshals
			return strings.Join(c.Argv, " ")
		}
		return string(b)
	}
	return c.Shell
}

// Cmd builds the process for this command, in a new process group so a
// timeout can kill the hook's whole tree. Its stdio is left unset: Run
// gives it an empty stdin, and stdout and stderr pipes that tend drains
// (Relay passes a hook's output on to tend's own; Probe keeps a probe's).
func (c Command) Cmd(env []string) (*exec.Cmd, error) {
	argv := c.Argv
	if argv == nil {
		argv = []string{"/bin/sh", "-c", c.Shell}
	}
	path, err := exec.LookPath(argv[0])
	if errors.Is(err, exec.ErrDot) {
		err = nil // execvp semantics, as for the app
	}
	if err != nil {
		return nil, err
	}
	return &exec.Cmd{
		Path:        path,
		Args:        argv,
		Env:         env,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}, nil
}
