package grpc

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// healthServer is an independent HTTP/2 server (net/http's own, h2c with
// prior knowledge): it answers Check with a hand-framed gRPC response chosen by
// the service name, so that tend's client meets a stack it shares no code
// with.
func healthServer(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	timeoutRE := regexp.MustCompile(`^[0-9]{1,8}[HMSmun]$`)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16)) // a short body fails the checks below
		bad := ""
		switch {
		case r.ProtoMajor != 2, r.Method != "POST", r.URL.Path != "/grpc.health.v1.Health/Check":
			bad = "request line " + r.Proto + " " + r.Method + " " + r.URL.Path
		case r.Header.Get("Content-Type") != "application/grpc", r.Header.Get("Te") != "trailers",
			r.Header.Get("User-Agent") != "tend", !timeoutRE.MatchString(r.Header.Get("Grpc-Timeout")):
			bad = "headers " + strings.Join([]string{r.Header.Get("Content-Type"), r.Header.Get("Te"), r.Header.Get("User-Agent"), r.Header.Get("Grpc-Timeout")}, "|")
		case len(body) < 5 || body[0] != 0 || int(binary.BigEndian.Uint32(body[1:5])) != len(body)-5:
			bad = "message prefix"
		}
		var service string
		if bad == "" {
			m := body[5:]
			if len(m) > 0 {
				if len(m) < 2 || m[0] != 0x0a || int(m[1]) != len(m)-2 {
					bad = "message"
				} else {
					service = string(m[2:])
				}
			}
		}
		w.Header().Set("Content-Type", "application/grpc")
		if bad != "" {
			w.Header().Set("Grpc-Status", "3")
			w.Header().Set("Grpc-Message", "test server: bad "+bad)
			return
		}
		status := map[string]byte{"": 1, "serving": 1, "not-serving": 2, "unknown": 0, "service-unknown": 3, "enum-9": 9}
		switch service {
		case "missing": // trailers-only, as grpc-go's health server for an unknown service
			w.Header().Set("Grpc-Status", "5")
			w.Header().Set("Grpc-Message", "unknown service")
			return
		case "unimplemented":
			w.Header().Set("Grpc-Status", "12")
			w.Header().Set("Grpc-Message", "unknown service grpc.health.v1.Health")
			return
		case "message-escaped":
			w.Header().Set("Grpc-Status", "14")
			w.Header().Set("Grpc-Message", "down%0A%1b[31mnow%")
			return
		}
		s, ok := status[service]
		if !ok {
			w.Header().Set("Grpc-Status", "2")
			return
		}
		w.Header().Set("Trailer", "Grpc-Status, Grpc-Message")
		w.WriteHeader(200)
		msg := []byte{0x08, s}
		if service == "unknown" {
			msg = nil // proto3 omits the zero enum value
		}
		if service == "serving" {
			msg = append([]byte{0x12, 0x02, 'h', 'i'}, msg...) // an unknown field first
		}
		frame := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
		_, _ = w.Write(append(frame, msg...)) // the client sees a failed write as a broken answer
		w.Header().Set("Grpc-Status", "0")
		w.Header().Set("Grpc-Message", "")
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, Protocols: new(http.Protocols)}
	srv.Protocols.SetUnencryptedHTTP2(true) // h2c with prior knowledge, as the kubelet speaks
	go func() { _ = srv.Serve(ln) }()       // returns ErrServerClosed at cleanup
	t.Cleanup(func() { _ = srv.Close() })   // the listener goes with the test
	return ln.Addr().String()
}

func TestCheckWellBehavedPeer(t *testing.T) {
	addr := healthServer(t)
	for _, tc := range []struct {
		service string
		want    string // "" for success
		is      error
	}{
		{"", "", nil},
		{"serving", "", nil},
		{"not-serving", `service unhealthy (responded with "NOT_SERVING")`, nil},
		{"unknown", `service unhealthy (responded with "UNKNOWN")`, nil},
		{"service-unknown", `service unhealthy (responded with "SERVICE_UNKNOWN")`, nil},
		{"enum-9", `service unhealthy (responded with "9")`, nil},
		{"missing", `health rpc probe failed: code = NotFound desc = "unknown service"`, nil},
		{"unimplemented", `this server does not implement the grpc health protocol (grpc.health.v1.Health): "unknown service grpc.health.v1.Health"`, nil},
		{"message-escaped", `health rpc probe failed: code = Unavailable desc = "down\n\x1b[31mnow%"`, nil},
		{"other", `health rpc probe failed: code = Unknown desc = ""`, nil},
	} {
		t.Run(tc.service, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := HealthCheck(ctx, addr, tc.service)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("Check(%q) = %q, want %q", tc.service, got, tc.want)
			}
			if err != nil && errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("a verdict %q reads as a timeout", got)
			}
		})
	}
}

func TestCheckRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // the port is now closed: the dial is refused
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = HealthCheck(ctx, addr, "")
	if err == nil || !strings.Contains(err.Error(), "connection refused") || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Check on a closed port = %v", err)
	}
}

// BenchmarkCheck: one whole call, connect to close, on loopback.
func BenchmarkCheck(b *testing.B) {
	addr := healthServer(b)
	b.ReportAllocs()
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := HealthCheck(ctx, addr, "serving")
		cancel()
		if err != nil {
			b.Fatal(err)
		}
	}
}
