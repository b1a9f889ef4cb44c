package http1

import (
	"net/url"
	"strings"
	"testing"
)

// TestReadHead: what the client keeps of a final response's head.
func TestReadHead(t *testing.T) {
	big := strings.Repeat("X: y\r\n", 1000)
	for _, c := range []struct {
		in   string
		want respHead
		err  string
	}{
		{"HTTP/1.1 302 Found\r\nLocation: /a\r\nLocation: /b\r\n\r\n", respHead{code: 302, location: "/a", length: -1}, ""},
		{"HTTP/1.1 302 Found\r\nlocation:  /a\r\n  b \r\n\r\n", respHead{code: 302, location: "/a b", length: -1}, ""},
		{"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n 2\r\n\r\n", respHead{}, `bad Content-Length "1 2"`},
		{"HTTP/1.1 200 OK\r\nContent-Length:  12 \r\n\r\n", respHead{code: 200, length: 12}, ""},
		{"HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n", respHead{code: 200, length: -1, chunked: true}, ""},
		{"HTTP/1.1 204 No Content\r\n\r\n", respHead{code: 204, length: -1, noBody: true}, ""},
		{"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", respHead{code: 200, length: -1}, ""},
		// A head over 4 KiB is read whole, as net/http reads it: the
		// Location after it counts, and a head that never ends fails.
		{"HTTP/1.1 302 Found\r\n" + big + "Location: /x\r\n\r\n", respHead{code: 302, location: "/x", length: -1}, ""},
		{"HTTP/1.1 302 Found\r\nLocation: /x\r\n" + big, respHead{}, "unexpected EOF"},
		{"HTTP/1.1 200 OK\r\nX: " + strings.Repeat("y", 9000) + "\r\n\r\n", respHead{code: 200, length: -1}, ""},
		{"HTTP/1.1 200 OK\r\nX: " + strings.Repeat("y", 9000) + "\x00\r\n\r\n", respHead{}, "control byte"},
		{"HTTP/1.1 200 OK\r\nX: " + strings.Repeat("y", 9000) + "\rz\r\n\r\n", respHead{}, "control byte"},
		{"HTTP/1.1 200 OK\r\nX: " + strings.Repeat("y", 4091) + "\r\n\r\n", respHead{code: 200, length: -1}, ""}, // the CR at the cut
		{"HTTP/1.1 302 Found\r\nLocation: /" + strings.Repeat("y", 5000) + "\r\n\r\n", respHead{}, "Location runs over 4096 bytes"},
		{"HTTP/1.1 200 OK\r\n" + strings.Repeat("Content-Length: 1\r\n", 3000) + "\r\n", respHead{code: 200, length: 1}, ""},
		{"HTTP/1.1 200 OK\r\n" + strings.Repeat("Content-Length: 1\r\n", 3000) + "Content-Length: 2\r\n\r\n", respHead{}, "conflicting"},
	} {
		got, err := readHead(newHeadReader(strings.NewReader(c.in), maxResponseHead, maxHeadLine))
		if got != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%.50q: %+v %v, want %+v %q", c.in, got, err, c.want, c.err)
		}
	}
}

// TestRedirectDecision: redirect, without a network.
func TestRedirectDecision(t *testing.T) {
	orig, _ := url.Parse("http://app:8080/healthz") // a constant URL
	for _, c := range []struct {
		h         respHead
		hop       int
		next      string // "" for none
		note, err string
	}{
		{respHead{code: 301, location: "/a"}, 0, "http://app:8080/a", "", ""},
		{respHead{code: 308, location: "https://app:8443/a"}, 0, "https://app:8443/a", "", ""},
		{respHead{code: 303, location: "//app:9/x"}, 8, "http://app:9/x", "", ""},
		{respHead{code: 302, location: "/a"}, 9, "", "", "stopped after 10 redirects"},
		{respHead{code: 302, location: "http://other:8080/"}, 9, "", "another host", ""},
		{respHead{code: 302, location: "http://APP:8080/"}, 0, "", "another host", ""}, // as the kubelet: no case folding
		{respHead{code: 302}, 0, "", "without a Location", ""},
		{respHead{code: 302, location: "http://[::1"}, 0, "", "", "bad Location"},
		{respHead{code: 307, location: "ftp://app/"}, 0, "", "", "unsupported scheme"},
		{respHead{code: 304, location: "/a"}, 0, "", "", ""},
		{respHead{code: 200, location: "/a"}, 0, "", "", ""},
	} {
		next, note, err := redirect(orig, orig, false, c.h, c.hop)
		got := ""
		if next != nil {
			got = next.url.String()
		}
		if got != c.next || !strings.Contains(note, c.note) || (note == "") != (c.note == "") ||
			(err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v hop %d: %q %q %v, want %q %q %q", c.h, c.hop, got, note, err, c.next, c.note, c.err)
		}
	}
}
