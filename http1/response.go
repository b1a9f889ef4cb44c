package http1

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tend-init/tend/internal/excerpt"
)

// maxResponseHead bounds the head the probe and --check clients read: the
// kubelet's limit, net/http's default MaxResponseHeaderBytes (10 MiB,
// Transport.maxHeaderResponseSize), which its prober (pkg/probe/http) does
// not change. A head that has not ended by then, or by the timeout, fails,
// as it fails the kubelet ("server response headers exceeded ... bytes").
// Reading it costs time, not memory: see maxHeadLine.
const maxResponseHead = 10 << 20

// maxHeadLine is the most of one status or header line that is kept, and
// so what a head costs in memory: a status line needs a few dozen bytes,
// and one that is longer fails at once (a server that streams without a
// newline costs 4 KiB, not 10 MiB). A longer header line is read to its
// end, checked and dropped, unless the client needs its value.
const maxHeadLine = 4096

// maxInterim is how many 1xx responses are skipped before the final one,
// as net/http does (kubelet's client), so a 103 Early Hints is no failure.
const maxInterim = 5

var errResponseTooLarge = fmt.Errorf("response head over %d MiB", maxResponseHead>>20)

// readResponseHead reads from r the status line of the final response and
// returns its code, 101 or 200..999. Interim 1xx responses are skipped
// with their headers; the final response's headers are left unread. Get
// goes on to read them with readHead; this first stage is kept on its own
// so that it can be fuzzed and tested alone.
func readResponseHead(r io.Reader) (int, error) {
	code, _, err := readStatus(newHeadReader(r, maxResponseHead, maxHeadLine))
	return code, err
}

// readStatus is readResponseHead on a lineReader that the caller goes on
// reading, and also returns the final response's version ("HTTP/1.1").
func readStatus(l *lineReader) (code int, proto string, err error) {
	for interim := 0; ; interim++ {
		line, err := l.line()
		switch {
		case errors.Is(err, errLineTooLong):
			return 0, "", fmt.Errorf("status line over %d bytes", maxHeadLine)
		case errors.Is(err, errResponseTooLarge):
			return 0, "", err
		case err != nil:
			return 0, "", fmt.Errorf("reading the status line: %w", err)
		}
		code, err := parseStatusLine(line)
		if err != nil {
			return 0, "", err
		}
		if code >= 200 || code == 101 {
			return code, line[:len("HTTP/1.1")], nil
		}
		if interim == maxInterim {
			return 0, "", fmt.Errorf("more than %d interim responses", maxInterim)
		}
		if err := skipHeaders(l); err != nil {
			return 0, "", fmt.Errorf("reading an interim response: %w", err)
		}
	}
}

// skipHeaders reads past an interim response's headers, of any length
// within the head's limit, up to the blank line.
func skipHeaders(l *lineReader) error {
	for {
		h, err := l.next()
		if errors.Is(err, errLineTooLong) {
			_, err = l.skipLine()
			h = []byte{'x'} // a line, not the end
		}
		if err != nil {
			return err
		}
		if len(h) == 0 {
			return nil
		}
	}
}

// parseStatusLine reads "HTTP/x.y SP 3DIGIT [SP reason]" with the rules of
// net/http, so that tend judges an app's answer as kubelet would.
func parseStatusLine(line string) (int, error) {
	proto, rest, ok := strings.Cut(line, " ")
	if !ok || !isHTTPVersion(proto) {
		return 0, fmt.Errorf("not an HTTP response: %s", excerpt.Quote(line))
	}
	status, _, _ := strings.Cut(rest, " ")
	if len(status) != 3 || status[0] < '1' || !isDigit(status[0]) || !isDigit(status[1]) || !isDigit(status[2]) {
		return 0, fmt.Errorf("bad status %s", excerpt.Quote(status))
	}
	return int(status[0]-'0')*100 + int(status[1]-'0')*10 + int(status[2]-'0'), nil
}

// isHTTPVersion reports whether s is "HTTP/" DIGIT "." DIGIT.
func isHTTPVersion(s string) bool {
	return len(s) == 8 && strings.HasPrefix(s, "HTTP/") && isDigit(s[5]) && s[6] == '.' && isDigit(s[7])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
