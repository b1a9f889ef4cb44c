package hooks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/tend-init/tend/reaper"
	"golang.org/x/sys/unix"
)

// Starter starts a process and delivers its exit; *reaper.Reaper is the one
// implementation in tend.
type Starter interface {
	Start(*exec.Cmd) (*reaper.Child, error)
}

// ErrTimeout marks a command killed at the hook timeout.
var ErrTimeout = errors.New("timed out")

// Run runs cmds one after another and stops at the first failure. Each
// command is bounded by timeout; cancelling ctx (a stop that overtakes a
// post-start, or the grace deadline) kills the running command's group.
// It returns nil when every command exited 0. The caller knows which hook
// it ran and how long it took; nothing travels through here and back.
func Run(ctx context.Context, s Starter, cmds []Command, env []string, timeout time.Duration) error {
	for i, c := range cmds {
		if err := runOne(ctx, s, c, env, timeout); err != nil {
			if len(cmds) > 1 {
				err = fmt.Errorf("command %d of %d (%s): %w", i+1, len(cmds), c, err)
			} else {
				err = fmt.Errorf("%s: %w", c, err)
			}
			return err
		}
	}
	return nil
}

func runOne(ctx context.Context, s Starter, c Command, env []string, timeout time.Duration) error {
	cmd, err := c.Cmd(env)
	if err != nil {
		return err
	}
	// stdin is an empty pipe rather than os/exec's /dev/null, which a
	// scratch image or a bare chroot may not have.
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	_ = w.Close() // the hook reads EOF at once
	cmd.Stdin = r
	child, err := s.Start(cmd)
	_ = r.Close() // the child has its own copy, if it started
	if err != nil {
		return err
	}
	defer child.Release()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var cause error
	select {
	case e := <-child.Done():
		if code := e.Code(); code != 0 {
			return fmt.Errorf("exit code %d", code)
		}
		return nil
	case <-timer.C:
		cause = fmt.Errorf("%w after %s", ErrTimeout, timeout)
	case <-ctx.Done():
		cause = context.Cause(ctx)
	}
	// The hook leads its own group; SignalGroup sends only while it is
	// unreaped, so the pgid still names exactly its tree.
	if err := child.SignalGroup(unix.SIGKILL); err != nil {
		cause = fmt.Errorf("%w (and %v)", cause, err)
	}
	<-child.Done()
	return cause
}
