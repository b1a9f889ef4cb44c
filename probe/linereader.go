package probe

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
}

func newLineReader(r io.Reader, limit int, tooLarge error) *lineReader {
	l := &lineReader{lr: io.LimitedReader{R: r, N: int64(limit)}, tooLarge: tooLarge}
	// 512 bytes holds a whole probe request or status line in one read,
	// while a line that is longer still only grows to limit.
	l.br = bufio.NewReaderSize(&l.lr, 512)
	return l
}

// line returns the next line without its terminator.
func (l *lineReader) line() (string, error) {
	s, err := l.br.ReadString('\n')
	if err != nil {
		if errors.Is(err, io.EOF) && l.lr.N <= 0 {
			// The limit ran out, not the peer: the head never ended in time.
			return "", l.tooLarge
		}
		if errors.Is(err, io.EOF) && s != "" {
			return "", io.ErrUnexpectedEOF
		}
		return "", err
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r"), nil
}
