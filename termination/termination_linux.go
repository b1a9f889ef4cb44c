package termination

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/internal/filetype"
	"golang.org/x/sys/unix"
)

// maxTerminationMessage is the most the kubelet reads of the file:
// getTerminationMessage in pkg/kubelet/kuberuntime/kuberuntime_container.go
// reads it with tail.ReadAtMost(path, MaxContainerTerminationMessageLength),
// and pkg/kubelet/container/runtime.go sets that to 1024 * 4. A longer
// message would lose its beginning.
const maxTerminationMessage = 4096

// Bound is the longest tend waits for the write: whatever sits at the
// path (a hung network file system, a FUSE file served by the app), tend
// exits with the code it decided. A plain file takes microseconds.
var Bound = time.Second

// Write writes why to the termination-message file at path, for `kubectl
// describe pod` and the container status. It returns a *Refusal when what
// sits at the path is not a place tend will write, or the write failed or
// stalled; other errors (the app's own message, no such directory) are
// ordinary.
//
// The app may have planted anything at the path, and tend is root, so it
// writes only to a regular file at exactly that path (writeTermination):
// never through a symbolic link, never to a FIFO, socket, device, or a
// /proc or /sys file, never into a file that the app already wrote (its
// own message wins, as in Kubernetes), and it creates only a new file, in
// a directory that exists. The text is tend's (escaped and capped), and the
// whole attempt is bounded by Bound.
func Write(path, why string) error {
	msg := terminationText(why)
	done := make(chan error, 1) // the writer never blocks on a caller that has left
	write := terminationWrite
	go func() { done <- write(path, msg) }()
	t := time.NewTimer(Bound)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		// The writer goroutine is left in its system call; tend is
		// about to exit, which ends it.
		return refused("no answer within %s", Bound)
	}
}

// terminationText is what tend writes: its reason, escaped as log lines are
// (it may quote a probe peer's body) and cut to the kubelet's limit at a
// whole character, with "..." to show the cut.
func terminationText(why string) []byte {
	b, all := excerpt.AppendEscaped(make([]byte, 0, min(len(why), maxTerminationMessage)), why, maxTerminationMessage)
	if all {
		return b
	}
	b, _ = excerpt.AppendEscaped(b[:0], why, maxTerminationMessage-len("..."))
	return append(b, "..."...)
}

// Refusal is what sits at the path when tend will not write to it, or a
// write that failed or stalled: a warning. Other outcomes (the app's own
// message, no such directory, a read-only file system) are ordinary and
// logged as information.
type Refusal struct{ why string }

func (r *Refusal) Error() string { return r.why }

func refused(format string, args ...any) error {
	return &Refusal{fmt.Sprintf(format, args...)}
}

// terminationWrite is writeTermination; a test replaces it to stall.
var terminationWrite = writeTermination

// writeTermination opens path without following a link in any component,
// without blocking and without becoming tend's terminal, checks what it
// opened, and writes msg only into a regular, empty file of a real file
// system. A missing file is created as a new one (O_EXCL: never through
// a link planted meanwhile).
func writeTermination(path string, msg []byte) error {
	const open = unix.O_WRONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC
	fd, err := openNoLinks(path, open, 0)
	if errors.Is(err, unix.ENOENT) {
		fd, err = openNoLinks(path, open|unix.O_CREAT|unix.O_EXCL, 0o644)
		if errors.Is(err, unix.ENOENT) {
			return errors.New("its directory does not exist")
		}
	}
	switch {
	case errors.Is(err, unix.ELOOP):
		return refused("the path is, or goes through, a symbolic link")
	case errors.Is(err, unix.ENXIO):
		return refused("a FIFO or socket")
	case errors.Is(err, unix.EEXIST):
		return refused("something appeared at the path while tend created the file")
	case err != nil:
		return err
	}
	defer func() { _ = unix.Close(fd) }() // written or refused: nothing left to report
	if err := checkTerminationFile(fd); err != nil {
		return err
	}
	for len(msg) > 0 {
		n, err := unix.Write(fd, msg)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return refused("write: %v", err)
		}
		msg = msg[n:]
	}
	return nil
}

// checkTerminationFile accepts only a regular file that is empty, has one
// link (a hard link to another file would write there too), and is not on
// a pseudo file system: a /proc or /sys file is a regular file of size 0,
// and writing to it changes the system.
func checkTerminationFile(fd int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return refused("fstat: %v", err)
	}
	if t := st.Mode & unix.S_IFMT; t != unix.S_IFREG {
		return refused("not a regular file but %s", filetype.Of(t))
	}
	var fs unix.Statfs_t
	if err := unix.Fstatfs(fd, &fs); err != nil {
		return refused("fstatfs: %v", err)
	}
	if name, ok := pseudoFSName(uint32(fs.Type)); ok {
		return refused("a file of %s", name)
	}
	if st.Nlink > 1 {
		return refused("a file with %d hard links", st.Nlink)
	}
	if st.Size > 0 {
		return errors.New("it holds the app's own message")
	}
	return nil
}

