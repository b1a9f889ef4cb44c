package notifypeer

import (
	"net"
	"slices"
	"testing"
	"time"
)

// TestListenAwait: a datagram sent to the path arrives, Await skips those
// without the whole line ("READY=10" is not "READY=1") and reports them.
func TestListenAwait(t *testing.T) {
	path, ch := Listen(t)
	c, err := net.Dial("unixgram", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, m := range []string{"READY=10", "STATUS=x\nREADY=1"} {
		if _, err := c.Write([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	g, seen := Await(t, ch, "READY=1", 10*time.Second)
	if g.Msg != "STATUS=x\nREADY=1" || !slices.Equal(seen, []string{"READY=10"}) || g.At.IsZero() {
		t.Fatalf("got %q after %q", g.Msg, seen)
	}
}
