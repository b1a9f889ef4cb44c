package probe

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/http1"
	"github.com/tend-init/tend/internal/excerpt"
	"github.com/tend-init/tend/internal/strictjson"
	"github.com/tend-init/tend/internal/target"
)

// Settings are the probe settings a JSON Probe may carry; nil means "as the
// flags say". They win over the flags.
type Settings struct {
	Period, Timeout, InitialDelay      *time.Duration
	FailureThreshold, SuccessThreshold *int
	// GracePeriod is the probe's own terminationGracePeriodSeconds: it
	// replaces --grace-period for a stop this probe's failure begins. The
	// caller rejects it on a readiness probe, as the API does.
	GracePeriod *time.Duration
}

// Apply overrides p with what s sets.
func (s Settings) Apply(p Params) Params {
	for _, d := range []struct {
		from *time.Duration
		to   *time.Duration
	}{{s.Period, &p.Period}, {s.Timeout, &p.Timeout}, {s.InitialDelay, &p.InitialDelay}} {
		if d.from != nil {
			*d.to = *d.from
		}
	}
	if s.FailureThreshold != nil {
		p.FailureThreshold = *s.FailureThreshold
	}
	if s.SuccessThreshold != nil {
		p.SuccessThreshold = *s.SuccessThreshold
	}
	return p
}

// jsonProbe is Kubernetes' core/v1 Probe as JSON: one handler and the
// settings, decoded strictly into tend's own types.
type jsonProbe struct {
	Deps *struct {
		Command []string `json:"command"`
	} `json:"exec"`
	HTTPGet                       *hooks.HTTPGetHandler `json:"httpGet"`
	TCPSocket                     *tcpSocket            `json:"tcpSocket"`
	GRPC                          *grpcAction           `json:"grpc"`
	InitialDelaySeconds           *int32                `json:"initialDelaySeconds"`
	TimeoutSeconds                *int32                `json:"timeoutSeconds"`
	PeriodSeconds                 *int32                `json:"periodSeconds"`
	SuccessThreshold              *int32                `json:"successThreshold"`
	FailureThreshold              *int32                `json:"failureThreshold"`
	TerminationGracePeriodSeconds *int64                `json:"terminationGracePeriodSeconds"`
}

// grpcAction is core/v1 GRPCAction (staging/src/k8s.io/api/core/v1/types.go):
// Port is an int32, so a named port (a string) fails to decode, as the API
// server rejects it; Service is optional and any string, "" included.
type grpcAction struct {
	Port    int32   `json:"port"`
	Service *string `json:"service"`
}

type tcpSocket struct {
	Host string          `json:"host"`
	Port json.RawMessage `json:"port"`
}

// ParseJSON reads a Probe in Kubernetes' JSON shape, such as a container's
// livenessProbe pasted into TEND_LIVE_PROBE. It is decoded as the API
// server decodes it under strict field validation (strictjson.Decode):
// unknown, duplicate or miscased fields are errors, as are no handler or
// two, a named port, a bad host or header, and values out of range
// (Kubernetes' validation: seconds >= 1, initialDelaySeconds >= 0).
func ParseJSON(s string) (Handler, Settings, error) {
	var p jsonProbe
	q := excerpt.Quote(s)
	if err := strictjson.Decode(s, &p); err != nil {
		return nil, Settings{}, fmt.Errorf("probe %s is not a Kubernetes Probe: %v", q, err)
	}
	n := 0
	for _, set := range []bool{p.Deps != nil, p.HTTPGet != nil, p.TCPSocket != nil, p.GRPC != nil} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return nil, Settings{}, fmt.Errorf("probe %s: want exactly one of exec, httpGet, tcpSocket or grpc, got %d", q, n)
	}
	c, err := p.checker()
	if err != nil {
		return nil, Settings{}, fmt.Errorf("probe %s: %v", q, err)
	}
	st, err := p.settings()
	if err != nil {
		return nil, Settings{}, fmt.Errorf("probe %s: %v", q, err)
	}
	return c, st, nil
}

