package plan

import (
	"testing"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/probe"
)

// TestOwnsSockets: a health endpoint, a network probe or an HTTP hook
// makes tend write to sockets; exec probes and command or sleep hooks do
// not.
func TestOwnsSockets(t *testing.T) {
	cmd := hooks.Command{Shell: "true"}
	for _, c := range []struct {
		name string
		edit func(*Config)
		want bool
	}{
		{"nothing", func(*Config) {}, false},
		{"exec probe, command hooks", func(c *Config) {
			c.Checks = []Probe{{Handler: probe.Command{Cmd: cmd}}}
			c.PostStart, c.PreStop = []hooks.Action{cmd}, []hooks.Action{hooks.Sleep{}}
		}, false},
		{"health endpoint", func(c *Config) { c.HealthAddr = "127.0.0.1:0" }, true},
		{"tcp probe", func(c *Config) { c.Checks = []Probe{{Handler: probe.TCP{Addr: "x:1"}}} }, true},
		{"http reload hook", func(c *Config) { c.Reload = []hooks.Action{hooks.HTTPGet{URL: "http://x/"}} }, true},
	} {
		cfg := Default()
		c.edit(&cfg)
		if got := cfg.OwnsSockets(); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
