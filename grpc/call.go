package grpc

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"golang.org/x/net/http2/hpack"

	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/internal/target"
)

const (
	// maxMessage bounds the response message: a HealthCheckResponse is
	// two or three bytes.
	maxMessage = 4 << 10
	// maxService keeps the request in one DATA frame within the peer's
	// default frame size and window.
	maxService = 4 << 10
	// defaultTimeout bounds a call whose context has no deadline: the
	// kubelet's default timeoutSeconds (k8s.io/api core/v1 Probe).
	defaultTimeout = time.Second
)

// HealthCheck makes one grpc.health.v1.Health/Check call for service over one
// plaintext HTTP/2 connection to addr (HOST:PORT), bounded by ctx's
// deadline (sent as grpc-timeout). nil only when the server answers SERVING.
func HealthCheck(ctx context.Context, addr, service string) error {
	return Check(ctx, Target{Addr: addr}, service)
}

// Target is where a health check goes.
type Target struct {
	// Addr is HOST:PORT, or unix:/PATH for a server on a unix socket
	// (target.UnixPrefix), whose :authority is then "localhost", as
	// grpc-go sends for a unix: target.
	Addr string
	// TLS, when set, makes it grpcs: HTTP/2 over TLS with ALPN "h2", as
	// grpc-go's credentials/tls; the server must select h2.
	TLS *target.TLS
}

// Check is HealthCheck to t, over TLS when t.TLS is set.
func Check(ctx context.Context, t Target, service string) error {
	addr := t.Addr
	if len(service) > maxService {
		return fmt.Errorf("service name of %d bytes, over the %d tend sends", len(service), maxService)
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultTimeout)
		defer cancel()
		deadline, _ = ctx.Deadline()
	}
	timeout := time.Until(deadline)
	// The caller made its deadline from a probe timeout a moment ago:
	// rounding the rest up to 10 ms prints 1s rather than 999.97ms.
	shown := (timeout + 10*time.Millisecond - 1).Truncate(10 * time.Millisecond)
	if !ok {
		shown = defaultTimeout
	}

	nc, err := dial(ctx, t)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return &timeoutError{fmt.Sprintf("timeout: failed to connect service %s within %v", excerpt.Quote(addr), shown)}
		}
		return fmt.Errorf("failed to connect service at %s: %s", excerpt.Quote(addr), excerpt.Escape(err.Error()))
	}
	defer func() { _ = nc.Close() }() // a close error changes no verdict
	_ = nc.SetDeadline(deadline)      // cannot fail on a fresh TCP connection
	// A cancelled context (tend stopping) ends the call at once.
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) }) // as above
	defer stop()

	c := &call{nc: nc, dec: newDecoder()}
	c.fr.r = bufio.NewReaderSize(nc, 4096)
	c.fr.max = maxFrames
	authority, scheme := addr, "http"
	if target.IsUnix(addr) {
		authority = "localhost"
	}
	if t.TLS != nil {
		scheme = "https"
	}
	err = c.run(authority, scheme, service, timeout)
	if err == nil || isVerdict(err) {
		goAway(nc)
		return err
	}
	// Only an I/O error is a timeout: a protocol error found just as the
	// deadline passed keeps its reason.
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if errors.Is(ctx.Err(), context.Canceled) {
			return fmt.Errorf("health rpc cancelled")
		}
		return &timeoutError{fmt.Sprintf("timeout: health rpc did not complete within %v (%d frames received)", shown, c.fr.count)}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("connection closed by the peer before the answer (%d frames received)", c.fr.count)
	}
	return errors.New(excerpt.Escape(err.Error())) // one line: a system error can quote an address the user wrote
}

// isVerdict reports an answer the server gave, as opposed to a broken call.
func isVerdict(err error) bool {
	var s *StatusError
	var u *UnhealthyError
	return errors.As(err, &s) || errors.As(err, &u)
}

// call is the state of one unary call on stream 1.
type call struct {
	nc       net.Conn
	fr       frameReader
	dec      *hpack.Decoder
	answered int    // SETTINGS and PINGs acknowledged
	block    []byte // header block being assembled
	headers  bool   // response headers received
	msg      []byte // the response message so far, prefix included
	full     bool   // msg holds the whole message
}

// run sends the whole request at once (prior knowledge lets a client send
// before the server's SETTINGS, within the protocol's defaults) and reads
// until the answer's trailers.
func (c *call) run(authority, scheme, service string, timeout time.Duration) error {
	b := append(make([]byte, 0, 256), clientPreface...)
	b = appendFrame(b, frameSettings, 0, 0, settings())
	b = appendFrame(b, frameHeaders, flagEndHeaders, 1, encodeRequestHeaders(authority, scheme, timeout))
	req := encodeRequest(service)
	data := make([]byte, 5, 5+len(req)) // uncompressed flag, then length
	binary.BigEndian.PutUint32(data[1:], uint32(len(req)))
	b = appendFrame(b, frameData, flagEndStream, 1, append(data, req...))
	if _, err := c.nc.Write(b); err != nil {
		return err
	}
	for {
		h, p, err := c.fr.next()
		if err != nil {
			return err
		}
		if h.Stream != 1 || (h.Type != frameHeaders && h.Type != frameData) {
			if err := c.control(h, p); err != nil {
				return err
			}
			continue
		}
		var done bool
		if h.Type == frameHeaders {
			done, err = c.onHeaders(h, p)
		} else {
			done, err = c.onData(h, p)
		}
		if done || err != nil {
			return err
		}
	}
}

// dial connects to t.Addr and, for grpcs, runs TLS offering only h2: a
// server that selects no protocol is refused, as grpc-go refuses it since
// 1.67 ("missing selected ALPN property"), since it may not speak HTTP/2.
func dial(ctx context.Context, t Target) (net.Conn, error) {
	nc, err := target.Dial(ctx, t.Addr)
	if err != nil || t.TLS == nil {
		return nc, err
	}
	cfg := *t.TLS
	cfg.ALPN = []string{"h2"}
	host := "localhost"
	if !target.IsUnix(t.Addr) {
		host, _, _ = net.SplitHostPort(t.Addr) // checked by the caller's parse
	}
	tc, err := target.Handshake(ctx, nc, host, cfg)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
		_ = tc.Close() // refused: see above
		return nil, fmt.Errorf("tls: the server selected ALPN %s, not h2", excerpt.Quote(p))
	}
	return tc, nil
}
