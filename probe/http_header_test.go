package probe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/tend-init/tend/http1"
)

// TestHeadersReachServer: what net/http's server sees of the defaults and
// of custom headers.
func TestHeadersReachServer(t *testing.T) {
	got := make(chan *http.Request, 1)
	s := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got <- r }))
	defer s.Close()
	get := func(hs ...http1.Header) *http.Request {
		t.Helper()
		if err := (HTTP{URL: s.URL + "/x", Headers: hs}).Attempt(context.Background(), Deps{UserAgent: UserAgent("1.2.3")}, time.Second); err != nil {
			t.Fatal(err)
		}
		return <-got
	}
	r := get()
	if ua := r.Header.Get("User-Agent"); ua != "tend/1.2.3" || r.Header.Get("Accept") != "*/*" || !r.Close || r.Host != s.Listener.Addr().String() {
		t.Errorf("defaults: User-Agent %q, headers %v, close %v, Host %q", ua, r.Header, r.Close, r.Host)
	}
	r = get(http1.Header{Name: "X-Probe", Value: "a"}, http1.Header{Name: "X-Probe", Value: "b"}, http1.Header{Name: "Authorization", Value: "Bearer t"})
	if v := r.Header.Values("X-Probe"); len(v) != 2 || v[0] != "a" || v[1] != "b" || r.Header.Get("Authorization") != "Bearer t" {
		t.Errorf("custom headers: %v", r.Header)
	}
	r = get(http1.Header{Name: "User-Agent", Value: ""})
	if _, ok := r.Header["User-Agent"]; ok {
		t.Errorf("an empty User-Agent must remove it: %v", r.Header)
	}
	r = get(http1.Header{Name: "Host", Value: "app.example"})
	if r.Host != "app.example" {
		t.Errorf("Host = %q, want app.example", r.Host)
	}
}
