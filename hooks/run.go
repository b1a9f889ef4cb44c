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

// Starter starts a process and delivers its exit; ChildStarter, over the
// reaper, is tend's.
type Starter interface {
	Start(*exec.Cmd) (*reaper.Child, error)
}

// ErrTimeout marks a command killed at the hook timeout.
var ErrTimeout = errors.New("timed out")

// Runner runs hook actions.
type Runner struct {
	Starter Starter  // starts and collects commands: the reaper
	Env     []string // the environment of commands
	// Get makes an HTTPGet action's request (h.Request) and returns the
	// status of any HTTP response; the Runner judges it. It is given, not
	// built in (HTTPClient builds tend's), so that tests need no server.
	Get     func(ctx context.Context, h HTTPGet) (int, error)
	Timeout time.Duration // bounds each action
	// Out passes commands' stdout and stderr on to tend's own; nil
	// discards them. Either way a command writes into a pipe that tend
	// drains, never into tend's stdout itself.
	Out *Relay
}

// Run runs cmds one after another and stops at the first failure, and
// discards their output. Each command is bounded by timeout; cancelling ctx
// (a stop that overtakes a post-start, or the grace deadline) kills the
// running command and its group.
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
		return runCommand(ctx, r.Starter, a, r.Env, r.Timeout, r.hookOutput())
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
		code, err := r.Get(ctx, a)
		if err == nil && a.Method == "POST" && (code < 200 || code > 399) {
			err = fmt.Errorf("status %d", code)
		}
		return err
	}
	return fmt.Errorf("unknown action %T", a)
}

// flushWait bounds how long a hook's result waits, once its command has
// exited, for the Relay to have written the command's output: long enough
// for a stream that moves, short enough that a stuck one costs a stop
// almost nothing. Never past the hook's own deadline.
const flushWait = 500 * time.Millisecond

// output says where a run's stdout and stderr go.
type output struct {
	stdout, stderr sink // stderr nil: stdout's pipe takes both
	// follow keeps a pipe read after the command is over, for as long as
	// a process it started holds it (hooks); otherwise it is closed.
	follow bool
	relay  *Relay // flushed once the command has exited; nil: none
}

// hookOutput relays a hook's stdout and stderr to tend's own, or discards
// them when there is no Relay.
func (r Runner) hookOutput() output {
	if r.Out == nil {
		return output{stdout: discard{}, stderr: discard{}, follow: true}
	}
	return output{stdout: stream{r.Out, 0}, stderr: stream{r.Out, 1}, follow: true, relay: r.Out}
}

func (o output) open() ([]*pipe, error) {
	out, err := newPipe(o.stdout)
	if err != nil {
		return nil, err
	}
	if o.stderr == nil {
		return []*pipe{out}, nil
	}
	errp, err := newPipe(o.stderr)
	if err != nil {
		_ = out.r.Close() // unused pipe
		_ = out.w.Close()
		return nil, err
	}
	return []*pipe{out, errp}, nil
}

// end finishes each pipe without waiting for its writers, then gives the
// Relay until flushBy (zero: no time) to write what was read.
func (o output) end(pipes []*pipe, flushBy time.Time) {
	for _, p := range pipes {
		if eof := p.finish(); !eof && o.follow {
			p.follow()
		} else {
			_ = p.r.Close() // the read end; nothing to report
		}
	}
	if o.relay != nil && !flushBy.IsZero() {
		o.relay.Flush(flushBy)
	}
}

// Probe runs c once as an exec probe, bounded as a hook command is, and
// returns what it wrote: stdout and stderr together, as the kubelet's exec
// prober gives both to one LimitWriter (pkg/probe/exec). The output is
// never passed on to tend's stdout.
func Probe(ctx context.Context, s Starter, c Command, env []string, timeout time.Duration) (Output, error) {
	var out Output
	err := runCommand(ctx, s, c, env, timeout, output{stdout: &out})
	return out, err
}

func runCommand(ctx context.Context, s Starter, c Command, env []string, timeout time.Duration, o output) error {
	// The latest a result may come: the timeout, or ctx's deadline (the
	// grace period cutting a pre-stop) when that is earlier.
	deadline := time.Now().Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	child, pipes, err := startCommand(s, c, env, o)
	if err != nil {
		return err
	}
	defer child.Release()
	// The timer is the timeout's alone, so that a deadline of ctx's is
	// reported as its own cause (context.Cause), not as a timeout.
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var cause error
	select {
	case e := <-child.Done():
		flushBy := time.Now().Add(flushWait)
		if deadline.Before(flushBy) {
			flushBy = deadline
		}
		o.end(pipes, flushBy)
		if code := e.Code(); code != 0 {
			return fmt.Errorf("exit code %d", code)
		}
		return nil
	case <-timer.C:
		cause = fmt.Errorf("%w after %s", ErrTimeout, timeout)
	case <-ctx.Done():
		cause = context.Cause(ctx)
	}
	cause = kill(child, cause)
	o.end(pipes, time.Time{})
	return cause
}

// startCommand starts c with its output going to o's pipes, which it
// starts reading, and an empty stdin.
func startCommand(s Starter, c Command, env []string, o output) (*reaper.Child, []*pipe, error) {
	cmd, err := c.Cmd(env)
	if err != nil {
		return nil, nil, err
	}
	pipes, err := o.open()
	if err != nil {
		return nil, nil, err
	}
	// stdin is an empty pipe rather than os/exec's /dev/null, which a
	// scratch image or a bare chroot may not have.
	r, w, err := os.Pipe()
	if err != nil {
		for _, p := range pipes {
			_ = p.r.Close() // never used
			_ = p.w.Close()
		}
		return nil, nil, err
	}
	_ = w.Close() // the command reads EOF at once
	cmd.Stdin = r
	cmd.Stdout, cmd.Stderr = pipes[0].w, pipes[len(pipes)-1].w
	child, err := s.Start(cmd)
	_ = r.Close() // the child has its own copies, if it started
	for _, p := range pipes {
		_ = p.w.Close() // so the read end sees EOF once the command's tree is done
	}
	if err != nil {
		for _, p := range pipes {
			_ = p.r.Close() // never read
		}
		return nil, nil, err
	}
	for _, p := range pipes {
		p.start()
	}
	return child, pipes, nil
}

// kill ends a command at its deadline: the attempt is over, whatever the
// process does. It may ignore TERM and have moved itself into another
// process group (setpgid), where a kill of its own group no longer reaches
// it: so it is killed through its pidfd as well as with its group, which
// holds what it started. SignalGroup sends only while the command is
// unreaped, so the pgid still names its group. The attempt is reported
// now, collected or not (a process in uninterruptible sleep dies late):
// the reaper still collects it, its exit lands in Done's buffer, which
// nobody reads any more, and Release has closed its pidfd by then. It
// returns cause with any failure to signal added.
func kill(child *reaper.Child, cause error) error {
	if err := child.SignalGroup(unix.SIGKILL); err != nil {
		cause = fmt.Errorf("%w (and %v)", cause, err)
	}
	if err := child.Signal(unix.SIGKILL); err != nil {
		cause = fmt.Errorf("%w (and %v)", cause, err)
	}
	return cause
}
