package hooks

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseAction(t *testing.T) {
	cases := []struct {
		in   string
		want Action
		err  string
	}{
		{in: "echo hi", want: Command{Shell: "echo hi"}},
		{in: `["/bin/x","a"]`, want: Command{Argv: []string{"/bin/x", "a"}}},
		{in: "sleep:5s", want: Sleep{D: 5 * time.Second}},
		{in: " sleep:0 ", want: Sleep{}},
		{in: "sleep 5", want: Command{Shell: "sleep 5"}},
		{in: "http://127.0.0.1:8080/quitquitquit", want: HTTPGet{URL: "http://127.0.0.1:8080/quitquitquit"}},
		{in: "https://localhost:8443/drain", want: HTTPGet{URL: "https://localhost:8443/drain"}},
		{in: `{"exec":{"command":["/bin/drain","now"]}}`, want: Command{Argv: []string{"/bin/drain", "now"}}},
		{in: `{"sleep":{"seconds":5}}`, want: Sleep{D: 5 * time.Second}},
		{in: `{"httpGet":{"port":8080,"path":"/drain","httpHeaders":[{"name":"X","value":"y"}]}}`,
			want: HTTPGet{URL: "http://127.0.0.1:8080/drain", Headers: []Header{{"X", "y"}}}},
		{in: `{"httpGet":{"host":"::1","port":9,"scheme":"HTTPS","path":"q"}}`, want: HTTPGet{URL: "https://[::1]:9/q"}},
		// POST (tend's), and unix sockets (nginx's form)
		{in: "POST http://127.0.0.1:15020/quitquitquit", want: HTTPGet{URL: "http://127.0.0.1:15020/quitquitquit", Method: "POST"}},
		{in: " POST https://h:1/x ", want: HTTPGet{URL: "https://h:1/x", Method: "POST"}},
		{in: "http://unix:/run/app.sock:/drain?now=1", want: HTTPGet{URL: "http://unix:/run/app.sock:/drain?now=1"}},
		{in: "POST http://unix:/run/app.sock", want: HTTPGet{URL: "http://unix:/run/app.sock", Method: "POST"}},
		{in: `{"httpPost":{"port":4191,"path":"/shutdown"}}`, want: HTTPGet{URL: "http://127.0.0.1:4191/shutdown", Method: "POST"}},
		{in: `{"httpPost":{"host":"::1","port":15020,"scheme":"HTTPS","path":"/quitquitquit","body":"{\"a\":1}","httpHeaders":[{"name":"Content-Type","value":"application/json"}]}}`,
			want: HTTPGet{URL: "https://[::1]:15020/quitquitquit", Method: "POST", Body: `{"a":1}`, Headers: []Header{{"Content-Type", "application/json"}}}},
		{in: `{"httpPost":{"port":0}}`, err: "1..65535"},
		{in: `{"httpPost":{"port":1,"host":"a b"}}`, err: "httpPost.host"},
		{in: `{"httpPost":{"port":1,"body":"` + strings.Repeat("x", 64<<10+1) + `"}}`, err: "httpPost.body of 65537 bytes"},
		{in: `{"httpPost":{"port":1},"httpGet":{"port":1}}`, err: "exactly one"},
		{in: `{"httpGet":{"port":1,"body":"x"}}`, err: "unknown field"},
		{in: "POST http://", err: "HOST:PORT"},
		{in: "POST http://h:1/ x", err: "without blanks"},
		{in: "PUT http://h:1/", want: Command{Shell: "PUT http://h:1/"}},
		{in: "http://unix:run.sock:/x", err: "absolute path"},
		{in: "http://unix:/run.sock:x", err: "':/'"},
		{in: "sleep:-1s", err: "sleep:DURATION"},
		{in: "sleep:soon", err: "sleep:DURATION"},
		{in: "http://", err: "HOST:PORT"},
		{in: "http://a b/", err: "HOST:PORT"},
		{in: `{"exec":{"command":["x"]},"sleep":{"seconds":1}}`, err: "exactly one"},
		{in: `{}`, err: "exactly one"},
		{in: `{"exec":{"command":["x"]},"bogus":1}`, err: "unknown field"},
		{in: `{"exec":{"cmd":["x"]}}`, err: "unknown field"},
		{in: `{"exec":{"command":[]}}`, err: "program"},
		{in: `{"httpGet":{"port":0}}`, err: "1..65535"},
		{in: `{"httpGet":{"port":70000}}`, err: "1..65535"},
		{in: `{"httpGet":{"port":"http"}}`, err: "named port"},
		{in: `{"httpGet":{"path":"/x"}}`, err: "port is required"},
		{in: `{"httpGet":{"port":80,"scheme":"FTP"}}`, err: "HTTP or HTTPS"},
		{in: `{"tcpSocket":{"port":80}}`, err: "tcpSocket"},
		{in: `{"sleep":{"seconds":-1}}`, err: "seconds"},
		{in: `{"sleep":{}}`, err: "seconds"},
		{in: `{"sleep":{"seconds":1}} {}`, err: "trailing"},
		{in: `{"sleep":`, err: "LifecycleHandler"},
	}
	for _, c := range cases {
		got, err := ParseAction(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("ParseAction(%q) = %v, %v; want one line containing %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseAction(%q) = %#v, %v; want %#v", c.in, got, err, c.want)
		}
	}
}

func TestRunnerSleepAndHTTP(t *testing.T) {
	var got []string
	r := Runner{Timeout: time.Second, Get: func(ctx context.Context, h HTTPGet) (int, error) {
		got = append(got, h.URL)
		if _, ok := ctx.Deadline(); !ok {
			t.Error("an HTTP action must be bounded by the hook timeout")
		}
		return 200, nil
	}}
	start := time.Now()
	if err := r.Run(context.Background(), []Action{Sleep{D: 50 * time.Millisecond}, HTTPGet{URL: "http://x:1/"}}); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < 50*time.Millisecond || !reflect.DeepEqual(got, []string{"http://x:1/"}) {
		t.Fatalf("sleep then GET: took %s, got %v", time.Since(start), got)
	}
	// A sleep longer than the deadline is cut there and fails.
	ctx, cancel := context.WithTimeoutCause(context.Background(), 50*time.Millisecond, errors.New("grace period expired"))
	defer cancel()
	err := Runner{Timeout: time.Minute}.Run(ctx, []Action{Sleep{D: time.Minute}})
	if err == nil || !strings.Contains(err.Error(), "grace period expired") {
		t.Fatalf("want the sleep cut at the deadline, got %v", err)
	}
	// And by the hook timeout.
	if err := (Runner{Timeout: 20 * time.Millisecond}).Run(context.Background(), []Action{Sleep{D: time.Minute}}); !errors.Is(err, ErrTimeout) {
		t.Fatalf("want a timeout, got %v", err)
	}
}
