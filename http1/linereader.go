package http1

import (
	"bufio"
	"errors"
	"io"
	"strings"
)

// lineReader reads LF- or CRLF-terminated lines from at most limit bytes of
// an untrusted peer, so that neither memory nor consumption can grow with
// what the peer sends. Both parsers share it so they bound input alike.
type lineReader struct {
	lr       io.LimitedReader
	br       *bufio.Reader
	tooLarge error // what line returns once the limit cut a line short
	// maxLine, when set, bounds what next returns of one line, and is
	// the buffer's size: the response head may run to megabytes, in
	// lines that must not be held whole.
	maxLine int
	cr      bool // the line next cut ended in CR: skipLine's LF ends it
}

// errLineTooLong is next's answer to a line longer than maxLine.
var errLineTooLong = errors.New("line too long")

func newLineReader(r io.Reader, limit int, tooLarge error) *lineReader {
	l := &lineReader{lr: io.LimitedReader{R: r, N: int64(limit)}, tooLarge: tooLarge}
	// 512 bytes holds a whole probe request or status line in one read,
	// while a line that is longer still only grows to limit.
	l.br = bufio.NewReaderSize(&l.lr, 512)
	return l
}

// newHeadReader reads a response head of up to limit bytes in lines of
// which next keeps at most maxLine bytes.
func newHeadReader(r io.Reader, limit, maxLine int) *lineReader {
	l := &lineReader{lr: io.LimitedReader{R: r, N: int64(limit)}, tooLarge: errResponseTooLarge, maxLine: maxLine}
	l.br = bufio.NewReaderSize(&l.lr, maxLine)
	return l
}

// line returns the next line without its terminator.
func (l *lineReader) line() (string, error) {
	if l.maxLine > 0 {
		b, err := l.next()
		return string(b), err
	}
	s, err := l.br.ReadString('\n')
	if err != nil {
		return "", l.endErr(err, s != "")
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r"), nil
}

// next returns the next line without its terminator, valid until the next
// read. A line longer than maxLine gives its first maxLine bytes (without a
// CR that may end it) and errLineTooLong; skipLine reads past the rest.
func (l *lineReader) next() ([]byte, error) {
	b, err := l.br.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		l.cr = b[len(b)-1] == '\r'
		if l.cr {
			b = b[:len(b)-1]
		}
		return b, errLineTooLong
	case err != nil:
		return nil, l.endErr(err, len(b) > 0)
	}
	b = b[:len(b)-1]
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b = b[:len(b)-1]
	}
	return b, nil
}

// skipLine reads past the rest of the line that next cut, without keeping
// it, and reports whether the rest held a control byte other than a tab (a
// CR counts unless the LF that ends the line follows it).
func (l *lineReader) skipLine() (ctl bool, err error) {
	cr := l.cr
	for {
		b, err := l.br.ReadSlice('\n')
		for _, c := range b {
			if cr && c != '\n' {
				ctl = true
			}
			cr = c == '\r'
			if c < 0x20 && c != '\t' && c != '\r' && c != '\n' || c == 0x7f {
				ctl = true
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			return ctl, l.endErr(err, true)
		}
		return ctl, nil
	}
}

// endErr is what a read error means: the limit, when it ran out (the head
// never ended in time); a line cut short by the peer's close; or itself.
func (l *lineReader) endErr(err error, partial bool) error {
	switch {
	case errors.Is(err, io.EOF) && l.lr.N <= 0:
		return l.tooLarge
	case errors.Is(err, io.EOF) && partial:
		return io.ErrUnexpectedEOF
	}
	return err
}
