package probe

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tend-init/tend/internal/excerpt"
)

// respHead is what the client needs of a final response's head: the code,
// where a redirect points, and how the body is framed, so that the body
// can be read to its end without waiting for a server that ignores
// "Connection: close". Every other header is checked for form and dropped.
type respHead struct {
	code     int
	location string // the first Location header; "" when there is none
	length   int64  // the Content-Length; -1 when there is none
	chunked  bool
	noBody   bool // 1xx, 204 and 304 never have one
	// truncated says the headers ran past maxResponseHead: the fields
	// above may miss a header, and the body is not read. It is no error:
	// the kubelet accepts megabytes of headers, and a large but valid
	// header on an app's health response must not fail its probe.
	truncated bool
}

// readHead reads one response head from l: the status line (after any
// interim responses), then the final response's headers up to the blank
// line. Errors are the kubelet's (net/http's): a malformed header line,
// a bad or conflicting Content-Length, a transfer coding other than
// chunked, and a head cut short by EOF or the deadline all fail.
func readHead(l *lineReader) (respHead, error) {
	code, proto, err := readStatus(l)
	if err != nil {
		return respHead{}, err
	}
	h := respHead{code: code, length: -1}
	var lengths, codings []string
	var last *string // the kept value a continuation line extends
	first := true
	for {
		line, err := l.line()
		switch {
		case errors.Is(err, errResponseTooLarge):
			// The first Location, if it came before the cut, is still
			// the one net/http would follow.
			h.truncated = true
			return h, nil
		case errors.Is(err, io.EOF):
			return respHead{}, fmt.Errorf("reading the response headers: %w", io.ErrUnexpectedEOF)
		case err != nil:
			return respHead{}, fmt.Errorf("reading the response headers: %w", err)
		case line == "":
			if err := h.frame(proto, lengths, codings); err != nil {
				return respHead{}, err
			}
			return h, nil
		case line[0] == ' ' || line[0] == '\t':
			// Obsolete line folding, which net/http's client still
			// accepts: it continues the previous header's value.
			if first {
				return respHead{}, fmt.Errorf("malformed header line %s", excerpt.Quote(line))
			}
			if hasCtl(line, true) {
				return respHead{}, fmt.Errorf("control byte in a header line %s", excerpt.Quote(line))
			}
			if last != nil {
				*last = strings.TrimSpace(*last + " " + strings.TrimSpace(line))
			}
			continue
		}
		first = false
		name, value, ok := strings.Cut(line, ":")
		if !ok || !isToken(name) {
			return respHead{}, fmt.Errorf("malformed header line %s", excerpt.Quote(line))
		}
		if hasCtl(value, true) {
			return respHead{}, fmt.Errorf("control byte in header %s", excerpt.Quote(name))
		}
		value = strings.Trim(value, " \t")
		last = nil
		switch {
		case strings.EqualFold(name, "Location"):
			if h.location == "" {
				h.location = value
				last = &h.location
			}
		case strings.EqualFold(name, "Content-Length"):
			lengths = append(lengths, value)
			last = &lengths[len(lengths)-1] // valid until the next append, after the next header line
		case strings.EqualFold(name, "Transfer-Encoding"):
			codings = append(codings, value)
			last = &codings[len(codings)-1]
		}
		// Within maxResponseHead bytes of lines, the slices stay small
		// however often the server repeats a header.
	}
}

// frame works out how the body is delimited, with net/http's rules (RFC
// 9112 section 6.3): none after 1xx, 204 and 304; chunked when the only
// transfer coding is chunked (ignored in HTTP/1.0); else Content-Length;
// else until the server closes.
func (h *respHead) frame(proto string, lengths, codings []string) error {
	if len(codings) > 0 && proto != "HTTP/1.0" {
		if len(codings) != 1 || !strings.EqualFold(codings[0], "chunked") {
			return fmt.Errorf("unsupported transfer encoding %s", excerpt.Quote(strings.Join(codings, ", ")))
		}
		h.chunked = true
	}
	for _, v := range lengths {
		if v != lengths[0] {
			return fmt.Errorf("conflicting Content-Length headers %s", excerpt.Quote(strings.Join(lengths, ", ")))
		}
	}
	if len(lengths) > 0 {
		n, err := strconv.ParseUint(lengths[0], 10, 63)
		if err != nil {
			return fmt.Errorf("bad Content-Length %s", excerpt.Quote(lengths[0]))
		}
		h.length = int64(n)
	}
	if h.code < 200 || h.code == 204 || h.code == 304 {
		h.noBody = true
	}
	if h.chunked {
		h.length = -1 // chunked overrides it (RFC 9112 section 6.3)
	}
	return nil
}
