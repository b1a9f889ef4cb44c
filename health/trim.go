package health

import (
	"runtime/debug"
	"time"
)

// After a flood of connections, the memory they took goes back to the
// kernel. Each connection costs a goroutine stack and a few buffers, about
// 7 KB; 4,000 slowloris connections took tend from 7 to some 40 MB of RSS,
// and it stayed there: the runtime returns freed memory only after a
// collection, and an idle tend allocates too little to start one. So when
// the open count falls from a flood's peak to a few, the server asks for a
// collection and a full return (debug.FreeOSMemory), a second later, and
// at most once every trimEvery.
const (
	trimPeak  = maxConns / 2     // a peak of open connections that counts as a flood
	trimBelow = 16               // the flood is over when no more are open
	trimQuiet = time.Second      // wait this long after it ended, in case it resumes
	trimEvery = 10 * time.Second // at most one trim per this long, however floods come
)

// noteOpen records the open count after a change; the caller holds s.mu.
// A fall from a flood's peak to trimBelow asks the trimmer for a trim.
func (s *Server) noteOpen() {
	s.peak = max(s.peak, s.open)
	if s.peak >= trimPeak && s.open <= trimBelow {
		s.peak = s.open
		select {
		case s.trimReq <- struct{}{}:
		default: // one is pending already
		}
	}
}

// trimmer gives memory back after each flood, until Close. It runs on its
// own goroutine, so that no connection waits for the collection.
func (s *Server) trimmer() {
	var last time.Time
	for {
		select {
		case <-s.done:
			return
		case <-s.trimReq:
		}
		t := time.NewTimer(max(trimQuiet, time.Until(last.Add(trimEvery))))
		select {
		case <-s.done:
			t.Stop()
			return
		case <-t.C:
		}
		s.mu.Lock()
		over := s.open <= trimBelow
		s.mu.Unlock()
		if !over {
			continue // it resumed: its own end asks again
		}
		// A full collection, then every free page back: a few
		// milliseconds at the heap a flood leaves.
		debug.FreeOSMemory()
		last = time.Now()
	}
}
