package thread

import (
	"testing"

	"github.com/tend-init/tend/hooks"
	"github.com/tend-init/tend/plan"
)

// TestThreadBudget: the budget is floor + 2 (8) by default, and each
// feature that adds a goroutine which can block in a system call adds one:
// a hook command adds its goroutine and the Relay's copier.
func TestThreadBudget(t *testing.T) {
	act := []hooks.Action{hooks.Command{Shell: "true"}}
	cases := []struct {
		name string
		edit func(*plan.Config)
		want int
	}{
		{"default", func(*plan.Config) {}, 8},
		{"termination message", func(c *plan.Config) { c.TerminationMessagePath = "/dev/termination-log" }, 9},
		{"health server", func(c *plan.Config) { c.HealthAddr = "127.0.0.1:0" }, 11},
		{"post-start", func(c *plan.Config) { c.PostStart = act }, 10},
		{"post-start and pre-stop", func(c *plan.Config) { c.PostStart, c.PreStop = act, act }, 11},
		{"post-stop", func(c *plan.Config) { c.PostStop = act }, 10},
		{"post-stop sleep", func(c *plan.Config) { c.PostStop = []hooks.Action{hooks.Sleep{}} }, 9},
		{"two checks", func(c *plan.Config) { c.Checks = make([]plan.Probe, 2) }, 10},
	}
	for _, c := range cases {
		cfg := plan.Default()
		c.edit(&cfg)
		if got := For(&cfg); got != c.want {
			t.Errorf("%s: budget %d, want %d", c.name, got, c.want)
		}
	}
}
