package lifecycle

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"syscall"

	"github.com/tend-init/tend/internal/excerpt"
)

// User is who the app, post-start, pre-stop and exec probes run as
// (--user); post-stop runs as tend itself, as it cleans up after them.
type User struct {
	Spec   string // as given, for messages
	Uid    uint32
	Gid    uint32
	Groups []uint32 // supplementary groups
	Home   string   // HOME for what runs as the user, as gosu sets it
}

// LookupUser resolves USER[:GROUP], each a name or a number, from the
// container's own /etc/passwd and /etc/group (os/user reads them itself
// in a static build: no cgo, no NSS), as gosu and su-exec do:
//   - a name must be in /etc/passwd; its primary group, its home and the
//     groups that list it in /etc/group come with it;
//   - a number need not be (a scratch image has no passwd file): then the
//     group is tend's own unless given, and HOME is /;
//   - with :GROUP, that group is the primary and the only one.
func LookupUser(spec string) (*User, error) {
	name, group, hasGroup := strings.Cut(spec, ":")
	if name == "" || (hasGroup && group == "") {
		return nil, fmt.Errorf("--user %s: want USER or USER:GROUP", excerpt.Quote(spec))
	}
	u := &User{Spec: spec, Gid: uint32(os.Getgid()), Home: "/"}
	pw, err := user.Lookup(name)
	if err != nil {
		pw, err = user.LookupId(name)
	}
	switch {
	case err == nil:
		uid, _ := strconv.ParseUint(pw.Uid, 10, 32) // os/user parsed it already
		gid, _ := strconv.ParseUint(pw.Gid, 10, 32)
		u.Uid, u.Gid, u.Home = uint32(uid), uint32(gid), pw.HomeDir
		if !hasGroup {
			ids, err := pw.GroupIds()
			if err != nil {
				return nil, fmt.Errorf("--user %s: the groups of %s: %v", excerpt.Quote(spec), pw.Username, err)
			}
			for _, id := range ids {
				if g, err := strconv.ParseUint(id, 10, 32); err == nil && uint32(g) != u.Gid {
					u.Groups = append(u.Groups, uint32(g))
				}
			}
		}
	default:
		n, perr := strconv.ParseUint(name, 10, 32)
		if perr != nil {
			return nil, fmt.Errorf("--user %s: no user %s in /etc/passwd", excerpt.Quote(spec), excerpt.Quote(name))
		}
		u.Uid = uint32(n)
	}
	if hasGroup {
		gid, err := lookupGroup(group)
		if err != nil {
			return nil, fmt.Errorf("--user %s: %v", excerpt.Quote(spec), err)
		}
		u.Gid, u.Groups = gid, nil
	}
	if u.Home == "" {
		u.Home = "/"
	}
	return u, nil
}

func lookupGroup(g string) (uint32, error) {
	if gr, err := user.LookupGroup(g); err == nil {
		n, _ := strconv.ParseUint(gr.Gid, 10, 32) // os/user parsed it already
		return uint32(n), nil
	}
	n, err := strconv.ParseUint(g, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("no group %s in /etc/group", excerpt.Quote(g))
	}
	return uint32(n), nil
}

// CheckSwitch reports whether tend can start processes as u: changing to
// another user needs root (CAP_SETUID and CAP_SETGID).
func (u *User) CheckSwitch() error {
	if os.Geteuid() != 0 && (u.Uid != uint32(os.Geteuid()) || u.Gid != uint32(os.Getegid())) {
		return fmt.Errorf("--user %s: tend runs as uid %d, not root, so it cannot start the app as another user", excerpt.Quote(u.Spec), os.Geteuid())
	}
	return nil
}

// apply makes cmd run as u, with HOME set to u's home (cmd.Env nil means
// tend's own environment, as in os/exec).
func (u *User) apply(cmd *exec.Cmd) {
	if u == nil {
		return
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: u.Uid, Gid: u.Gid, Groups: append([]uint32{}, u.Groups...)}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	// The later value wins (the reaper resolves duplicates as os/exec).
	cmd.Env = append(append([]string{}, env...), "HOME="+u.Home)
}
