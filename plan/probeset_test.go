package plan

import (
	"testing"

	"github.com/tend-init/tend/probe"
)

// TestProbeSet: the set is parallel to the checks, keeps each one's name
// and kind (its label), and starts with the startup checks alone.
func TestProbeSet(t *testing.T) {
	p := probe.Params{FailureThreshold: 3, SuccessThreshold: 1}
	s := ProbeSet([]Probe{{Kind: ProbeReady, Name: "db", Params: p}, {Kind: ProbeStartup, Name: "boot", Params: p}, {Kind: ProbeLive, Name: "ping", Params: p}})
	for i, want := range []string{"readiness probe db", "startup probe boot", "liveness probe ping"} {
		if got := s.Label(i); got != want {
			t.Errorf("Label(%d) = %q, want %q", i, got, want)
		}
	}
	if idx, once := s.First(); len(idx) != 1 || idx[0] != 1 || !once {
		t.Errorf("First() = %v, %v: want [1] (the startup check), once", idx, once)
	}
	if main := s.Main(); len(main) != 2 || main[0] != 0 || main[1] != 2 {
		t.Errorf("Main() = %v, want [0 2]", main)
	}
}
