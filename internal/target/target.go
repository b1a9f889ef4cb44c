// Package target checks the address of something tend will reach: a host
// name or IP address, and an http(s) URL that tend can GET as written. Hook
// actions, probes and the HTTP/1.1 client all apply the same rules, so a
// target that would fail every attempt, or reach another target than
// written, stops tend at its start instead.
package target

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/tend-init/tend/internal/excerpt"
)

// ErrNotHostPort is CheckAddr's error for an address that is not HOST:PORT.
var ErrNotHostPort = errors.New("want HOST:PORT")

// PortError is CheckAddr's error for a port that is not a number from Min
// to 65535.
type PortError struct {
	Port string
	Min  int
}

func (e *PortError) Error() string {
	return fmt.Sprintf("port %s: want %d..65535", excerpt.Quote(e.Port), e.Min)
}

// CheckAddr is the one check of a HOST:PORT address, for the health
// endpoint's and for a tcp:// or grpc:// probe's: the host is a host name or
// an IP address (CheckHost), or none (every interface, or this container),
// and the port a number from minPort to 65535: 0 for an address to listen
// on, where the kernel picks, 1 for one to reach. The caller words the
// error (ErrNotHostPort, *PortError, or CheckHost's) for its flag.
func CheckAddr(addr string, minPort int) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return ErrNotHostPort
	}
	if n, err := strconv.Atoi(port); err != nil || n < minPort || n > 65535 {
		return &PortError{Port: port, Min: minPort}
	}
	if host == "" {
		return nil
	}
	return CheckHost(host)
}

// ParseHTTPURL reads an http:// or https:// URL that tend can GET as
// written: its host is a host name or an IP address (CheckHost), an
// explicit port is 1..65535, and it carries no user info, which tend
// would not send. For a unix socket, http(s)://unix:/PATH[:/URI]
// (UnixPrefix), socket is the path and u is the URL requested over it,
// with host "localhost".
func ParseHTTPURL(s string) (u *url.URL, socket string, err error) {
	if i := strings.Index(s, "://"); i >= 0 && IsUnix(s[i+3:]) && (s[:i] == "http" || s[:i] == "https") {
		return unixURL(s)
	}
	u, err = parseHTTPURL(s)
	return u, "", err
}

func parseHTTPURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil, u.Scheme != "http" && u.Scheme != "https", u.Host == "", u.Opaque != "":
		return nil, errors.New("want http(s)://HOST:PORT/PATH")
	case u.User != nil:
		return nil, errors.New("user info in the URL: tend does not send it (use an Authorization header in a JSON httpGet)")
	}
	if err := CheckHost(u.Hostname()); err != nil {
		return nil, err
	}
	if p := u.Port(); p != "" || strings.HasSuffix(u.Host, ":") {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, &PortError{Port: p, Min: 1}
		}
	}
	return u, nil
}

// CheckHost accepts a host name (letters, digits, '-', '_' and '.', at most
// 253 bytes) or an IP address, an IPv6 one with a zone too, unbracketed. So
// "localhost/x?" cannot turn into a GET of port 80 on localhost, and a
// blank, '@', '#' or control byte is an error before anything starts.
// Kubernetes does not validate httpGet.host; the kubelet puts it in a URL,
// where such a host fails every attempt or names another target.
func CheckHost(h string) error {
	if _, err := netip.ParseAddr(h); err == nil {
		return nil
	}
	ok := h != "" && len(h) <= 253
	for i := 0; ok && i < len(h); i++ {
		c := h[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	if !ok {
		return fmt.Errorf("host %s: want a host name or an IP address", excerpt.Quote(h))
	}
	return nil
}
