package termination

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tend-init/tend/logger"
)

// TestReport: a written message is a debug line, a planted link a warning,
// a missing directory information, and no path writes and says nothing.
func TestReport(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "target"), link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, want string
	}{
		{"", ""},
		{filepath.Join(dir, "msg"), "DEBUG: termination message written to "},
		{link, "WARN: termination message not written to "},
		{filepath.Join(dir, "none", "msg"), "INFO: termination message not written to "},
	} {
		var b bytes.Buffer
		Report(logger.New(&b, logger.LevelDebug, logger.Text), c.path, "probe failed")
		if got := b.String(); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%q: logged %q, want %q", c.path, got, c.want)
		}
	}
}
