package http1

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/tend-init/tend/internal/target"
)

// Header is one request header; an empty Value removes a default header.
type Header struct{ Name, Value string }

// Request is one GET, or one POST (a hook's httpPost).
type Request struct {
	// URL is http:// or https://, or http(s)://unix:/PATH[:/URI] for an
	// app on a unix socket (target.UnixPrefix).
	URL string
	// Method is "GET" (or "") or "POST". A POST sends Body with its
	// Content-Length and never follows a redirect: a 3xx is its answer.
	Method string
	Body   []byte // POST only, at most MaxBody bytes
	// Headers are sent in order after the defaults (Host, User-Agent,
	// Accept, Connection: close); one with a default's name replaces it,
	// except that Connection: close is always sent, and "Host" sets the
	// Host header, as with the kubelet's httpHeaders (see headerSet).
	Headers []Header
	// UserAgent is the default User-Agent, sent unless Headers give one;
	// "" sends "tend". Probes and hooks send "tend/VERSION" (probe.UserAgent),
	// as the kubelet sends "kube-probe/MAJOR.MINOR".
	UserAgent string
	Verify    bool             // https: verify the server certificate (default false, as the kubelet)
	CA        *x509.CertPool   // with Verify: the roots to trust; nil = system roots
	Cert      *tls.Certificate // https: a client certificate (mTLS); nil = none
	// FollowRedirects follows 301, 302, 303, 307 and 308 to the same host
	// name, as the kubelet's prober: probes set it; --check and hook
	// actions may choose.
	FollowRedirects bool
}

// Response is what came back.
type Response struct {
	Code int
	// Note is set when something a user should see in the log happened,
	// e.g. a redirect to another host that counted as success.
	Note string
	// URL is the URL that answered Code: Request.URL, or where redirects
	// led.
	URL string
	// First is the body's first line, at most firstLineMax bytes: tend's
	// own /readyz gives its reason there, which --check prints.
	First string
}

// MaxBody bounds a POST's body: it comes from a flag or variable, and a
// shutdown or notify endpoint takes a few bytes.
const MaxBody = 64 << 10

// Get makes the request (a GET, or Method's) within ctx's deadline: one connection per hop,
// closed after the response, at most maxResponseHead bytes of head and
// maxResponseBody of body read from each. Code is set as soon as a final
// status is known, so it can come with an error (a body cut short, say).
func Get(ctx context.Context, r Request) (Response, error) {
	u, socket, err := parseTarget(r.URL)
	if err != nil {
		return Response{}, err
	}
	switch r.Method {
	case "", "GET":
		r.Method, r.Body = "GET", nil
	case "POST":
		r.FollowRedirects = false // as curl -X POST without -L: the 3xx is the answer
		if len(r.Body) > MaxBody {
			return Response{}, fmt.Errorf("body of %d bytes, over %d", len(r.Body), MaxBody)
		}
	default:
		return Response{}, errors.New("method: want GET or POST")
	}
	hs, err := newHeaderSet(r.Headers, r.UserAgent)
	if err != nil {
		return Response{}, err
	}
	hs.method, hs.body = r.Method, r.Body
	h := hop{r: r, orig: u, u: u, socket: socket, shown: r.URL, head: hs.head(u, hs.host, "")}
	for {
		resp, next, err := h.get(ctx)
		if err != nil || next == nil {
			if err != nil && h.n > 0 {
				err = fmt.Errorf("after a redirect to %s: %w", h.shown, err)
			}
			return resp, err
		}
		host := hs.host
		if !next.relative {
			host = "" // as net/http: a custom Host survives only a relative Location
		}
		h.head = hs.head(next.url, host, refererFor(h.u, next.url))
		h.u, h.shown, h.n = next.url, next.url.Redacted(), h.n+1
	}
}

// hop is one request of a Get.
type hop struct {
	r       Request
	orig, u *url.URL // the first URL, and this hop's
	socket  string   // the unix socket every hop goes to, "" for TCP
	shown   string   // u for messages: Request.URL as given on the first hop
	head    string   // the request head
	n       int      // 0 on the first hop
}

