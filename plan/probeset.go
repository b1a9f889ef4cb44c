package plan

import "github.com/tend-init/tend/probe"

// ProbeSet is the state of the checks cs (probe.Set), parallel to them,
// every one not run yet.
func ProbeSet(cs []Probe) probe.Set {
	ms := make([]probe.Member, len(cs))
	for i, c := range cs {
		ms[i] = probe.Member{Kind: c.Kind, Name: c.Name, Params: c.Params}
	}
	return probe.NewSet(ms)
}
