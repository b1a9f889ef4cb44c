package http1

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/tend-init/tend/internal/excerpt"
)

// headerSet is a request's headers, checked once and written on every hop,
// with the kubelet's rules (its newProbeRequest, then net/http's writer):
//   - Host: the first Host header sets it; empty means the URL's host.
//   - User-Agent: the request's default (Request.UserAgent, else "tend")
//     unless given; the first one given is sent, and an empty one removes it.
//   - Accept: "*/*" unless given; an empty first one removes them all.
//   - Connection: close is always sent, as by the kubelet's client
//     (DisableKeepAlives); one given is sent too.
//   - Content-Length, Transfer-Encoding and Trailer are dropped, as
//     net/http drops them: a GET without a body must not announce one,
//     and a POST's is computed from its body.
//   - Any other is sent as given, in order, even with an empty value.
type headerSet struct {
	method          string // "GET" or "POST"
	body            []byte // a POST's, announced by Content-Length
	host, userAgent string
	hasUserAgent    bool
	hasAccept       bool // one was given: no default
	rest            []Header
}

// newHeaderSet checks hs: a name must be a token, and no value may hold a
// control byte, so a header cannot smuggle a line into the request.
// userAgent is the default User-Agent ("" for "tend").
func newHeaderSet(hs []Header, userAgent string) (headerSet, error) {
	s := headerSet{method: "GET", userAgent: userAgent}
	switch {
	case userAgent == "":
		s.userAgent = "tend"
	case hasCtl(userAgent, true):
		return headerSet{}, errors.New("User-Agent: control byte in the value")
	}
	seenHost, dropAccepts := false, false
	for _, h := range hs {
		if !isToken(h.Name) {
			return headerSet{}, fmt.Errorf("header name %s is not a token", excerpt.Quote(h.Name))
		}
		if hasCtl(h.Value, true) {
			return headerSet{}, fmt.Errorf("header %s: control byte in the value", h.Name)
		}
		switch {
		case strings.EqualFold(h.Name, "Host"):
			if strings.ContainsAny(h.Value, " \t") {
				return headerSet{}, fmt.Errorf("header Host %s: blank in the value", excerpt.Quote(h.Value))
			}
			if !seenHost {
				s.host, seenHost = h.Value, true
			}
		case strings.EqualFold(h.Name, "User-Agent"):
			if !s.hasUserAgent {
				s.userAgent, s.hasUserAgent = h.Value, true
			}
		case strings.EqualFold(h.Name, "Content-Length"), strings.EqualFold(h.Name, "Transfer-Encoding"),
			strings.EqualFold(h.Name, "Trailer"):
		case strings.EqualFold(h.Name, "Accept"):
			if !s.hasAccept {
				s.hasAccept, dropAccepts = true, h.Value == ""
			}
			if !dropAccepts {
				s.rest = append(s.rest, h)
			}
		case strings.EqualFold(h.Name, "Connection") && (h.Value == "" || strings.EqualFold(h.Value, "close")):
			// The default is always sent; an empty one cannot remove it.
		default:
			s.rest = append(s.rest, h)
		}
	}
	return s, nil
}

// head is the request head of a GET of u. host overrides u's host when
// set; referer is sent, unless one was given, when set.
func (s headerSet) head(u *url.URL, host, referer string) string {
	var b strings.Builder
	w := func(name, value string) {
		b.WriteString(name)
		b.WriteString(": ")
		b.WriteString(value)
		b.WriteString("\r\n")
	}
	b.WriteString(s.method + " " + u.RequestURI() + " HTTP/1.1\r\n")
	if host == "" {
		host = u.Host
	}
	w("Host", host)
	switch {
	case !s.hasUserAgent, s.userAgent != "":
		w("User-Agent", s.userAgent)
	}
	if !s.hasAccept {
		w("Accept", "*/*")
	}
	w("Connection", "close")
	if s.method == "POST" {
		// Even 0, as curl: RFC 9110 section 8.6, a user agent SHOULD
		// send it when the method defines a meaning for content.
		w("Content-Length", strconv.Itoa(len(s.body)))
	}
	if referer != "" && !s.has("Referer") {
		w("Referer", referer)
	}
	for _, h := range s.rest {
		w(h.Name, h.Value)
	}
	b.WriteString("\r\n")
	return b.String()
}

func (s headerSet) has(name string) bool {
	for _, h := range s.rest {
		if strings.EqualFold(h.Name, name) {
			return true
		}
	}
	return false
}
