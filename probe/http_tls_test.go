package probe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/http1"
	"github.com/tend-init/tend/internal/testpki"
)

// tlsTimeout bounds each TLS request: generous, since a handshake under
// -race on a loaded 2-core machine has taken over 2 s, and no case here
// expects a timeout.
const tlsTimeout = 15 * time.Second

// TestHTTPS: a self-signed server passes unverified (the kubelet's way),
// and verified against its own CA; verified against another CA, or the
// system roots, it fails.
func TestHTTPS(t *testing.T) {
	sni := make(chan string, 8)
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ok" {
			w.WriteHeader(503)
		}
	}))
	s.TLS = &tls.Config{GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
		sni <- h.ServerName
		return nil, nil
	}}
	s.StartTLS()
	defer s.Close()
	own := x509.NewCertPool()
	own.AddCert(s.Certificate())
	for _, c := range []struct {
		name string
		r    http1.Request
		err  string // "" to pass
	}{
		{"unverified", http1.Request{URL: s.URL + "/ok"}, ""},
		{"unverified, 503", http1.Request{URL: s.URL + "/down"}, "status 503"},
		{"verified, its CA", http1.Request{URL: s.URL + "/ok", Verify: true, CA: own}, ""},
		{"verified, another CA", http1.Request{URL: s.URL + "/ok", Verify: true, CA: testpki.Write(t, t.TempDir()).Pool}, "certificate"},
		{"verified, system roots", http1.Request{URL: s.URL + "/ok", Verify: true}, "certificate"},
	} {
		if _, err := Get(c.r, tlsTimeout); c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
		if name := <-sni; name != "" {
			t.Errorf("%s: SNI %q for an IP address", c.name, name)
		}
	}
	// A host name is sent as SNI (and checked when verifying: the test
	// certificate names example.com, not localhost).
	port := s.URL[strings.LastIndex(s.URL, ":")+1:]
	if err := (HTTP{URL: "https://localhost:" + port + "/ok"}).Attempt(context.Background(), Deps{}, tlsTimeout); err != nil {
		t.Errorf("https://localhost: %v", err)
	} else if name := <-sni; name != "localhost" {
		t.Errorf("SNI %q, want localhost", name)
	}
	_, err := Get(http1.Request{URL: "https://localhost:" + port + "/ok", Verify: true, CA: own}, tlsTimeout)
	if err == nil || !strings.Contains(err.Error(), "localhost") {
		t.Errorf("verified https://localhost against a certificate for example.com: %v", err)
	}
}

// TestHTTPSFailures: https to a plain server fails, and a server that
// accepts but never answers the handshake fails at the timeout.
func TestHTTPSFailures(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer plain.Close()
	if err := getURL(strings.Replace(plain.URL, "http:", "https:", 1)+"/", tlsTimeout); err == nil {
		t.Error("https to a plain http server passed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }() // test cleanup
	held := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			held <- c // never answered; closed below
		}
	}()
	start := time.Now()
	err = getURL("https://"+ln.Addr().String()+"/", 200*time.Millisecond)
	if err == nil || err.Error() != "timed out" || time.Since(start) > time.Second {
		t.Errorf("silent server: %v after %s, want timed out", err, time.Since(start))
	}
	select {
	case c := <-held:
		_ = c.Close() // test cleanup
	case <-time.After(time.Second):
		t.Error("the client never connected")
	}
}
