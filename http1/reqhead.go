package http1

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Errors of ParseRequestHead that deserve an answer; any other error is an
// I/O error (timeout, reset, EOF) and the client is no longer listening.
var (
	ErrBadRequest   = errors.New("bad request")
	ErrHeadTooLarge = errors.New("request head too large")
)

// ParseRequestHead reads one request head (request line and headers, up to
// the blank line) from at most limit bytes of r, and returns its method and
// request target. A malformed head gives an error wrapping ErrBadRequest,
// one longer than limit ErrHeadTooLarge. Headers are checked for form, and
// Content-Length for framing (checkLength), and otherwise ignored: no
// endpoint depends on them. Bytes after the head are
// left unread, or buffered and dropped; the caller discards the rest.
func ParseRequestHead(r io.Reader, limit int) (method, target string, err error) {
	l := newLineReader(r, limit, ErrHeadTooLarge)
	line, err := l.line()
	if err != nil {
		return "", "", err
	}
	if method, target, err = parseRequestLine(line); err != nil {
		return "", "", err
	}
	length := "" // the first Content-Length, "" while there is none
	for {
		h, err := l.line()
		if err != nil {
			return "", "", err
		}
		if h == "" {
			return method, target, nil
		}
		if err := checkHeaderLine(h); err != nil {
			return "", "", err
		}
		if name, value, _ := strings.Cut(h, ":"); strings.EqualFold(name, "Content-Length") {
			if length, err = checkLength(length, strings.Trim(value, " \t")); err != nil {
				return "", "", err
			}
		}
	}
}

// checkLength checks a Content-Length value v against the first one seen
// (prev, "" if none): the body is never read, but a framing that RFC 9112
// calls invalid (section 6.3: a value that is not a number, or "multiple
// Content-Length header fields having differing field values") must be
// answered 400. Repeated equal values pass, as net/http's server lets them
// (RFC 9110 section 8.6 allows either); a list in one field ("5, 5") is
// refused, as net/http refuses it.
func checkLength(prev, v string) (string, error) {
	if _, err := strconv.ParseUint(v, 10, 63); err != nil { // no sign, no base prefix
		return "", fmt.Errorf("%w: Content-Length is not a number", ErrBadRequest)
	}
	if prev != "" && prev != v {
		return "", fmt.Errorf("%w: Content-Length headers differ", ErrBadRequest)
	}
	return v, nil
}

// parseRequestLine splits "METHOD SP TARGET SP VERSION". It is strict, as
// RFC 9112 allows: a lenient parser in front of an app is how request
// smuggling starts, and kubelet and curl send exactly this form.
func parseRequestLine(line string) (method, target string, err error) {
	method, rest, ok1 := strings.Cut(line, " ")
	target, version, ok2 := strings.Cut(rest, " ")
	switch {
	case !ok1 || !ok2:
		return "", "", fmt.Errorf("%w: request line is not METHOD TARGET VERSION", ErrBadRequest)
	case !isToken(method):
		return "", "", fmt.Errorf("%w: method is not a token", ErrBadRequest)
	case !strings.HasPrefix(target, "/"):
		// Only origin-form: tend is no proxy, and "*" is for OPTIONS.
		return "", "", fmt.Errorf("%w: request target does not start with /", ErrBadRequest)
	case hasCtl(target, false):
		return "", "", fmt.Errorf("%w: control byte in the request target", ErrBadRequest)
	case version != "HTTP/1.1" && version != "HTTP/1.0":
		return "", "", fmt.Errorf("%w: version is not HTTP/1.0 or HTTP/1.1", ErrBadRequest)
	}
	return method, target, nil
}

// checkHeaderLine checks "NAME: VALUE". Obsolete line folding is refused,
// as RFC 9112 permits, rather than parsed for headers nobody reads.
func checkHeaderLine(h string) error {
	name, value, ok := strings.Cut(h, ":")
	switch {
	case !ok:
		return fmt.Errorf("%w: header line without a colon", ErrBadRequest)
	case !isToken(name):
		// Also catches folding and space before the colon, both of which
		// RFC 9112 says to reject.
		return fmt.Errorf("%w: header name is not a token", ErrBadRequest)
	case hasCtl(value, true):
		return fmt.Errorf("%w: control byte in a header value", ErrBadRequest)
	}
	return nil
}

// isToken reports whether s is an RFC 9110 token: one or more tchars.
func isToken[T ~string | ~[]byte](s T) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// hasCtl reports whether s holds a control byte (below 0x20, or DEL); a
// tab counts only where tabOK is false, since header values may hold one.
func hasCtl[T ~string | ~[]byte](s T, tabOK bool) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && !(tabOK && c == '\t') || c == 0x7f {
			return true
		}
	}
	return false
}
