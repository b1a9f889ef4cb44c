package lifecycle

import (
	"testing"

	"github.com/tend-init/tend/hooks"
)

// TestThreadBudget: the budget is floor + 2 (8) by default, and each
// feature that adds a goroutine which can block in a system call adds one:
// a hook command adds its goroutine and the Relay's copier.
func TestThreadBudget(t *testing.T) {
	act := []hooks.Action{hooks.Command{Shell: "true"}}
	cases := []struct {
		name string
		edit func(*Config)
		want int
	}{
		{"default", func(*Config) {}, 8},
		{"termination message", func(c *Config) { c.TerminationMessagePath = "/dev/termination-log" }, 9},
		{"health server", func(c *Config) { c.HealthAddr = "127.0.0.1:0" }, 11},
		{"post-start", func(c *Config) { c.PostStart = act }, 10},
		{"post-start and pre-stop", func(c *Config) { c.PostStart, c.PreStop = act, act }, 11},
		{"post-stop", func(c *Config) { c.PostStop = act }, 10},
		{"post-stop sleep", func(c *Config) { c.PostStop = []hooks.Action{hooks.Sleep{}} }, 9},
		{"two checks", func(c *Config) { c.Checks = make([]Check, 2) }, 10},
	}
	for _, c := range cases {
		cfg := Default()
		c.edit(&cfg)
		if got := threadBudget(&cfg); got != c.want {
			t.Errorf("%s: budget %d, want %d", c.name, got, c.want)
		}
	}
}
