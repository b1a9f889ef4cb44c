package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// handler is Kubernetes' core/v1 LifecycleHandler, as JSON: exactly one of
// exec, httpGet or sleep. tcpSocket is refused, as the kubelet refuses it
// for hooks. It is decoded strictly, into tend's own types.
type handler struct {
	Exec      *execAction     `json:"exec"`
	HTTPGet   *HTTPGetHandler `json:"httpGet"`
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

type sleepAction struct {
	Seconds *int64 `json:"seconds"`
}

// parseHandler decodes one LifecycleHandler. Unknown fields, trailing data,
// no action or two, a named port and values out of range are all errors,
// reported before the app starts.
func parseHandler(s string) (Action, error) {
	var h handler
	if err := DecodeStrict(s, &h); err != nil {
		return nil, fmt.Errorf("hook %q is not a LifecycleHandler: %v", s, err)
	}
	n := 0
	for _, set := range []bool{h.Exec != nil, h.HTTPGet != nil, h.Sleep != nil, h.TCPSocket != nil} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return nil, fmt.Errorf("hook %q: want exactly one of exec, httpGet or sleep, got %d", s, n)
	case h.TCPSocket != nil:
		return nil, fmt.Errorf("hook %q: tcpSocket is not a hook action (Kubernetes refuses it too)", s)
	case h.Exec != nil:
		if len(h.Exec.Command) == 0 || h.Exec.Command[0] == "" {
			return nil, fmt.Errorf("hook %q: exec.command needs a program", s)
		}
		return Command{Argv: h.Exec.Command}, nil
	case h.Sleep != nil:
		if h.Sleep.Seconds == nil || *h.Sleep.Seconds < 0 || *h.Sleep.Seconds > 1<<31 {
			return nil, fmt.Errorf("hook %q: sleep.seconds must be a whole number >= 0", s)
		}
		return Sleep{D: time.Duration(*h.Sleep.Seconds) * time.Second}, nil
	}
	a, err := h.HTTPGet.Action()
	if err != nil {
		return nil, fmt.Errorf("hook %q: %v", s, err)
	}
	return a, nil
}

// Action builds the URL the kubelet would GET. host defaults to 127.0.0.1:
// the kubelet's default is the pod IP, which inside the container is the
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
		return HTTPGet{}, fmt.Errorf("httpGet.scheme %q: want HTTP or HTTPS", g.Scheme)
	}
	host := g.Host
	if host == "" {
		host = "127.0.0.1"
	}
	path := g.Path
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	u := scheme + "://" + net.JoinHostPort(host, strconv.Itoa(port)) + path
	if _, err := url.Parse(u); err != nil {
		return HTTPGet{}, fmt.Errorf("httpGet: %v", err)
	}
	out := HTTPGet{URL: u}
	for _, h := range g.HTTPHeaders {
		if h.Name == "" {
			return HTTPGet{}, errors.New("httpGet.httpHeaders: a header needs a name")
		}
		out.Headers = append(out.Headers, Header{Name: h.Name, Value: h.Value})
	}
	return out, nil
}

// Port reads a Kubernetes port (an IntOrString) that must be a number in
// 1..65535: a named port means a container port, which tend cannot see.
func Port(raw json.RawMessage) (int, error) {
	if len(raw) == 0 {
		return 0, errors.New("port is required")
	}
	if raw[0] == '"' {
		return 0, fmt.Errorf("named port %s: tend cannot resolve container port names; use the number", raw)
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("port %s: want 1..65535", raw)
	}
	return n, nil
}

// DecodeStrict decodes one JSON value into v, refusing unknown fields and
// anything after it.
func DecodeStrict(s string, v any) error {
	d := json.NewDecoder(strings.NewReader(s))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// parseURL reads an http:// or https:// hook.
func parseURL(s string) (Action, error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || strings.ContainsAny(s, " \t\n") {
		return nil, fmt.Errorf("hook %q: want http(s)://HOST:PORT/PATH", s)
	}
	return HTTPGet{URL: s}, nil
}
