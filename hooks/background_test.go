package hooks

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestRunnerGo: Go reports each run's result once, through done, bounded by
// the deadline and cut by the returned cancel with its cause.
func TestRunnerGo(t *testing.T) {
	cut := errors.New("stop overtook post-start")
	for _, c := range []struct {
		name     string
		acts     []Action
		deadline time.Duration // from now; 0: none
		cancel   bool
		want     func(error) bool
	}{
		{"nothing to run", nil, 0, false, func(err error) bool { return err == nil }},
		{"a short sleep", []Action{Sleep{D: time.Millisecond}}, 0, false, func(err error) bool { return err == nil }},
		{"cut at the deadline", []Action{Sleep{D: time.Hour}}, 20 * time.Millisecond, false,
			func(err error) bool { return errors.Is(err, context.DeadlineExceeded) }},
		{"cancelled with a cause", []Action{Sleep{D: time.Hour}}, 0, true, func(err error) bool { return errors.Is(err, cut) }},
	} {
		var deadline time.Time
		if c.deadline > 0 {
			deadline = time.Now().Add(c.deadline)
		}
		got := make(chan error, 2)
		cancel := Runner{Timeout: time.Hour}.Go(c.acts, deadline, func(err error, took time.Duration) {
			if took < 0 {
				t.Errorf("%s: took %s", c.name, took)
			}
			got <- err
		})
		if c.cancel {
			cancel(cut)
		}
		select {
		case err := <-got:
			if !c.want(err) {
				t.Errorf("%s: reported %v", c.name, err)
			}
		case <-time.After(time.Minute): // a hang bound, not a timing
			t.Fatalf("%s: no report", c.name)
		}
		cancel(nil)
	}
}

// TestHTTPClient: the client sends the User-Agent it was given, tells
// answered each status, and returns errors without an answer.
func TestHTTPClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.UserAgent() != "tend-test/1" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/"
	_ = l.Close() // now nothing listens there
	for _, c := range []struct {
		url      string
		wantCode int
		wantErr  bool
	}{
		{srv.URL + "/", http.StatusAccepted, false},
		{refused, 0, true},
	} {
		var answered []int
		get := HTTPClient("tend-test/1", func(h HTTPGet, code int) {
			if h.URL != c.url {
				t.Errorf("answered for %s, asked %s", h.URL, c.url)
			}
			answered = append(answered, code)
		})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		code, err := get(ctx, HTTPGet{URL: c.url})
		cancel()
		if code != c.wantCode || (err != nil) != c.wantErr {
			t.Errorf("%s: got %d, %v; want %d, error %v", c.url, code, err, c.wantCode, c.wantErr)
		}
		if want := map[bool]int{false: 1, true: 0}[c.wantErr]; len(answered) != want || (want == 1 && answered[0] != c.wantCode) {
			t.Errorf("%s: answered %v", c.url, answered)
		}
	}
}
