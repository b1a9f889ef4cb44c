package target

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/tend-init/tend/internal/excerpt"
)

// UnixPrefix names a unix socket where HOST:PORT would stand, in every kind
// of target: http://unix:/run/app.sock:/healthz, https://unix:/PATH:/URI,
// grpc://unix:/PATH[:/SERVICE], grpcs://…, tcp://unix:/PATH. It is nginx's
// form (proxy_pass http://unix:/tmp/backend.socket:/uri/; grpc_pass
// unix:/tmp/grpc.socket), chosen over the other two that users write:
// curl's --unix-socket PATH is a second argument beside the URL, which a
// one-string probe or hook cannot carry; gRPC's unix:///PATH names no
// protocol, so it cannot tell an HTTP probe from a gRPC one, and has
// nowhere for a path or service. nginx's keeps the scheme (the protocol)
// and puts the socket where the address goes, so every kind reads alike.
// As in nginx, the path ends at the first ':' and the rest, if any, starts
// with '/'.
const UnixPrefix = "unix:"

// maxSocketPath is sun_path's size less its NUL (unix(7)): a longer path
// cannot be connected to at all.
const maxSocketPath = 107

// IsUnix reports whether addr (what follows "SCHEME://") names a unix
// socket.
func IsUnix(addr string) bool { return strings.HasPrefix(addr, UnixPrefix) }

// SplitUnix reads "unix:/PATH" or "unix:/PATH:/REST" (what follows
// "SCHEME://"), and returns the socket's path and REST ("" or starting
// with '/'). The path is absolute (a relative one would depend on tend's
// working directory, which hooks may not share), at most 107 bytes, and
// holds no control byte.
func SplitUnix(s string) (path, rest string, err error) {
	if !IsUnix(s) {
		return "", "", errors.New("want unix:/PATH")
	}
	path, rest, cut := strings.Cut(s[len(UnixPrefix):], ":")
	switch {
	case !strings.HasPrefix(path, "/"):
		return "", "", fmt.Errorf("socket %s: want an absolute path, unix:/PATH", excerpt.Quote(path))
	case len(path) > maxSocketPath:
		return "", "", fmt.Errorf("socket path of %d bytes: at most %d fit in sun_path", len(path), maxSocketPath)
	case strings.ContainsFunc(path, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return "", "", fmt.Errorf("socket %s: control byte in the path", excerpt.Quote(path))
	case cut && !strings.HasPrefix(rest, "/"):
		return "", "", fmt.Errorf("after the socket %s: want ':/' and a path, as nginx's unix:/PATH:/URI", excerpt.Quote(path))
	}
	return path, rest, nil
}

// CheckDialAddr is CheckAddr for a target to reach (port 1..65535), which
// may also be a unix socket, "unix:/PATH" with nothing after it.
func CheckDialAddr(addr string) error {
	if !IsUnix(addr) {
		return CheckAddr(addr, 1)
	}
	_, rest, err := SplitUnix(addr)
	if err == nil && rest != "" {
		err = fmt.Errorf("want unix:/PATH, not %s", excerpt.Quote(addr))
	}
	return err
}

// network is the network and address net.Dial takes for addr, a
// HOST:PORT or "unix:/PATH" checked by CheckDialAddr.
func network(addr string) (string, string) {
	if IsUnix(addr) {
		return "unix", addr[len(UnixPrefix):]
	}
	return "tcp", addr
}

// unixURL is the URL an http://unix:/PATH[:/URI] target requests: the
// scheme, host "localhost" (the Host header curl sends with --unix-socket
// and nginx with a unix: upstream), and URI.
func unixURL(s string) (*url.URL, string, error) {
	scheme, rest, _ := strings.Cut(s, "://")
	path, uri, err := SplitUnix(rest)
	if err != nil {
		return nil, "", err
	}
	if uri == "" {
		uri = "/"
	}
	u, err := url.Parse(scheme + "://localhost" + uri)
	if err != nil || u.Host != "localhost" {
		return nil, "", errors.New("want http(s)://unix:/PATH:/URI")
	}
	return u, path, nil
}
