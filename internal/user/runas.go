package user

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/tend-init/tend/internal/excerpt"
)

// RunAs makes cmd run as u (--user), with HOME set to u's home as gosu
// sets it; nil u leaves cmd as tend. cmd.Env nil means tend's own
// environment, as in os/exec.
func RunAs(cmd *exec.Cmd, u *User) {
	if u == nil {
		return
	}
	if c := u.Credential(); c != nil {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Credential = c
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	// The later value wins (the reaper resolves duplicates as os/exec).
	cmd.Env = append(append([]string{}, env...), "HOME="+u.Home)
}

// SwitchError names the user switch when the app's start failed with
// EPERM under --user: the child's setgroups, setgid or setuid (root
// without CAP_SETUID or CAP_SETGID: podman --cap-drop) fails with it
// before exec, which os/exec reports as the exec's own error, and "exec
// app failed: operation not permitted" would blame the program. nil for
// any other failure.
func SwitchError(u *User, err error) error {
	if u == nil || u.Unchanged || !errors.Is(err, syscall.EPERM) {
		return nil
	}
	return fmt.Errorf("--user %s: cannot switch to uid %d gid %d (setgroups, setgid, setuid): %v; tend runs as uid %d",
		excerpt.Quote(u.Spec), u.Uid, u.Gid, err, os.Geteuid())
}
