package probe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
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
		hs, err := newHeaderSet(c.hs)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := hs.head(u, hs.host, ""); got != line+c.want+"\r\n" {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, line+c.want+"\r\n")
		}
	}
	hs, _ := newHeaderSet([]Header{{"Referer", "mine"}}) // valid: the table above checks errors
	if got := hs.head(u, "", "http://prev/"); strings.Contains(got, "prev") {
		t.Errorf("a given Referer must win: %q", got)
	}
	for _, bad := range []Header{{"X-A", "a\r\nX-Evil: 1"}, {"X-A", "a\nb"}, {"X A", "1"}, {"", "1"}, {"X:", "1"}, {"Host", "a b"}} {
		if _, err := newHeaderSet([]Header{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
		if _, err := Get(context.Background(), Request{URL: "http://127.0.0.1:1/", Headers: []Header{bad}}); err == nil ||
			strings.Contains(err.Error(), "refused") {
			t.Errorf("Get with %q: %v, want an error before connecting", bad, err)
		}
	}
}

// TestHeadersReachServer: what net/http's server sees of the defaults and
// of custom headers.
func TestHeadersReachServer(t *testing.T) {
	got := make(chan *http.Request, 1)
	s := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got <- r }))
	defer s.Close()
	old := Version
	Version = "1.2.3"
	t.Cleanup(func() { Version = old })
	get := func(hs ...Header) *http.Request {
		t.Helper()
		if _, err := CheckWith(Request{URL: s.URL + "/x", Headers: hs}, time.Second); err != nil {
			t.Fatal(err)
		}
		return <-got
	}
	r := get()
	if ua := r.Header.Get("User-Agent"); ua != "tend/1.2.3" || r.Header.Get("Accept") != "*/*" || !r.Close || r.Host != s.Listener.Addr().String() {
		t.Errorf("defaults: User-Agent %q, headers %v, close %v, Host %q", ua, r.Header, r.Close, r.Host)
	}
	r = get(Header{"X-Probe", "a"}, Header{"X-Probe", "b"}, Header{"Authorization", "Bearer t"})
	if v := r.Header.Values("X-Probe"); len(v) != 2 || v[0] != "a" || v[1] != "b" || r.Header.Get("Authorization") != "Bearer t" {
		t.Errorf("custom headers: %v", r.Header)
	}
	r = get(Header{"User-Agent", ""})
	if _, ok := r.Header["User-Agent"]; ok {
		t.Errorf("an empty User-Agent must remove it: %v", r.Header)
	}
	r = get(Header{"Host", "app.example"})
	if r.Host != "app.example" {
		t.Errorf("Host = %q, want app.example", r.Host)
	}
}
