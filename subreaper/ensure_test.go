package subreaper

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tend-init/tend/logger"
)

// TestEnsureWarns: not PID 1 and not a subreaper, tend says so only when
// asked to warn, and says nothing as PID 1.
func TestEnsureWarns(t *testing.T) {
	if is, err := Is(); err != nil || is {
		t.Skipf("the test runs as a subreaper (%v): nothing to warn of", err)
	}
	for _, c := range []struct {
		pid1, warn bool
		want       string
	}{
		{false, true, "tend is not PID 1 and not a child subreaper"},
		{false, false, ""},
		{true, true, ""},
	} {
		var b bytes.Buffer
		if err := Ensure(logger.New(&b, logger.LevelInfo, logger.Text), false, c.pid1, c.warn); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("pid1 %v, warn %v: logged %q, want %q", c.pid1, c.warn, got, c.want)
		}
	}
}
