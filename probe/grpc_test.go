package probe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tend-init/tend/grpc"
)

func TestParseGRPC(t *testing.T) {
	cases := []struct {
		in            string
		addr, service string
		secure        bool
		err           string // a substring of the error; "" when accepted
	}{
		{in: "grpc://127.0.0.1:50051", addr: "127.0.0.1:50051"},
		{in: "grpc://127.0.0.1:50051/", addr: "127.0.0.1:50051"},
		{in: "grpc://db:1/grpc.health.v1.Health", addr: "db:1", service: "grpc.health.v1.Health"},
		{in: "grpc://[::1]:9/a/b", addr: "[::1]:9", service: "a/b"},
		{in: "grpc://:50051/x", addr: ":50051", service: "x"},
		{in: "grpc://h:65535/ sp ace", addr: "h:65535", service: " sp ace"},
		{in: "grpc://h", err: "want grpc://HOST:PORT[/SERVICE]"},
		{in: "grpc://", err: "want grpc://HOST:PORT[/SERVICE]"},
		{in: "grpc://h:0", err: "want 1..65535"},
		{in: "grpc://h:65536", err: "want 1..65535"},
		{in: "grpc://h:http/x", err: "want 1..65535"},
		{in: "grpc://h%x:1", err: "host"},
		{in: "grpc://h:1/s?x=1", err: "no query or fragment"},
		{in: "grpc://h:1/s#f", err: "no query or fragment"},
		{in: "grpcs://h:1/s", addr: "h:1", service: "s", secure: true},
		{in: "grpc://unix:/run/app.sock", addr: "unix:/run/app.sock"},
		{in: "grpcs://unix:/run/app.sock:/a.B/c", addr: "unix:/run/app.sock", service: "a.B/c", secure: true},
		{in: "grpc://unix:/run/app.sock/a", addr: "unix:/run/app.sock/a"},
		{in: "grpc://unix:/run/app.sock:a", err: "':/'"},
		{in: "grpc://unix:app.sock", err: "absolute path"},
		{in: "grpc://unix:/a?b", err: "no query or fragment"},
	}
	for _, c := range cases {
		g, err := parseGRPC(c.in)
		switch {
		case c.err == "" && (err != nil || g.Addr != c.addr || g.Service != c.service || g.Secure != c.secure):
			t.Errorf("parseGRPC(%q) = %+v, %v; want %q %q", c.in, g, err, c.addr, c.service)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("parseGRPC(%q) = %+v, %v; want an error with %q", c.in, g, err, c.err)
		}
	}
}

func TestParseSpecGRPCString(t *testing.T) {
	for _, s := range []string{"grpc://h:1", "grpc://h:1/a.B/c", "grpcs://h:1/s", "grpc://unix:/a.sock", "grpcs://unix:/a.sock:/s"} {
		c, err := ParseSpec(s)
		if err != nil || c.String() != s {
			t.Errorf("ParseSpec(%q).String() = %v, %v", s, c, err)
		}
	}
	_, err := ParseSpec("ftp://h:1")
	if err == nil || !strings.Contains(err.Error(), "grpc://") {
		t.Errorf("unsupported scheme error %v does not list grpc://", err)
	}
}

// TestGRPCReasons: the wire client's errors become the reasons other
// probes give: "timed out" for the deadline, Unknown for tend's own
// resource errors, one line otherwise; and the timeout reaches the client.
func TestGRPCReasons(t *testing.T) {
	defer func(f func(context.Context, grpc.Target, string) error) { healthCheck = f }(healthCheck)
	cases := []struct {
		wire    error
		want    string
		unknown bool
	}{
		{wire: nil},
		{wire: fmt.Errorf("health check: %w", context.DeadlineExceeded), want: "timed out"},
		{wire: errors.New("status NOT_SERVING"), want: "status NOT_SERVING"},
		{wire: errors.New("two\nlines"), want: `two\nlines`},
		{wire: fmt.Errorf("dial: %w", unix.EMFILE), want: "could not run the probe", unknown: true},
	}
	for _, c := range cases {
		var gotAddr, gotService string
		var hasDeadline bool
		healthCheck = func(ctx context.Context, tg grpc.Target, service string) error {
			gotAddr, gotService = tg.Addr, service
			_, hasDeadline = ctx.Deadline()
			return c.wire
		}
		err := GRPC{Addr: "h:1", Service: "s"}.Attempt(context.Background(), Deps{}, time.Second)
		switch {
		case gotAddr != "h:1" || gotService != "s" || !hasDeadline:
			t.Errorf("wire client called with %q %q, deadline %v", gotAddr, gotService, hasDeadline)
		case c.wire == nil && err != nil, c.wire != nil && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("wire error %v: got %v, want %q", c.wire, err, c.want)
		case errors.Is(err, ErrUnknown) != c.unknown:
			t.Errorf("wire error %v: got %v, Unknown %v", c.wire, err, c.unknown)
		}
	}
}
