package hooks

import (
	"os/exec"

	"github.com/tend-init/tend/internal/user"
	"github.com/tend-init/tend/reaper"
)

// ChildStarter starts hooks and exec probes through the reaper, as As
// (--user) when set, in Dir when the command names none, and with the
// signal dispositions tend inherited, not the ones it set for its own
// survival after the app started (Fork: signals.Channels.ForChild).
type ChildStarter struct {
	Reaper *reaper.Reaper
	Fork   func(start func())
	As     *user.User
	Dir    string // "" but with ChdirRoot, once tend itself is in /
}

func (s ChildStarter) Start(cmd *exec.Cmd) (c *reaper.Child, err error) {
	user.RunAs(cmd, s.As)
	if cmd.Dir == "" {
		cmd.Dir = s.Dir
	}
	s.Fork(func() { c, err = s.Reaper.Start(cmd) })
	return c, err
}
