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

// Runner runs hook actions.
type Runner struct {
	Starter Starter  // starts and collects commands: the reaper
	Env     []string // the environment of commands
	// Get makes an HTTPGet action's request and returns nil on any HTTP
	// response. It is given, not built in: the HTTP client lives in
	// probe/, which itself runs commands through this package.
	Get     func(ctx context.Context, h HTTPGet) error
	Timeout time.Duration // bounds each action
}

// Run runs cmds one after another and stops at the first failure. Each
// command is bounded by timeout; cancelling ctx (a stop that overtakes a
// post-start, or the grace deadline) kills the running command's group.
func Run(ctx context.Context, s Starter, cmds []Command, env []string, timeout time.Duration) error {
	acts := make([]Action, len(cmds))
	for i, c := range cmds {
		acts[i] = c
	}
	return Runner{Starter: s, Env: env, Timeout: timeout}.Run(ctx, acts)
}

// Run runs acts in order and stops at the first failure, with the same
// bounds as the package-level Run. It returns nil when every action
// succeeded; the caller knows which hook it ran and how long it took.
func (r Runner) Run(ctx context.Context, acts []Action) error {
	for i, a := range acts {
		if err := r.runOne(ctx, a); err != nil {
			if len(acts) > 1 {
				return fmt.Errorf("action %d of %d (%s): %w", i+1, len(acts), a, err)
			}
			return fmt.Errorf("%s: %w", a, err)
		}
	}
	return nil
}

func (r Runner) runOne(ctx context.Context, a Action) error {
	switch a := a.(type) {
	case Command:
		return runCommand(ctx, r.Starter, a, r.Env, r.Timeout)
	case Sleep:
		// Cut by ctx (the grace deadline, which then counts as failed, as
		// the kubelet's sleep handler) and by the hook timeout.
		t := time.NewTimer(min(a.D, r.Timeout))
		defer t.Stop()
		select {
		case <-t.C:
			if a.D > r.Timeout {
				return fmt.Errorf("%w after %s", ErrTimeout, r.Timeout)
			}
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	case HTTPGet:
		if r.Get == nil {
			return errors.New("no HTTP client")
		}
		ctx, cancel := context.WithTimeoutCause(ctx, r.Timeout, fmt.Errorf("%w after %s", ErrTimeout, r.Timeout))
		defer cancel()
		return r.Get(ctx, a)
	}
	return fmt.Errorf("unknown action %T", a)
}

func runCommand(ctx context.Context, s Starter, c Command, env []string, timeout time.Duration) error {
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
