package hooks

import (
	"fmt"
	"strings"
	"time"

	"github.com/tend-init/tend/http1"
	"github.com/tend-init/tend/internal/excerpt"
)

// Action is one step of a hook: a Command (exec), a Sleep or an HTTPGet,
// the three actions of Kubernetes' LifecycleHandler; an HTTPGet may also
// POST, which is tend's own.
type Action interface {
	String() string
}

// Sleep waits on a timer, with no process, so that it works in an image
// with no sleep binary (Kubernetes' sleep action, KEP-3960).
type Sleep struct{ D time.Duration }

// HTTPGet makes one GET, or one POST. As in the kubelet's HTTP lifecycle
// handler, any HTTP response to a GET is success; only a connection or
// transport error fails. A POST (tend's: the kubelet's hooks only GET) is
// sent to be obeyed, a mesh sidecar's POST /quitquitquit say, so it
// succeeds only on 200-399, as a probe: a 404 means the endpoint is not
// there and the Job will hang.
type HTTPGet struct {
	URL     string // http:// or https://, or http(s)://unix:/PATH:/URI
	Method  string // "" (GET) or "POST"
	Body    string // POST only, at most http1.MaxBody bytes
	Headers []Header
}

// Header is one request header.
type Header struct{ Name, Value string }

func (s Sleep) String() string { return "sleep:" + s.D.String() }
func (h HTTPGet) String() string {
	if h.Method == "" {
		return h.URL
	}
	return h.Method + " " + h.URL
}

// ParseAction reads a hook value. The forms are told apart by how the value
// begins, after leading blanks:
//   - "[": a JSON exec array, run with no shell;
//   - "{": a JSON LifecycleHandler ({"exec":…}, {"httpGet":…} or {"sleep":…});
//   - "sleep:": a sleep of a Go duration (sleep:5s, sleep:0);
//   - "http://" or "https://": a GET of that URL;
//   - "POST http://" or "POST https://": a POST of that URL, with no body
//     (a body needs the JSON httpPost), as curl -X POST URL;
//   - anything else: a shell command, run as /bin/sh -c VALUE.
func ParseAction(s string) (Action, error) {
	t := strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(t, "{"):
		return parseHandler(t)
	case strings.HasPrefix(t, "sleep:"):
		d, err := time.ParseDuration(strings.TrimPrefix(t, "sleep:"))
		if err != nil || d < 0 {
			return nil, fmt.Errorf("hook %s: want sleep:DURATION, e.g. sleep:5s", excerpt.Quote(s))
		}
		return Sleep{D: d}, nil
	case strings.HasPrefix(t, "http://"), strings.HasPrefix(t, "https://"):
		return parseURL(t)
	case strings.HasPrefix(t, "POST http://"), strings.HasPrefix(t, "POST https://"):
		u := strings.TrimPrefix(t, "POST ")
		if _, err := parseURL(u); err != nil {
			return nil, err
		}
		return HTTPGet{URL: u, Method: "POST"}, nil
	}
	return Parse(s)
}

// CheckHeader accepts a request header that can go on the wire as given.
// The name follows Kubernetes' validation of httpGet.httpHeaders
// (pkg/apis/core/validation validateHTTPGetAction, which calls
// k8s.io/apimachinery's IsHTTPHeaderName: letters, digits and '-', a
// subset of RFC 9110's token). The value may hold no control byte but a
// tab: the API server does not check values, but the kubelet's net/http
// refuses such a value at every attempt ("invalid header field value"),
// which would fail a liveness probe (exit 75) instead of the start. A Host
// value also holds no blank.
func CheckHeader(name, value string) error {
	ok := name != ""
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
	}
	if !ok {
		return fmt.Errorf("header name %s: want letters, digits and '-' (Kubernetes' IsHTTPHeaderName)", excerpt.Quote(name))
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return fmt.Errorf("header %s: control byte in the value %s", name, excerpt.Quote(value))
		}
	}
	if strings.EqualFold(name, "Host") && strings.ContainsAny(value, " \t") {
		return fmt.Errorf("header Host: blank in the value %s", excerpt.Quote(value))
	}
	return nil
}

// Request is the http1 request of h, sent with userAgent unless h's
// headers give one.
func (h HTTPGet) Request(userAgent string) http1.Request {
	r := http1.Request{URL: h.URL, Method: h.Method, UserAgent: userAgent}
	if h.Body != "" {
		r.Body = []byte(h.Body)
	}
	for _, hd := range h.Headers {
		r.Headers = append(r.Headers, http1.Header{Name: hd.Name, Value: hd.Value})
	}
	return r
}
