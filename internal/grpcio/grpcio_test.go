package grpcio

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tend-init/tend/internal/testpki"
)

// TestStart: the address Start returns serves HTTP/2 (the server answers
// the client preface with a SETTINGS frame) plain on TCP, on a unix
// socket, and over TLS with the given certificate, verified against its
// CA with ALPN h2. It runs from another working directory, as every
// caller does: the script is found from this package's source.
func TestStart(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	p := testpki.Write(t, dir)
	for _, c := range []struct {
		name string
		addr string
		args []string
		dial func(addr string) (net.Conn, error)
	}{
		{"tcp", "127.0.0.1:0", nil, func(a string) (net.Conn, error) { return net.DialTimeout("tcp", a, 20*time.Second) }},
		{"unix", "unix:" + filepath.Join(dir, "g.sock"), nil, func(a string) (net.Conn, error) {
			return net.DialTimeout("unix", strings.TrimPrefix(a, "unix:"), 20*time.Second)
		}},
		{"tls", "127.0.0.1:0", []string{p.ServerCert, p.ServerKey}, func(a string) (net.Conn, error) {
			c, err := tls.DialWithDialer(&net.Dialer{Timeout: 20 * time.Second}, "tcp", a,
				&tls.Config{RootCAs: p.Pool, ServerName: "localhost", NextProtos: []string{"h2"}})
			if err == nil && c.ConnectionState().NegotiatedProtocol != "h2" {
				_ = c.Close() // failing anyway
				return nil, fmt.Errorf("ALPN %q, not h2", c.ConnectionState().NegotiatedProtocol)
			}
			return c, err
		}},
	} {
		addr := Start(t, c.addr, c.args...)
		conn, err := c.dial(addr)
		if err != nil {
			t.Errorf("%s: dial %s: %v", c.name, addr, err)
			continue
		}
		_ = conn.SetDeadline(time.Now().Add(20 * time.Second)) // a hang bound; a miss fails the read
		head := make([]byte, 9)
		_, err = io.WriteString(conn, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
		if err == nil {
			_, err = io.ReadFull(conn, head)
		}
		if err != nil || head[3] != 0x4 {
			t.Errorf("%s: first frame % x, %v; want SETTINGS (type 4)", c.name, head, err)
		}
		_ = conn.Close() // test end
	}
}