// pseudoFS are the file systems whose files act when written: the kernel's
// interfaces, never a place for a message. Magic numbers from
// include/uapi/linux/magic.h; the three that x/sys lacks are spelled out.
// (A table, not a map: a map literal costs its init code in the binary.)
var pseudoFS = [...]struct {
	magic uint32
	name  string
}{
	{unix.PROC_SUPER_MAGIC, "procfs"},
	{unix.SYSFS_MAGIC, "sysfs"},
	{unix.CGROUP_SUPER_MAGIC, "cgroupfs"},
	{unix.CGROUP2_SUPER_MAGIC, "cgroup2"},
	{unix.DEBUGFS_MAGIC, "debugfs"},
	{unix.TRACEFS_MAGIC, "tracefs"},
	{unix.SECURITYFS_MAGIC, "securityfs"},
	{unix.SELINUX_MAGIC, "selinuxfs"},
	{unix.SMACK_MAGIC, "smackfs"},
	{unix.BPF_FS_MAGIC, "bpffs"},
	{unix.BINFMTFS_MAGIC, "binfmt_misc"},
	{unix.EFIVARFS_MAGIC, "efivarfs"},
	{unix.PSTOREFS_MAGIC, "pstore"},
	{unix.RDTGROUP_SUPER_MAGIC, "resctrl"},
	{unix.DEVPTS_SUPER_MAGIC, "devpts"},
	{unix.NSFS_MAGIC, "nsfs"},
	{0x62656570, "configfs"}, // CONFIGFS_MAGIC
	{0x65735543, "fusectl"},  // FUSE_CTL_SUPER_MAGIC
	{0x19800202, "mqueue"},   // MQUEUE_MAGIC
}

// pseudoFSName names the pseudo file system with magic number m, if it is one.
func pseudoFSName(m uint32) (string, bool) {
	for _, f := range pseudoFS {
		if f.magic == m {
			return f.name, true
		}
	}
	return "", false
}

// openat2 is unix.Openat2; tests replace it to play a kernel without it.
var openat2 = unix.Openat2

// openNoLinks opens path refusing a symbolic link in any component, with
// ELOOP. It asks openat2(RESOLVE_NO_SYMLINKS) (Linux 5.6) and, where that is
// missing or a seccomp profile refuses it, walks the path one directory at a
// time with O_NOFOLLOW, which refuses the same links. A link in a directory
// the app can write to could otherwise lead tend anywhere, so a path through
// /var/run -> /run must be given as /run.
func openNoLinks(path string, flags int, mode uint32) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags), Mode: uint64(mode), Resolve: unix.RESOLVE_NO_SYMLINKS}
	for {
		fd, err := openat2(unix.AT_FDCWD, path, &how)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM), errors.Is(err, unix.E2BIG):
			return walkNoLinks(path, flags, mode)
		}
		return fd, err
	}
}

// walkNoLinks is openNoLinks without openat2: each directory is opened
// O_PATH|O_NOFOLLOW from the one before and must be a directory, not a link.
func walkNoLinks(path string, flags int, mode uint32) (int, error) {
	dir, base := filepath.Split(path)
	if base == "" || base == "." || base == ".." {
		return -1, unix.EISDIR
	}
	at := unix.AT_FDCWD
	if filepath.IsAbs(path) {
		fd, err := openRetry(unix.AT_FDCWD, "/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, err
		}
		at = fd
	}
	closeAt := func() {
		if at != unix.AT_FDCWD {
			_ = unix.Close(at) // an O_PATH descriptor: nothing to report
		}
	}
	for _, name := range strings.Split(dir, "/") {
		if name == "" || name == "." {
			continue
		}
		fd, err := openRetry(at, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		closeAt()
		if err != nil {
			return -1, err
		}
		at = fd
		var st unix.Stat_t
		if err := unix.Fstat(at, &st); err != nil {
			closeAt()
			return -1, err
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
		case unix.S_IFLNK:
			closeAt()
			return -1, unix.ELOOP
		default:
			closeAt()
			return -1, unix.ENOTDIR
		}
	}
	defer closeAt()
	return openRetry(at, base, flags|unix.O_NOFOLLOW, mode)
}

func openRetry(at int, name string, flags int, mode uint32) (int, error) {
	for {
		fd, err := unix.Openat(at, name, flags, mode)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}