// get makes the hop's request. next is the redirect to follow, nil when
// resp is the answer.
func (h hop) get(ctx context.Context) (resp Response, next *redirectTo, err error) {
	c, err := dial(ctx, h.u, h.socket, h.r)
	if err != nil {
		if ctx.Err() != nil {
			err = ctx.Err() // the deadline or a cancel, not the peer
		}
		return Response{URL: h.shown}, nil, err
	}
	defer func() { _ = c.Close() }() // the answer is read, or err says why not
	stop := context.AfterFunc(ctx, func() {
		// Cancellation (not only the deadline) must cut a blocked read.
		_ = c.SetDeadline(time.Unix(1, 0)) // a closed conn needs no cutting
	})
	defer stop()
	resp, next, err = h.exchange(c)
	if err != nil && ctx.Err() != nil {
		err = ctx.Err() // the deadline or a cancel, not the peer
	}
	return resp, next, err
}

// exchange writes the request head on c and reads the answer.
func (h hop) exchange(c net.Conn) (Response, *redirectTo, error) {
	resp := Response{URL: h.shown}
	if _, err := io.WriteString(c, h.head); err != nil {
		return resp, nil, err
	}
	if len(h.r.Body) > 0 {
		if _, err := c.Write(h.r.Body); err != nil {
			return resp, nil, err
		}
	}
	// Bounded: a broken or hostile server can make this fail, never make
	// tend (PID 1, whose death takes the namespace down) grow.
	rh, body, err := readResponse(c)
	if err != nil {
		return resp, nil, err
	}
	resp.Code = rh.code
	if h.r.FollowRedirects {
		next, note, err := redirect(h.u, h.orig, h.socket != "", rh, h.n)
		if err != nil || next != nil {
			// A followed redirect's body is not read: net/http reads a
			// little of it only to reuse the connection, which tend
			// never does.
			return resp, next, err
		}
		resp.Note = note
	}
	first := &firstLine{}
	err = discardBody(io.TeeReader(body, first), rh)
	resp.First = first.String()
	return resp, nil, err
}

// firstLineMax bounds what of a body is kept.
const firstLineMax = 200

// firstLine keeps the first line written to it, up to firstLineMax bytes,
// and drops the rest.
type firstLine struct {
	b    []byte
	done bool
}

func (f *firstLine) Write(p []byte) (int, error) {
	if !f.done {
		if i := bytes.IndexByte(p, '\n'); i >= 0 {
			f.b, f.done = append(f.b, p[:i]...), true
		} else {
			f.b = append(f.b, p...)
		}
		if len(f.b) >= firstLineMax {
			f.b, f.done = f.b[:firstLineMax], true
		}
	}
	return len(p), nil
}

func (f *firstLine) String() string { return strings.TrimSpace(strings.ToValidUTF8(string(f.b), "?")) }

// parseTarget reads an http:// or https:// URL, checked as the flags are
// (target.ParseHTTPURL), so that --check's URL gets the same checks before
// it dials; socket is the unix socket of an http(s)://unix:/PATH:/URI.
func parseTarget(raw string) (*url.URL, string, error) {
	u, socket, err := target.ParseHTTPURL(raw)
	if err != nil {
		return nil, "", err
	}
	u.RawQuery = escapeQuery(u.RawQuery)
	return u, socket, nil
}

// escapeQuery percent-encodes the bytes that cannot stand in a request
// line's target: url.Parse keeps a query as written, so "/?a b" would put a
// space in "GET /?a b HTTP/1.1" and the server would read another version.
// (url.Parse already refuses control characters; the path is escaped by
// RequestURI.) Found by FuzzRequestHeaders.
func escapeQuery(q string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c > ' ' && c < 0x7f {
			if b.Len() > 0 {
				b.WriteByte(c)
			}
			continue
		}
		if b.Len() == 0 {
			b.WriteString(q[:i])
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	if b.Len() == 0 {
		return q
	}
	return b.String()
}

// dial connects to u's host, or to socket when set, through TLS for https
// (target.Handshake: unverified unless r.Verify, as the kubelet's prober;
// no ALPN, so the server answers in HTTP/1.1), and sets ctx's deadline on
// the connection, handshake included.
func dial(ctx context.Context, u *url.URL, socket string, r Request) (net.Conn, error) {
	addr := target.UnixPrefix + socket
	if socket == "" {
		port := u.Port()
		switch {
		case port != "":
		case u.Scheme == "https":
			port = "443"
		default:
			port = "80"
		}
		addr = net.JoinHostPort(u.Hostname(), port)
	}
	c, err := target.Dial(ctx, addr)
	if err != nil || u.Scheme != "https" {
		return c, err
	}
	return target.Handshake(ctx, c, u.Hostname(), target.TLS{Verify: r.Verify, CA: r.CA, Cert: r.Cert})
}
