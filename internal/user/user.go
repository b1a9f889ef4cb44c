// Package user resolves --user USER[:GROUP] from the container's own
// /etc/passwd and /etc/group into the ids tend starts processes with.
//
// Its result decides privileges, so it reads both files itself, with
// bounds (file.go), and never turns a field it cannot read into an id: an
// id that reaches setuid, setgid or setgroups comes from ParseID, in
// 0..4294967294. It does not use os/user, whose pure-Go reader had no
// bound on a line, and whose ids tend parsed again with the error dropped
// (an entry "neg:x:-2:-2" made --user neg run as root).
package user

import (
	"fmt"
	"os"
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
	// Unchanged: tend is not root and already runs as Uid and Gid
	// (CheckSwitch), so processes start as tend, without setuid, setgid
	// or setgroups, which only root may call: `USER www-data` with
	// --user www-data, or OpenShift's arbitrary uid given as a number.
	Unchanged bool
}

// ParseID reads a uid or gid, from the command line or a passwd or group
// field: plain decimal digits, no sign, no leading zero, 0..4294967294.
// 4294967295 is (uid_t)-1, which setresuid(2) reads as "leave unchanged"
// and the kernel refuses as an id. Strict on purpose: strtoul and gosu read
// "-2" as 4294967294, and a ParseUint whose error was dropped read it as 0;
// "+0" or "00" is not how anyone writes root, so only "0" means uid 0.
func ParseID(s string) (uint32, error) {
	bad := len(s) == 0 || len(s) > 1 && s[0] == '0'
	for i := 0; i < len(s) && !bad; i++ {
		bad = s[i] < '0' || s[i] > '9'
	}
	if bad {
		return 0, fmt.Errorf("%s is not an id: want 0..4294967294 in plain decimal digits", excerpt.Quote(s))
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n > 4294967294 {
		return 0, fmt.Errorf("%s is out of range: want 0..4294967294", excerpt.Quote(s))
	}
	return uint32(n), nil
}

// maxGroups is NGROUPS_MAX on Linux since 2.6.4: setgroups(2) refuses
// more with EINVAL, which would fail every start of the app.
const maxGroups = 65536

// LookupUser resolves USER[:GROUP], each a name or a number, from the
// container's own /etc/passwd and /etc/group (no cgo, no NSS), as gosu and
// su-exec do:
//   - a name must be in /etc/passwd; its primary group, its home and the
//     groups that list it in /etc/group come with it;
//   - a number need not be (a scratch image has no passwd file): then the
//     group is tend's own unless given, and HOME is /;
//   - with :GROUP, that group is the primary and the only one.
//
// A number is plain decimal digits (ParseID). The entry that matches, and
// every group that lists the user, must have ids that ParseID reads, or it
// is an error naming the entry: a privilege drop never falls back to an id
// that was not written. Other malformed lines are skipped, as glibc and
// os/user skip them.
func LookupUser(spec string) (*User, error) {
	f := files{passwd: "/etc/passwd", group: "/etc/group", maxLine: maxLine, maxTotal: maxTotal}
	u, err := f.lookup(spec)
	if err != nil {
		return nil, fmt.Errorf("--user %s: %w", excerpt.Quote(spec), err)
	}
	return u, nil
}

func (f files) lookup(spec string) (*User, error) {
	name, group, hasGroup := strings.Cut(spec, ":")
	if name == "" || (hasGroup && group == "") {
		return nil, fmt.Errorf("want USER or USER:GROUP")
	}
	u := &User{Spec: spec, Gid: uint32(os.Getgid()), Home: "/"}
	pw, err := f.find(f.passwd, 7, 0, name)
	if err != nil {
		return nil, err
	}
	if pw == nil {
		uid, perr := ParseID(name)
		if perr != nil {
			return nil, fmt.Errorf("no user %s in /etc/passwd%s", excerpt.Quote(name), numeric(name, perr))
		}
		if pw, err = f.find(f.passwd, 7, 2, name); err != nil {
			return nil, err
		}
		u.Uid = uid
	}
	if pw != nil {
		if u.Uid, err = pw.id(2, "uid"); err != nil {
			return nil, err
		}
		if u.Gid, err = pw.id(3, "gid"); err != nil {
			return nil, err
		}
		if err = pw.need(7); err != nil {
			return nil, err
		}
		if pw.fields[5] != "" {
			u.Home = pw.fields[5]
		}
		if !hasGroup {
			if u.Groups, err = f.groupsOf(pw.fields[0], u.Gid); err != nil {
				return nil, err
			}
		}
	}
	if hasGroup {
		gr, err := f.find(f.group, 4, 0, group)
		if err != nil {
			return nil, err
		}
		if gr != nil {
			if u.Gid, err = gr.id(2, "gid"); err == nil {
				err = gr.need(4)
			}
		} else if u.Gid, err = ParseID(group); err != nil {
			err = fmt.Errorf("no group %s in /etc/group%s", excerpt.Quote(group), numeric(group, err))
		}
		if err != nil {
			return nil, err
		}
		u.Groups = nil
	}
	return u, nil
}

// numeric explains, for a value that looks like a number, why it is not
// read as one.
func numeric(s string, err error) string {
	if c := s[0]; c == '+' || c == '-' || c >= '0' && c <= '9' {
		return ", and " + err.Error()
	}
	return ""
}

// entry is the line of a passwd or group file that matched.
type entry struct {
	path   string
	line   int
	fields []string
}

// id reads field i of e as an id, or names the entry and the field.
func (e *entry) id(i int, what string) (uint32, error) {
	if i >= len(e.fields) {
		return 0, e.errorf("no %s field", what)
	}
	n, err := ParseID(e.fields[i])
	if err != nil {
		return 0, e.errorf("%s %v", what, err)
	}
	return n, nil
}

// need reports an entry with fewer than n fields.
func (e *entry) need(n int) error {
	if len(e.fields) < n {
		return e.errorf("%d fields, want %d", len(e.fields), n)
	}
	return nil
}

func (e *entry) errorf(format string, a ...any) error {
	return fmt.Errorf("%s line %d, entry %s: %s", e.path, e.line, excerpt.Quote(e.fields[0]), fmt.Sprintf(format, a...))
}

// find returns the first line of the file at path, split in at most n
// fields, whose field idx is value; nil if none (or if there is no file).
// Lines whose name is empty or a NIS "+name"/"-name" are skipped, as glibc
// and os/user do. The line that matches is returned even when it is short
// (need), so that the caller names it rather than skipping to another.
func (f files) find(path string, n, idx int, value string) (*entry, error) {
	var e *entry
	err := each(path, f.maxLine, f.maxTotal, func(ln int, line []byte) (bool, error) {
		parts := strings.SplitN(string(line), ":", n)
		if len(parts) <= idx || parts[idx] != value || !isName(parts[0]) {
			return false, nil
		}
		e = &entry{path: path, line: ln, fields: parts}
		return true, nil
	})
	if err == errNoFile {
		return nil, nil
	}
	return e, err
}

func isName(s string) bool { return s != "" && s[0] != '+' && s[0] != '-' }

// groupsOf returns the gids of the groups that list name as a member,
// but primary, as os/user's GroupIds (listgroups_unix.go). A group that
// lists name with a gid ParseID refuses is an error, not a skip: dropping
// a group can grant access as well as deny it (a file mode such as 0604
// denies its group), so the groups are all or nothing.
func (f files) groupsOf(name string, primary uint32) ([]uint32, error) {
	var gids []uint32
	err := each(f.group, f.maxLine, f.maxTotal, func(ln int, line []byte) (bool, error) {
		parts := strings.Split(string(line), ":")
		if len(parts) != 4 || !isName(parts[0]) || !member(parts[3], name) {
			return false, nil
		}
		e := &entry{path: f.group, line: ln, fields: parts}
		gid, err := e.id(2, "gid")
		if err != nil {
			return true, err
		}
		if gid != primary {
			gids = append(gids, gid)
		}
		if len(gids) > maxGroups {
			return true, fmt.Errorf("%s: %s is in more than %d groups", f.group, excerpt.Quote(name), maxGroups)
		}
		return false, nil
	})
	if err == errNoFile {
		// As os/user did: a named user's groups are part of who it is.
		return nil, fmt.Errorf("the groups of %s: no %s", excerpt.Quote(name), f.group)
	}
	return gids, err
}

func member(list, name string) bool {
	for _, m := range strings.Split(list, ",") {
		if m == name {
			return true
		}
	}
	return false
}

// CheckSwitch reports whether tend can start processes as u: changing to
// another user needs root (CAP_SETUID and CAP_SETGID). Not root, tend
// runs them as itself when u is who it already is (uid and gid), as the
// `if [ "$(id -u)" = 0 ]; then exec gosu ...` entrypoints do, and marks u
// Unchanged; asked for anyone else, it refuses here, before anything
// starts, rather than fail each start.
func (u *User) CheckSwitch() error {
	return u.checkSwitch(uint32(os.Geteuid()), uint32(os.Getegid()))
}

func (u *User) checkSwitch(euid, egid uint32) error {
	switch {
	case euid == 0:
		return nil
	case u.Uid == euid && u.Gid == egid:
		u.Unchanged = true
		return nil
	}
	return fmt.Errorf("--user %s: cannot switch to uid %d gid %d: tend runs as uid %d gid %d, not root "+
		"(run the container as root, or ask for uid %d)", excerpt.Quote(u.Spec), u.Uid, u.Gid, euid, egid, euid)
}

// Credential is u as a process credential; its Groups are a copy, and
// empty means none (setgroups with an empty list), never tend's own. nil
// when u is Unchanged: no switch at all.
func (u *User) Credential() *syscall.Credential {
	if u.Unchanged {
		return nil
	}
	return &syscall.Credential{Uid: u.Uid, Gid: u.Gid, Groups: append([]uint32{}, u.Groups...)}
}
