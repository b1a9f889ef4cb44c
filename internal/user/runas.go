package user

import (
	"os"
	"os/exec"
	"syscall"
)

// RunAs makes cmd run as u (--user), with HOME set to u's home as gosu
// sets it; nil u leaves cmd as tend. cmd.Env nil means tend's own
// environment, as in os/exec.
func RunAs(cmd *exec.Cmd, u *User) {
	if u == nil {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = u.Credential()
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	// The later value wins (the reaper resolves duplicates as os/exec).
	cmd.Env = append(append([]string{}, env...), "HOME="+u.Home)
}
