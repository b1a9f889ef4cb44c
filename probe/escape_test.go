package probe

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestFailureEscaped: a failing peer's first body line reaches the probe's
// error with every control byte escaped (excerpt.Escape), not only line
// breaks: the error is shown by /readyz, the JSON log and the termination
// message as it is.
func TestFailureEscaped(t *testing.T) {
	addr := serveRaw(t, func(c net.Conn) {
		_, _ = io.WriteString(c, "HTTP/1.1 500 Oops\r\nContent-Length: 17\r\nConnection: close\r\n\r\n\x1b[31mred\x00\t\x7f\u009bend\n") // the client may have gone
	})
	err := HTTP{URL: "http://" + addr + "/"}.Attempt(context.Background(), Deps{}, 3*time.Second)
	const want = `status 500: \x1b[31mred\x00\t\x7f\u009bend`
	if err == nil || err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
	if strings.ContainsAny(err.Error(), "\x1b\x00\t\x7f\u009b") {
		t.Fatalf("raw control byte in %q", err)
	}
}
