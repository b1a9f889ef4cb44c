package http1

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

// TestRequestHead: the exact head written, with the kubelet's rules for
// headers that replace or remove a default.
func TestRequestHead(t *testing.T) {
	u, _ := url.Parse("http://127.0.0.1:8080/healthz?full=1#frag") // a constant URL
	const line = "GET /healthz?full=1 HTTP/1.1\r\n"
	const std = "Host: 127.0.0.1:8080\r\nUser-Agent: tend/dev\r\nAccept: */*\r\nConnection: close\r\n"
	for _, c := range []struct {
		name string
		hs   []Header
		want string // after the request line, before the blank line
	}{
		{"defaults", nil, std},
		{"custom, in order", []Header{{"X-B", "2"}, {"X-A", "1"}, {"X-B", "3"}}, std + "X-B: 2\r\nX-A: 1\r\nX-B: 3\r\n"},
		{"empty custom value is sent", []Header{{"X-Empty", ""}}, std + "X-Empty: \r\n"},
		{"User-Agent replaced, first wins", []Header{{"user-agent", "k"}, {"User-Agent", "j"}},
			"Host: 127.0.0.1:8080\r\nUser-Agent: k\r\nAccept: */*\r\nConnection: close\r\n"},
		{"User-Agent removed", []Header{{"User-Agent", ""}}, "Host: 127.0.0.1:8080\r\nAccept: */*\r\nConnection: close\r\n"},
		{"Accept replaced", []Header{{"Accept", "application/json"}},
			"Host: 127.0.0.1:8080\r\nUser-Agent: tend/dev\r\nConnection: close\r\nAccept: application/json\r\n"},
		{"Accept removed", []Header{{"Accept", ""}, {"Accept", "text/plain"}},
			"Host: 127.0.0.1:8080\r\nUser-Agent: tend/dev\r\nConnection: close\r\n"},
		{"Host overridden, first wins", []Header{{"HOST", "app.test"}, {"Host", "other.test"}},
			"Host: app.test\r\nUser-Agent: tend/dev\r\nAccept: */*\r\nConnection: close\r\n"},
		{"empty Host keeps the URL's", []Header{{"Host", ""}}, std},
		{"Connection close always", []Header{{"Connection", ""}, {"Connection", "close"}, {"Connection", "x"}}, std + "Connection: x\r\n"},
		{"no body framing", []Header{{"Content-Length", "5"}, {"Transfer-Encoding", "chunked"}, {"Trailer", "X"}}, std},
	} {
		hs, err := newHeaderSet(c.hs, "tend/dev")
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := hs.head(u, hs.host, ""); got != line+c.want+"\r\n" {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, line+c.want+"\r\n")
		}
	}
	hs, _ := newHeaderSet([]Header{{"Referer", "mine"}}, "") // valid: the table above checks errors
	if got := hs.head(u, "", "http://prev/"); strings.Contains(got, "prev") {
		t.Errorf("a given Referer must win: %q", got)
	}
	// The default User-Agent is the request's, "tend" when it has none.
	for ua, want := range map[string]string{"": "tend", "tend/1.2.3": "tend/1.2.3"} {
		if hs, err := newHeaderSet(nil, ua); err != nil || !strings.Contains(hs.head(u, "", ""), "\r\nUser-Agent: "+want+"\r\n") {
			t.Errorf("UserAgent %q: %v, %q; want User-Agent: %s", ua, err, hs.head(u, "", ""), want)
		}
	}
	if _, err := newHeaderSet(nil, "tend/1\r\nX-Evil: 1"); err == nil {
		t.Error("a default User-Agent with a line break accepted")
	}
	for _, bad := range []Header{{"X-A", "a\r\nX-Evil: 1"}, {"X-A", "a\nb"}, {"X A", "1"}, {"", "1"}, {"X:", "1"}, {"Host", "a b"}} {
		if _, err := newHeaderSet([]Header{bad}, ""); err == nil {
			t.Errorf("%q accepted", bad)
		}
		if _, err := Get(context.Background(), Request{URL: "http://127.0.0.1:1/", Headers: []Header{bad}}); err == nil ||
			strings.Contains(err.Error(), "refused") {
			t.Errorf("Get with %q: %v, want an error before connecting", bad, err)
		}
	}
}
