package reaper

import (
	"fmt"

	"github.com/prometheus/procfs"
)

// Descendants lists every live process below pid, read from /proc. It is
// how a subreaper that is not PID 1 finds what to drain without touching
// anything outside its own tree.
func Descendants(pid int) ([]int, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, fmt.Errorf("procfs: %w", err)
	}
	procs, err := fs.AllProcs()
	if err != nil {
		return nil, fmt.Errorf("procfs: %w", err)
	}
	children := map[int][]int{}
	for _, p := range procs {
		st, err := p.Stat()
		if err != nil {
			continue // it exited while we listed
		}
		children[st.PPID] = append(children[st.PPID], p.PID)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out, nil
}
