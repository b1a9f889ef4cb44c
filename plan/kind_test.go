package plan

import (
	"testing"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/internal/user"
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

// TestHookUser: pre-start and post-stop run as tend, the rest as --user.
func TestHookUser(t *testing.T) {
	u := &user.User{}
	c := Config{User: u}
	for k, want := range map[HookKind]*user.User{HookPreStart: nil, HookPostStart: u, HookPreStop: u, HookPostStop: nil, HookReload: u} {
		if got := c.HookUser(k); got != want {
			t.Errorf("%s runs as %v, want %v", k, got, want)
		}
	}
}

// TestRemap: only the codes -e names become 0, by their low byte.
func TestRemap(t *testing.T) {
	var c Config
	c.RemapExit[143] = true
	for code, want := range map[int]int{143: 0, 0: 0, 1: 1, 137: 137} {
		if got := c.Remap(code); got != want {
			t.Errorf("Remap(%d) = %d, want %d", code, got, want)
		}
	}
}