func (p *jsonProbe) checker() (Handler, error) {
	switch {
	case p.Deps != nil:
		if len(p.Deps.Command) == 0 || p.Deps.Command[0] == "" {
			return nil, errors.New("exec.command needs a program")
		}
		return Command{Cmd: hooks.Command{Argv: p.Deps.Command}}, nil
	case p.HTTPGet != nil:
		a, err := p.HTTPGet.Action()
		if err != nil {
			return nil, err
		}
		return newHTTP(a), nil
	case p.GRPC != nil:
		// validateGRPCAction (pkg/apis/core/validation/validation.go):
		// ValidatePortNumOrName of the number, so 1..65535.
		if p.GRPC.Port < 1 || p.GRPC.Port > 65535 {
			return nil, fmt.Errorf("grpc.port must be 1..65535, got %d", p.GRPC.Port)
		}
		g := GRPC{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(int(p.GRPC.Port)))} // the kubelet dials the pod IP: this container
		if p.GRPC.Service != nil {
			g.Service = *p.GRPC.Service
		}
		return g, nil
	}
	port, err := hooks.Port(p.TCPSocket.Port)
	if err != nil {
		return nil, fmt.Errorf("tcpSocket: %v", err)
	}
	host := p.TCPSocket.Host
	if host == "" {
		host = "127.0.0.1" // the kubelet's default is the pod IP: this container
	}
	if err := target.CheckHost(host); err != nil {
		return nil, fmt.Errorf("tcpSocket.host: %v", err)
	}
	return TCP{Addr: net.JoinHostPort(host, strconv.Itoa(port))}, nil
}

func (p *jsonProbe) settings() (Settings, error) {
	var st Settings
	secs := func(name string, v *int32, min int32, dst **time.Duration) error {
		if v == nil {
			return nil
		}
		if *v < min {
			return fmt.Errorf("%s must be >= %d, got %d", name, min, *v)
		}
		d := time.Duration(*v) * time.Second
		*dst = &d
		return nil
	}
	count := func(name string, v *int32, dst **int) error {
		if v == nil {
			return nil
		}
		if *v < 1 {
			return fmt.Errorf("%s must be >= 1, got %d", name, *v)
		}
		n := int(*v)
		*dst = &n
		return nil
	}
	if g := p.TerminationGracePeriodSeconds; g != nil {
		// validateProbe (pkg/apis/core/validation/validation.go): "must be
		// greater than 0"; 0 is rejected too, not only negatives.
		if *g <= 0 {
			return Settings{}, fmt.Errorf("terminationGracePeriodSeconds must be > 0, got %d", *g)
		}
		if *g > maxGraceSeconds {
			return Settings{}, fmt.Errorf("terminationGracePeriodSeconds must be <= %d, got %d", int64(maxGraceSeconds), *g)
		}
		d := time.Duration(*g) * time.Second
		st.GracePeriod = &d
	}
	for _, err := range []error{
		secs("periodSeconds", p.PeriodSeconds, 1, &st.Period),
		secs("timeoutSeconds", p.TimeoutSeconds, 1, &st.Timeout),
		secs("initialDelaySeconds", p.InitialDelaySeconds, 0, &st.InitialDelay),
		count("failureThreshold", p.FailureThreshold, &st.FailureThreshold),
		count("successThreshold", p.SuccessThreshold, &st.SuccessThreshold),
	} {
		if err != nil {
			return Settings{}, err
		}
	}
	return st, nil
}

// maxGraceSeconds keeps terminationGracePeriodSeconds a valid
// time.Duration (about 292 years): the API's int64 has no upper bound, but
// a longer wait than this is no wait a container sees end.
const maxGraceSeconds = 1 << 32

// IsJSON reports whether a probe value is in the JSON form.
func IsJSON(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), "{") }

// newHTTP is the HTTP checker for a JSON httpGet handler, headers and all.
func newHTTP(a hooks.HTTPGet) HTTP {
	h := HTTP{URL: a.URL}
	for _, hd := range a.Headers {
		h.Headers = append(h.Headers, http1.Header{Name: hd.Name, Value: hd.Value})
	}
	return h
}
