package target

import (
	"strings"
	"testing"
)

// TestCheckHost: host names and IP addresses pass; anything that would put
// another target in a URL fails. (Also exercised through hooks' and
// probe's target tests.)
func TestCheckHost(t *testing.T) {
	for _, ok := range []string{"localhost", "db.internal", "a_b-c.d", "127.0.0.1", "::1", "fe80::1%eth0", strings.Repeat("a", 253)} {
		if err := CheckHost(ok); err != nil {
			t.Errorf("CheckHost(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", "localhost/x?", "a b", "u@h", "h#f", "h\x00", strings.Repeat("a", 254)} {
		if err := CheckHost(bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("CheckHost(%q) = %v, want a one-line error", bad, err)
		}
	}
}

// TestParseHTTPURL: an http(s) URL tend can GET as written.
func TestParseHTTPURL(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{"http://127.0.0.1:8080/healthz", ""},
		{"https://[::1]:8443/x?y=1", ""},
		{"http://h/", ""},
		{"http://", "want http(s)://HOST:PORT/PATH"},
		{"ftp://h/", "want http(s)://HOST:PORT/PATH"},
		{"http:opaque", "want http(s)://HOST:PORT/PATH"},
		{"http://user:pw@h/", "user info"},
		{"http://h:0/", "want 1..65535"},
		{"http://h:/", "want 1..65535"},
		{"http://h:70000/", "want 1..65535"},
		{"http://a_b!c/", "want a host name or an IP address"},
	} {
		u, _, err := ParseHTTPURL(c.in)
		if c.err == "" && (err != nil || u == nil) || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("ParseHTTPURL(%q) = %v, %v; want error %q", c.in, u, err, c.err)
		}
	}
}

// TestCheckAddr: the one HOST:PORT check, for a listener (port 0 allowed)
// and for a target to reach.
func TestCheckAddr(t *testing.T) {
	for _, c := range []struct {
		in   string
		min  int
		want string // "" accepts
	}{
		{"127.0.0.1:8080", 1, ""},
		{":9090", 0, ""},
		{"[::1]:0", 0, ""},
		{"[fe80::1%eth0]:80", 1, ""},
		{"db.internal:5432", 1, ""},
		{"h:0", 1, `port "0": want 1..65535`},
		{"h:65536", 0, `port "65536": want 0..65535`},
		{"h:http", 1, `port "http": want 1..65535`},
		{"nope", 0, "want HOST:PORT"},
		{"a!b:80", 0, "want a host name or an IP address"},
		{"a b:80", 1, "want a host name or an IP address"},
	} {
		err := CheckAddr(c.in, c.min)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckAddr(%q, %d) = %v, want %q", c.in, c.min, err, c.want)
		}
	}
}
