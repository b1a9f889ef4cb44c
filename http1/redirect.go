package http1

import (
	"fmt"
	"net/url"

	"github.com/tend-init/tend/internal/excerpt"
)

// maxRedirects is the kubelet's limit. Its redirectChecker refuses a
// redirect once len(via) >= 10, via being the requests already made, so
// the 10th redirect response in a chain fails ("stopped after 10
// redirects") and a chain of 9 is followed to its end. Checked against
// net/http with that checker: 9 redirects give 200, 10 give the error.
const maxRedirects = 10

// redirectTo is a redirect to follow.
type redirectTo struct {
	url      *url.URL
	relative bool // the Location was relative: a custom Host carries over
}

// redirect decides, as the kubelet's client does, what becomes of h, the
// answer to request number hop (0 is the first) for u, orig being the first
// URL, onSocket whether every hop goes to one unix socket. next is nil when h is the answer; note then says why a redirect
// status was not followed. The checks come in net/http's order: the
// Location, then the kubelet's redirectChecker (host, then count), then the
// scheme the new request would need.
func redirect(u, orig *url.URL, onSocket bool, h respHead, hop int) (next *redirectTo, note string, err error) {
	switch h.code {
	case 301, 302, 303, 307, 308:
	default:
		return nil, "", nil
	}
	if h.location == "" {
		// net/http returns such a response as the answer (golang/go#17773).
		return nil, fmt.Sprintf("status %d without a Location counted as success", h.code), nil
	}
	loc, err := url.Parse(h.location)
	if err != nil {
		return nil, "", fmt.Errorf("bad Location %s in a %d response", excerpt.Quote(h.location), h.code)
	}
	abs := u.ResolveReference(loc)
	// The kubelet compares host names only: a redirect to another port
	// of the same host is followed, which is what lets http://host:8080
	// redirect to https://host:8443.
	// On a unix socket, only the socket's own URLs (relative, or
	// http://localhost/...) stay on it; any other is another target.
	if abs.Hostname() != orig.Hostname() || onSocket && (abs.Host != orig.Host || abs.Scheme != orig.Scheme) {
		return nil, fmt.Sprintf("redirect to %s not followed (another host, as the kubelet): status %d counted as success", abs.Redacted(), h.code), nil
	}
	if hop+1 >= maxRedirects {
		return nil, "", fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if abs.Scheme != "http" && abs.Scheme != "https" {
		return nil, "", fmt.Errorf("redirect to %s: unsupported scheme %s", excerpt.Quote(abs.Redacted()), excerpt.Quote(abs.Scheme))
	}
	return &redirectTo{url: abs, relative: !loc.IsAbs()}, "", nil
}

// refererFor is the Referer net/http sends on a redirect from prev to next:
// prev without its user info or fragment, and none from https to http.
func refererFor(prev, next *url.URL) string {
	if prev.Scheme == "https" && next.Scheme == "http" {
		return ""
	}
	r := *prev
	r.User = nil
	r.Fragment, r.RawFragment = "", ""
	return r.String()
}
