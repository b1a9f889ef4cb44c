package terminal

import "testing"

// TestTtyNr: field 7 of /proc/PID/stat, found after the last ')' since a
// command name can hold spaces and parentheses.
func TestTtyNr(t *testing.T) {
	for _, c := range []struct {
		stat string
		nr   int64
		ok   bool
	}{
		{"4242 (sh) S 1 4242 4242 34816 4242 4194304 95", 34816, true},
		{"4242 (a b) c) S 1 4242 4242 0 -1 4194304", 0, true},
		{"4242 (x) ) S 1 2 3 1025 5", 1025, true},
		{"4242 (sh) S 1 2", 0, false},
		{"4242 sh S 1 2 3 4 5", 0, false},
		{"4242 (sh) S 1 2 3 x 5", 0, false},
	} {
		nr, ok := ttyNr([]byte(c.stat))
		if nr != c.nr || ok != c.ok {
			t.Errorf("ttyNr(%q) = %d, %v; want %d, %v", c.stat, nr, ok, c.nr, c.ok)
		}
	}
}
