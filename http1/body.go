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

// maxResponseBody is how much of a body the client reads and drops: the
// kubelet's maxRespBodyLength (10 KiB). Reading a small body to its end
// lets the server see a clean close, not a reset on unread data; stopping
// at the cap bounds what a large or endless body costs. Reaching the cap
// is no failure, as in the kubelet ("non fatal body truncation").
const maxResponseBody = 10 << 10

// errBodyCapped is what the chunked reader's lineReader returns at the cap.
var errBodyCapped = errors.New("body cap reached")

// readResponse reads one response head from r within maxResponseHead, and
// returns it with a reader of what follows: the body, starting with any of
// it that was read ahead with the head.
func readResponse(r io.Reader) (respHead, io.Reader, error) {
	l := newHeadReader(r, maxResponseHead, maxHeadLine)
	h, err := readHead(l)
	if err != nil {
		return respHead{}, nil, err
	}
	ahead, _ := l.br.Peek(l.br.Buffered()) // cannot fail: no more than is buffered
	return h, io.MultiReader(bytes.NewReader(ahead), r), nil
}

// discardBody reads and drops the body that h frames, at most
// maxResponseBody bytes of r (chunk framing included). It fails, as the
// kubelet does, when the body ends early or the deadline passes before
// its end or the cap; the body's content is never looked at.
func discardBody(r io.Reader, h respHead) error {
	var err error
	switch {
	case h.noBody:
		return nil
	case h.chunked:
		err = discardChunked(newLineReader(r, maxResponseBody, errBodyCapped))
	case h.length >= 0:
		want := min(h.length, maxResponseBody)
		var n int64
		n, err = io.Copy(io.Discard, io.LimitReader(r, want))
		if err == nil && n < want {
			err = io.ErrUnexpectedEOF
		}
	default:
		// Delimited by the server's close: read to EOF or the cap.
		_, err = io.Copy(io.Discard, io.LimitReader(r, maxResponseBody))
	}
	if err != nil {
		return fmt.Errorf("reading the body: %w", err)
	}
	return nil
}

// discardChunked walks a chunked body to its last chunk and trailers, or
// to the cap of l, whichever comes first.
func discardChunked(l *lineReader) error {
	for {
		line, err := l.line()
		if err != nil {
			return chunkErr(l, err)
		}
		size, _, _ := strings.Cut(line, ";") // chunk extensions are ignored
		n, err := strconv.ParseUint(strings.TrimRight(size, " \t"), 16, 64)
		if err != nil {
			return fmt.Errorf("bad chunk size %s", excerpt.Quote(line))
		}
		if n == 0 {
			for { // trailers, up to the blank line
				t, err := l.line()
				if err != nil {
					return chunkErr(l, err)
				}
				if t == "" {
					return nil
				}
			}
		}
		// Past the cap, the Discard stops at it anyway.
		if _, err := l.br.Discard(int(min(n, maxResponseBody+1))); err != nil {
			return chunkErr(l, err)
		}
		if end, err := l.line(); err != nil {
			return chunkErr(l, err)
		} else if end != "" {
			return errors.New("malformed chunked encoding")
		}
	}
}

// chunkErr turns what stopped the chunked reader into its result: nil at
// the cap, io.ErrUnexpectedEOF when the server closed mid-body.
func chunkErr(l *lineReader, err error) error {
	switch {
	case errors.Is(err, errBodyCapped), l.lr.N <= 0:
		return nil
	case errors.Is(err, io.EOF):
		return io.ErrUnexpectedEOF
	}
	return err
}
