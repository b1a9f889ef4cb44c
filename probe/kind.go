package probe

import "strconv"

// Kind is what a check feeds: Kubernetes' startupProbe, readinessProbe or
// livenessProbe (not how it probes: that is its Handler).
type Kind int

// The kinds; None is no kind.
const (
	None Kind = iota
	Startup
	Ready
	Live
)

// String is the kind's label in /metrics and in its flags.
func (k Kind) String() string {
	switch k {
	case Startup:
		return "startup"
	case Ready:
		return "ready"
	case Live:
		return "live"
	}
	return "probe(" + strconv.Itoa(int(k)) + ")"
}
