package probe

import (
	"strings"
	"testing"

	"github.com/tend-init/tend/internal/target"
)

// TestParseJSONStrict: a Probe is decoded as the API server decodes it under
// strict field validation: exact-case keys, no key twice, no unknown key.
func TestParseJSONStrict(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{`{"EXEC":{"command":["true"]}}`, `unknown field "EXEC"`},
		{`{"exec":{"Command":["true"]}}`, `unknown field "exec.Command"`},
		{`{"tcpSocket":{"port":80},"PeriodSeconds":1}`, `unknown field "PeriodSeconds"`},
		{`{"httpGet":{"port":80,"PATH":"/x"}}`, `unknown field "httpGet.PATH"`},
		{`{"tcpSocket":{"port":80},"periodSeconds":1,"periodSeconds":600}`, `duplicate field "periodSeconds"`},
		{`{"tcpSocket":{"port":80,"port":81}}`, `duplicate field "tcpSocket.port"`},
		{`{"exec":{"command":["true"]},"exec":{"command":["false"]}}`, `duplicate field "exec"`},
		{`{"tcpSocket":{"port":80},"bogus":1}`, `unknown field "bogus"`},
	} {
		_, _, err := ParseJSON(c.in)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("ParseJSON(%s): %v; want an error containing %s", c.in, err, c.err)
		}
	}
	c, st, err := ParseJSON(`{"exec":{"command":["true"]},"periodSeconds":2}`)
	if err != nil || c.String() != `["true"]` || st.Period == nil || st.Period.Seconds() != 2 {
		t.Fatalf("exact keys: %v %+v %v", c, st, err)
	}
}

// TestParseJSONValidatesTargets: a host, port or header that would fail
// every attempt is an error when the flags are read.
func TestParseJSONValidatesTargets(t *testing.T) {
	for _, c := range []struct{ in, err string }{
		{`{"httpGet":{"host":"localhost/x?","port":8080}}`, "host"},
		{`{"tcpSocket":{"host":"localhost/x?","port":80}}`, "host"},
		{`{"tcpSocket":{"host":"a b","port":80}}`, "host"},
		{`{"tcpSocket":{"host":"h:22","port":80}}`, "host"},
		{`{"tcpSocket":{"port":65536}}`, "1..65535"},
		{`{"httpGet":{"port":80,"httpHeaders":[{"name":"X-A","value":"a\nb"}]}}`, "control"},
		{`{"httpGet":{"port":80,"httpHeaders":[{"name":"X A","value":"a"}]}}`, "header name"},
	} {
		_, _, err := ParseJSON(c.in)
		if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseJSON(%s): %v; want one line containing %q", c.in, err, c.err)
		}
	}
	for _, in := range []string{
		`{"tcpSocket":{"host":"::1","port":80}}`,
		`{"tcpSocket":{"host":"db.internal","port":5432}}`,
		`{"httpGet":{"host":"fe80::1%eth0","port":80,"path":"/x"}}`,
	} {
		c, _, err := ParseJSON(in)
		if err != nil {
			t.Errorf("ParseJSON(%s): %v", in, err)
			continue
		}
		if h, ok := c.(HTTP); ok {
			if _, _, err := target.ParseHTTPURL(h.URL); err != nil {
				t.Errorf("%s gives %s, which http1.Get refuses: %v", in, h.URL, err)
			}
		}
	}
}

// TestParseErrorsQuoteAnExcerpt: however long the value, a probe error is
// short and one line.
func TestParseErrorsQuoteAnExcerpt(t *testing.T) {
	deep := strings.Repeat("[", 60000) + strings.Repeat("]", 60000)
	long := strings.Repeat("x", 100000)
	for _, spec := range []string{
		deep,
		`{"exec":{"command":` + deep + `}}`,
		`{"` + long + `":1}`,
		`{"tcpSocket":{"port":"` + long + `"}}`,
		"http://" + long + ":0/",
		"tcp://" + long,
		"grpc://" + long,
	} {
		var err error
		if IsJSON(spec) {
			_, _, err = ParseJSON(spec)
		} else {
			_, err = ParseSpec(spec)
		}
		if err == nil {
			t.Fatalf("%.40q: accepted", spec)
		}
		if msg := err.Error(); len(msg) > 300 || strings.Contains(msg, "\n") {
			t.Errorf("%.40q: error of %d bytes: %.200q", spec, len(msg), msg)
		}
	}
}

// TestParseSpecValidatesTargets: the flag forms get the same checks.
func TestParseSpecValidatesTargets(t *testing.T) {
	for _, bad := range []string{
		"http://127.0.0.1:0/", "http://h:65536/", "http://user:pw@h:80/", "http://h!x/",
		"tcp://h:0", "tcp://h:http", "tcp://h:99999", "tcp://a b:80", "tcp://h/x:80", "tcp://u@h:80",
	} {
		if c, err := ParseSpec(bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseSpec(%q) = %v, %v; want an error", bad, c, err)
		}
	}
	for _, ok := range []string{"tcp://:5432", "tcp://[::1]:80", "http://h_1:8080/x?y=z", "https://[::1]/"} {
		if _, err := ParseSpec(ok); err != nil {
			t.Errorf("ParseSpec(%q): %v", ok, err)
		}
	}
}

// TestGetRefusesBadTargets: --check's URL (and any http1.Get) is checked before
// any connection: a port 0 or a user info is an error, not a dial.
func TestGetRefusesBadTargets(t *testing.T) {
	for _, u := range []string{"http://127.0.0.1:0/", "http://u:p@127.0.0.1:1/", "http://h!x:1/"} {
		if err := getURL(u, 50_000_000); err == nil || strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "timed out") {
			t.Errorf("Check(%q) = %v; want a refusal before dialling", u, err)
		}
	}
}
