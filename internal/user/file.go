package user

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/tend-init/tend/internal/filetype"
	"golang.org/x/sys/unix"
)

// The bounds on /etc/passwd and /etc/group. The files are the container's
// input: an image can make them /dev/zero, a FIFO, or one 64 MB line, and
// os/user's reader grew its line on each chunk (over 10 s and 149 MB for a
// 64 MB line). gosu reads them through runc's libcontainer/user with a
// bufio.Scanner, whose 64 KiB token limit ends such a file in 30 ms with
// "token too long"; tend takes the same line limit, and a total limit of
// its own so that no regular file of short lines keeps the start waiting
// either (16 MiB is about 200,000 users).
const (
	maxLine  = 64 << 10 // a line with its newline
	maxTotal = 16 << 20
)

// files names the passwd and group files and the bounds on reading them:
// LookupUser's are /etc's and the constants above; tests set their own.
type files struct {
	passwd, group     string
	maxLine, maxTotal int
}

// errNoFile is what each reads a missing file as; callers decide whether
// that is "no such entry" (a scratch image has no /etc/passwd) or an error.
var errNoFile = errors.New("no such file")

// each calls fn with each line of the file at path, surrounding blanks
// trimmed, skipping blank lines and comments as glibc's parser does; fn's
// bytes are valid only during the call. It reads only a regular file: it
// opens without blocking (a FIFO with no writer would hold tend's start),
// checks the open descriptor, and stops at the first line longer than
// maxLine or when the file passes maxTotal, with an error that names the
// file and the line.
func each(path string, maxLine, maxTotal int, fn func(n int, line []byte) (stop bool, err error)) error {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return errNoFile
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer func() { _ = unix.Close(fd) }() // read-only: nothing to report
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%s: fstat: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s: not a regular file (%s)", path, filetype.Of(st.Mode))
	}
	// The reader's buffer is the line limit: ReadSlice never grows it.
	rd := bufio.NewReaderSize(&fdReader{fd: fd, left: maxTotal}, maxLine)
	for n := 1; ; n++ {
		line, err := rd.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return fmt.Errorf("%s: line %d is longer than %d bytes", path, n, maxLine)
		case errors.Is(err, errTooBig):
			return fmt.Errorf("%s: longer than %d bytes", path, maxTotal)
		case err != nil && err != io.EOF:
			return fmt.Errorf("%s: %w", path, err)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			if stop, ferr := fn(n, t); stop || ferr != nil {
				return ferr
			}
		}
		if err == io.EOF { // the last line may have no newline
			return nil
		}
	}
}

var errTooBig = errors.New("file too big")

// fdReader reads a descriptor directly, not through os.File, whose poller
// would park on a pollable file (a /proc file that blocks) where a read
// should fail with EAGAIN; it fails past left bytes.
type fdReader struct {
	fd   int
	left int
}

func (r *fdReader) Read(p []byte) (int, error) {
	if r.left < 0 {
		return 0, errTooBig
	}
	if len(p) > r.left+1 {
		p = p[:r.left+1] // one byte more tells "exactly left" from "more"
	}
	for {
		n, err := unix.Read(r.fd, p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("read: %w", err)
		}
		if n == 0 {
			return 0, io.EOF
		}
		r.left -= n
		if r.left < 0 {
			return 0, errTooBig
		}
		return n, nil
	}
}
