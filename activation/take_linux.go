package activation

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Take marks the offered descriptors close-on-exec, as sd_listen_fds does,
// so that no hook or probe tend starts inherits them, and returns them as
// files for the app's start. It checks first that every one is open, and
// takes none when one is not (sd_listen_fds fails on the first it cannot
// mark; nothing is marked here in that case). os.NewFile leaves a socket's
// blocking mode as the sender set it: Fd does not switch a descriptor that
// NewFile found non-blocking back to blocking.
func Take(o Offer) ([]*os.File, error) {
	for fd := FirstFd; fd < FirstFd+o.N; fd++ {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
			return nil, fmt.Errorf("%s=%d but descriptor %d: %w", EnvFds, o.N, fd, err)
		}
	}
	names := strings.Split(o.Names, ":")
	files := make([]*os.File, 0, o.N)
	for i := range o.N {
		fd := FirstFd + i
		unix.CloseOnExec(fd)
		name := "listen-fd-" + strconv.Itoa(fd)
		if i < len(names) && names[i] != "" {
			name = names[i]
		}
		files = append(files, os.NewFile(uintptr(fd), name))
	}
	return files, nil
}

// pidfsMagic is PID_FS_MAGIC (linux/magic.h): pidfds live on pidfs since
// Linux 6.9, where a pidfd's inode number names its process for good.
const pidfsMagic = 0x50494446

// OwnPidfdID is the inode number of a pidfd for the calling process, which
// LISTEN_PIDFDID names; false where pidfds are not on pidfs (an older
// kernel: inode numbers there are shared) or cannot be opened. systemd's
// pidfd_get_inode_id does the same checks.
func OwnPidfdID() (uint64, bool) {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return 0, false
	}
	defer func() { _ = unix.Close(fd) }() // a pidfd: closing cannot fail but with EBADF
	var fs unix.Statfs_t
	if unix.Fstatfs(fd, &fs) != nil || fs.Type != pidfsMagic {
		return 0, false
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return 0, false
	}
	return st.Ino, true
}
