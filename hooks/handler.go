package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tend-init/tend/http1"
	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/internal/strictjson"
	"github.com/tend-init/tend/internal/target"
)

// handler is Kubernetes' core/v1 LifecycleHandler, as JSON: exactly one of
// exec, httpGet or sleep, or tend's own httpPost. tcpSocket is refused, as
// the kubelet refuses it for hooks. It is decoded strictly
// (strictjson.Decode), into tend's own types.
type handler struct {
	Exec      *execAction     `json:"exec"`
	HTTPGet   *HTTPGetHandler `json:"httpGet"`
	HTTPPost  *httpPost       `json:"httpPost"`
	Sleep     *sleepAction    `json:"sleep"`
	TCPSocket json.RawMessage `json:"tcpSocket"`
}

type execAction struct {
	Command []string `json:"command"`
}

// HTTPGetHandler is core/v1 HTTPGetAction as JSON, shared by hooks and
// probes: one grammar for an HTTP action.
type HTTPGetHandler struct {
	Host        string          `json:"host"`
	Port        json.RawMessage `json:"port"`
	Path        string          `json:"path"`
	Scheme      string          `json:"scheme"`
	HTTPHeaders []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"httpHeaders"`
}

// httpPost is tend's httpPost: httpGet's fields, and the body to send.
// strictjson does not walk embedded structs, hence the copy of the fields.
type httpPost struct {
	Host        string          `json:"host"`
	Port        json.RawMessage `json:"port"`
	Path        string          `json:"path"`
	Scheme      string          `json:"scheme"`
	HTTPHeaders []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"httpHeaders"`
	Body string `json:"body"`
}

// action checks p as httpGet's Action checks its fields, and the body.
func (p *httpPost) action() (HTTPGet, error) {
	g := HTTPGetHandler{Host: p.Host, Port: p.Port, Path: p.Path, Scheme: p.Scheme, HTTPHeaders: p.HTTPHeaders}
	a, err := g.Action()
	if err != nil {
		return HTTPGet{}, errors.New(strings.Replace(err.Error(), "httpGet.", "httpPost.", 1))
	}
	if len(p.Body) > http1.MaxBody {
		return HTTPGet{}, fmt.Errorf("httpPost.body of %d bytes: at most %d", len(p.Body), http1.MaxBody)
	}
	a.Method, a.Body = "POST", p.Body
	return a, nil
}

type sleepAction struct {
	Seconds *int64 `json:"seconds"`
}

// parseHandler decodes one LifecycleHandler. Unknown, duplicate or
// miscased fields, trailing data, no action or two, a named port and values
// out of range are all errors, reported before the app starts.
func parseHandler(s string) (Action, error) {
	var h handler
	if err := strictjson.Decode(s, &h); err != nil {
		return nil, fmt.Errorf("hook %s is not a LifecycleHandler: %v", excerpt.Quote(s), err)
	}
	n := 0
	for _, set := range []bool{h.Exec != nil, h.HTTPGet != nil, h.HTTPPost != nil, h.Sleep != nil, h.TCPSocket != nil} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return nil, fmt.Errorf("hook %s: want exactly one of exec, httpGet, httpPost or sleep, got %d", excerpt.Quote(s), n)
	case h.TCPSocket != nil:
		return nil, fmt.Errorf("hook %s: tcpSocket is not a hook action (Kubernetes refuses it too)", excerpt.Quote(s))
	case h.Exec != nil:
		if len(h.Exec.Command) == 0 || h.Exec.Command[0] == "" {
			return nil, fmt.Errorf("hook %s: exec.command needs a program", excerpt.Quote(s))
		}
		return Command{Argv: h.Exec.Command}, nil
	case h.Sleep != nil:
		if h.Sleep.Seconds == nil || *h.Sleep.Seconds < 0 || *h.Sleep.Seconds > 1<<31 {
			return nil, fmt.Errorf("hook %s: sleep.seconds must be a whole number >= 0", excerpt.Quote(s))
		}
		return Sleep{D: time.Duration(*h.Sleep.Seconds) * time.Second}, nil
	}
	var a HTTPGet
	var err error
	if h.HTTPPost != nil {
		a, err = h.HTTPPost.action()
	} else {
		a, err = h.HTTPGet.Action()
	}
	if err != nil {
		return nil, fmt.Errorf("hook %s: %v", excerpt.Quote(s), err)
	}
	return a, nil
}

// Action builds the URL the kubelet would GET, after the checks that make a
// bad host, port or header an error now rather than a failure at every
// attempt (target.CheckHost, Port, CheckHeader). host defaults to 127.0.0.1: the
// kubelet's default is the pod IP, which inside the container is the
// container itself.
func (g *HTTPGetHandler) Action() (HTTPGet, error) {
	port, err := Port(g.Port)
	if err != nil {
		return HTTPGet{}, err
	}
	scheme := strings.ToLower(g.Scheme)
	switch scheme {
	case "":
		scheme = "http"
	case "http", "https":
	default:
		return HTTPGet{}, fmt.Errorf("httpGet.scheme %s: want HTTP or HTTPS", excerpt.Quote(g.Scheme))
	}
	host := g.Host
	if host == "" {
		host = "127.0.0.1"
	}
	if err := target.CheckHost(host); err != nil {
		return HTTPGet{}, fmt.Errorf("httpGet.host: %v", err)
	}
	path := g.Path
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	// The kubelet's formatURL: the path parsed as a URL, then the
	// scheme and host:port set on it.
	u, err := url.Parse(path)
	if err != nil {
		return HTTPGet{}, fmt.Errorf("httpGet.path %s: %v", excerpt.Quote(g.Path), errors.Unwrap(err))
	}
	u.Scheme, u.Host = scheme, net.JoinHostPort(host, strconv.Itoa(port))
	out := HTTPGet{URL: u.String()}
	for _, h := range g.HTTPHeaders {
		if err := CheckHeader(h.Name, h.Value); err != nil {
			return HTTPGet{}, fmt.Errorf("httpGet.httpHeaders: %v", err)
		}
		out.Headers = append(out.Headers, Header{Name: h.Name, Value: h.Value})
	}
	return out, nil
}

// Port reads a Kubernetes port (an IntOrString) that must be a number in
// 1..65535, as validation's IsValidPortNum: a named port means a container
// port, which tend cannot see.
func Port(raw json.RawMessage) (int, error) {
	if len(raw) == 0 {
		return 0, errors.New("port is required")
	}
	if raw[0] == '"' {
		return 0, fmt.Errorf("named port %s: tend cannot resolve container port names; use the number", excerpt.Quote(string(raw)))
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("port %s: want 1..65535", excerpt.Quote(string(raw)))
	}
	return n, nil
}

// parseURL reads an http:// or https:// hook, or an
// http(s)://unix:/PATH:/URI one.
func parseURL(s string) (Action, error) {
	if strings.ContainsAny(s, " \t\r\n") {
		return nil, fmt.Errorf("hook %s: want http(s)://HOST:PORT/PATH without blanks", excerpt.Quote(s))
	}
	if _, _, err := target.ParseHTTPURL(s); err != nil {
		return nil, fmt.Errorf("hook %s: %v", excerpt.Quote(s), err)
	}
	return HTTPGet{URL: s}, nil
}
