// Package filetype names a file's type in tend's messages, so that the
// places that refuse what is not a regular file (the termination message,
// the container's passwd and group, --reload-on) say it in the same words.
package filetype

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Of names the type in mode's S_IFMT bits, with its article: "a FIFO",
// "a character device"; a type it has no word for is "mode 0NNNNNN".
func Of(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return "a regular file"
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFLNK:
		return "a symbolic link"
	case unix.S_IFCHR:
		return "a character device"
	case unix.S_IFBLK:
		return "a block device"
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFSOCK:
		return "a socket"
	}
	return fmt.Sprintf("mode %#o", mode&unix.S_IFMT)
}
