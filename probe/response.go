package probe

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tend-init/tend/internal/excerpt"
)

// maxResponseHead bounds what the probe and --check clients read of a
// response: a status line needs a few dozen bytes, and a server that
// streams without a newline must cost a few KiB, not the process's memory.
const maxResponseHead = 4096

// maxInterim is how many 1xx responses are skipped before the final one,
// as net/http does (kubelet's client), so a 103 Early Hints is no failure.
const maxInterim = 5

var errResponseTooLarge = errors.New("response head too large")

// readResponseHead reads from at most limit bytes of r the status line of
// the final response and returns its code, 101 or 200..999. Interim 1xx
// responses are skipped with their headers; the final response's headers
// are left unread. Get goes on to read them with readHead; this first
// stage is kept on its own so that it can be fuzzed and tested alone.
func readResponseHead(r io.Reader, limit int) (int, error) {
	code, _, err := readStatus(newLineReader(r, limit, errResponseTooLarge))
	return code, err
}

// readStatus is readResponseHead on a lineReader that the caller goes on
// reading, and also returns the final response's version ("HTTP/1.1").
func readStatus(l *lineReader) (code int, proto string, err error) {
	for interim := 0; ; interim++ {
		line, err := l.line()
		if err != nil {
			if errors.Is(err, errResponseTooLarge) {
				return 0, "", err
			}
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
		for {
			h, err := l.line()
			if err != nil {
				if errors.Is(err, errResponseTooLarge) {
					return 0, "", err
				}
				return 0, "", fmt.Errorf("reading an interim response: %w", err)
			}
			if h == "" {
				break
			}
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
