package probe

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tend-init/tend/http1"
)

// redirectServer answers /ok 200, /fail 500, /to?loc=L with a 302 to L,
// and /chain/N with a 302 to /chain/N-1 down to /chain/0, 200.
func redirectServer(t *testing.T) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == "/ok":
		case p == "/fail":
			w.WriteHeader(500)
		case p == "/to":
			w.Header().Set("Location", r.URL.Query().Get("loc"))
			w.WriteHeader(302)
		case strings.HasPrefix(p, "/chain/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(p, "/chain/")) // a bad N is 0: 200
			if n > 0 {
				w.Header().Set("Location", fmt.Sprintf("/chain/%d", n-1))
				w.WriteHeader(302)
			}
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// TestRedirectSameHost: a probe follows a same-host redirect and judges the
// page it leads to, so a 302 to a 500 fails (it passed when tend counted
// every 3xx as success) and a 302 to a 200 passes.
func TestRedirectSameHost(t *testing.T) {
	s := redirectServer(t)
	ctx := context.Background()
	err := HTTP{URL: s.URL + "/to?loc=/fail"}.Attempt(ctx, Deps{}, time.Second)
	if err == nil || err.Error() != "status 500 from "+s.URL+"/fail" {
		t.Errorf("302 to a 500: %v, want status 500 from %s/fail", err, s.URL)
	}
	note, err := checkNote(ctx, HTTP{URL: s.URL + "/to?loc=/ok"})
	if err != nil || note != "" {
		t.Errorf("302 to a 200: %v, note %q", err, note)
	}
	// --check's Check follows nothing: the 302 is its answer, as before.
	if err := getURL(s.URL+"/to?loc=/fail", time.Second); err != nil {
		t.Errorf("Check counts a 302 as success: %v", err)
	}
	resp, err := http1.Get(ctx, http1.Request{URL: s.URL + "/to?loc=/ok", FollowRedirects: true})
	if err != nil || resp.Code != 200 || resp.URL != s.URL+"/ok" {
		t.Errorf("Get: %+v %v", resp, err)
	}
}

// TestRedirectOtherPort: the kubelet compares host names, not ports, so
// a redirect to another port of the same host is followed and judged.
func TestRedirectOtherPort(t *testing.T) {
	a, b := redirectServer(t), redirectServer(t)
	err := HTTP{URL: a.URL + "/to?loc=" + b.URL + "/fail"}.Attempt(context.Background(), Deps{}, time.Second)
	if err == nil || !strings.Contains(err.Error(), "status 500 from "+b.URL+"/fail") {
		t.Errorf("a 302 to another port of 127.0.0.1 must be followed: %v", err)
	}
}

// TestRedirectOtherHost: a redirect to another host is not followed; its
// 3xx is the answer and counts as success, with a note (the kubelet's
// "Probe terminated redirects" warning). The other host is never asked.
func TestRedirectOtherHost(t *testing.T) {
	a := redirectServer(t)
	var asked atomic.Int64
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		asked.Add(1)
		w.WriteHeader(500)
	}))
	defer b.Close()
	other := "http://localhost:" + b.URL[strings.LastIndex(b.URL, ":")+1:] + "/fail"
	note, err := checkNote(context.Background(), HTTP{URL: a.URL + "/to?loc=" + other})
	if err != nil || !strings.Contains(note, "redirect to "+other+" not followed (another host") {
		t.Errorf("302 to another host: %v, note %q", err, note)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the other host was asked %d times", n)
	}
}

// TestRedirectLimit: the kubelet's limit, checked against net/http with
// its redirectChecker: a chain of 9 redirects is followed to its 200, and
// the 10th redirect fails with net/http's words.
func TestRedirectLimit(t *testing.T) {
	s := redirectServer(t)
	if err := (HTTP{URL: s.URL + "/chain/9"}).Attempt(context.Background(), Deps{}, time.Second); err != nil {
		t.Errorf("9 redirects: %v", err)
	}
	err := HTTP{URL: s.URL + "/chain/10"}.Attempt(context.Background(), Deps{}, time.Second)
	if err == nil || !strings.Contains(err.Error(), "stopped after 10 redirects") {
		t.Errorf("10 redirects: %v, want stopped after 10 redirects", err)
	}
	if err := (HTTP{URL: s.URL + "/chain/11"}).Attempt(context.Background(), Deps{}, time.Second); err == nil {
		t.Errorf("11 redirects passed")
	}
}

// TestRedirectToHTTPS: http to https on the same host (another port) is
// followed, and the https page is what counts.
func TestRedirectToHTTPS(t *testing.T) {
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ok" {
			w.WriteHeader(503)
		}
	}))
	defer tls.Close()
	s := redirectServer(t)
	ctx := context.Background()
	if err := (HTTP{URL: s.URL + "/to?loc=" + tls.URL + "/ok"}).Attempt(ctx, Deps{}, time.Second); err != nil {
		t.Errorf("http to https, 200: %v", err)
	}
	err := HTTP{URL: s.URL + "/to?loc=" + tls.URL + "/down"}.Attempt(ctx, Deps{}, time.Second)
	if err == nil || !strings.Contains(err.Error(), "status 503") {
		t.Errorf("http to https, 503: %v", err)
	}
}

// TestRedirectHostAndReferer: as net/http, a custom Host survives a
// relative redirect but not an absolute one, and each redirected request
// carries the previous URL as Referer.
func TestRedirectHostAndReferer(t *testing.T) {
	type seen struct{ host, referer string }
	got := make(chan seen, 4)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- seen{r.Host, r.Referer()}
		if loc := r.URL.Query().Get("loc"); loc != "" {
			w.Header().Set("Location", loc)
			w.WriteHeader(307)
		}
	}))
	defer s.Close()
	for _, c := range []struct {
		loc, host string
	}{
		{"/next", "app.test"},
		{s.URL + "/next", s.Listener.Addr().String()},
	} {
		first := s.URL + "/?loc=" + c.loc
		r := http1.Request{URL: first, Headers: []http1.Header{{Name: "Host", Value: "app.test"}}, FollowRedirects: true}
		if _, err := http1.Get(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if a := <-got; a != (seen{"app.test", ""}) {
			t.Errorf("first request: %+v", a)
		}
		if b := <-got; b != (seen{c.host, first}) {
			t.Errorf("after a redirect to %s: %+v, want Host %s and Referer %s", c.loc, b, c.host, first)
		}
	}
}

// TestRedirectEdges: what net/http does with odd redirects.
func TestRedirectEdges(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/noloc":
			w.WriteHeader(302) // no Location: the answer
		case "/ftp":
			w.Header().Set("Location", "ftp://127.0.0.1/x")
			w.WriteHeader(301)
		case "/300":
			w.Header().Set("Location", "/fail")
			w.WriteHeader(300) // not a redirect net/http follows
		}
	}))
	defer s.Close()
	for path, want := range map[string]string{"/noloc": "", "/ftp": `unsupported scheme "ftp"`, "/300": ""} {
		note, err := checkNote(context.Background(), HTTP{URL: s.URL + path})
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v (note %q), want %q", path, err, note, want)
		}
	}
}

// checkNote is one attempt of h and the note it handed to Exec.Note.
func checkNote(ctx context.Context, h HTTP) (note string, err error) {
	err = h.Attempt(ctx, Deps{Note: func(n string) { note = n }}, time.Second)
	return note, err
}
