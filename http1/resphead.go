package http1

import (
	"bytes"
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
}

// readHead reads one response head from l: the status line (after any
// interim responses), then the final response's headers up to the blank
// line. Errors are the kubelet's (net/http's): a malformed header line,
// a bad or conflicting Content-Length, a transfer coding other than
// chunked, and a head cut short by EOF or the deadline, or that has not
// ended within maxResponseHead, all fail. Only the headers the client
// needs are kept, so a head of megabytes costs a few KiB.
func readHead(l *lineReader) (respHead, error) {
	code, proto, err := readStatus(l)
	if err != nil {
		return respHead{}, err
	}
	p := headParser{h: respHead{code: code, length: -1}, first: true}
	for {
		line, err := l.next()
		long := errors.Is(err, errLineTooLong)
		switch {
		case long:
		case errors.Is(err, io.EOF):
			return respHead{}, fmt.Errorf("reading the response headers: %w", io.ErrUnexpectedEOF)
		case errors.Is(err, errResponseTooLarge):
			return respHead{}, err
		case err != nil:
			return respHead{}, fmt.Errorf("reading the response headers: %w", err)
		case len(line) == 0:
			if err := p.h.frame(proto, p.lengths, p.codings); err != nil {
				return respHead{}, err
			}
			return p.h, nil
		}
		if line[0] == ' ' || line[0] == '\t' {
			err = p.fold(l, line, long)
		} else {
			err = p.field(l, line, long)
		}
		if err != nil {
			return respHead{}, err
		}
	}
}

// headParser is readHead's state between header lines.
type headParser struct {
	h respHead
	// At most two of each are kept: a second different length is a
	// conflict, a second coding an error, however often they repeat.
	lengths, codings []string
	last             *string // the kept value a continuation line extends
	first            bool    // no header line yet
}

// fold takes a continuation line: obsolete line folding, which net/http's
// client still accepts, continues the previous header's value.
func (p *headParser) fold(l *lineReader, line []byte, long bool) error {
	switch {
	case p.first:
		return fmt.Errorf("malformed header line %s", excerpt.Quote(string(line)))
	case hasCtl(line, true):
		return fmt.Errorf("control byte in a header line %s", excerpt.Quote(string(line)))
	case long && p.last != nil:
		return fmt.Errorf("a header the client reads runs over %d bytes", maxHeadLine)
	case long:
		return skipLong(l)
	case p.last != nil:
		*p.last = strings.TrimSpace(*p.last + " " + strings.TrimSpace(string(line)))
	}
	return nil
}

// field takes a NAME: VALUE line, keeping Location and the framing headers.
func (p *headParser) field(l *lineReader, line []byte, long bool) error {
	p.first = false
	name, value, ok := bytes.Cut(line, []byte{':'})
	if !ok || !isToken(name) {
		return fmt.Errorf("malformed header line %s", excerpt.Quote(string(line)))
	}
	if hasCtl(value, true) {
		return fmt.Errorf("control byte in header %s", excerpt.Quote(string(name)))
	}
	p.last = nil
	location := bytes.EqualFold(name, []byte("Location"))
	length := bytes.EqualFold(name, []byte("Content-Length"))
	coding := bytes.EqualFold(name, []byte("Transfer-Encoding"))
	if long {
		// net/http would keep such a value; a Location or framing
		// header of over 4 KiB is refused rather than held.
		if location && p.h.location == "" || length || coding {
			return fmt.Errorf("header %s runs over %d bytes", string(name), maxHeadLine)
		}
		return skipLong(l)
	}
	// Only a kept value becomes a string: a head of megabytes of
	// other headers allocates nothing per line.
	v := func() string { return string(bytes.Trim(value, " \t")) }
	switch {
	case location:
		if p.h.location == "" {
			p.h.location = v()
			p.last = &p.h.location
		}
	case length:
		if len(p.lengths) == 2 {
			if p.lengths[0] != p.lengths[1] {
				return conflict(p.lengths)
			}
			p.lengths = p.lengths[:1]
		}
		p.lengths = append(p.lengths, v())
		p.last = &p.lengths[len(p.lengths)-1] // valid until the next append, after the next header line
	case coding:
		if len(p.codings) < 2 {
			p.codings = append(p.codings, v())
			p.last = &p.codings[len(p.codings)-1]
		}
	}
	return nil
}

// skipLong reads past the rest of a header line that next cut: a line the
// client does not need, checked for control bytes as a whole line is.
func skipLong(l *lineReader) error {
	ctl, err := l.skipLine()
	switch {
	case errors.Is(err, errResponseTooLarge):
		return err
	case err != nil:
		return fmt.Errorf("reading the response headers: %w", err)
	case ctl:
		return errors.New("control byte in a header line")
	}
	return nil
}

func conflict(lengths []string) error {
	return fmt.Errorf("conflicting Content-Length headers %s", excerpt.Quote(strings.Join(lengths, ", ")))
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
			return conflict(lengths)
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
