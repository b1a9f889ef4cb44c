package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// exitWatcher records every container's exit code from containerd's event
// stream (`ctr events`). The kubelet deletes a removed pod's containers
// within a second or so of their exit, so asking the CRI afterwards races;
// the event stream, started before any pod, cannot miss an exit.
type exitWatcher struct {
	cmd  *exec.Cmd
	done chan struct{}

	mu    sync.Mutex
	codes map[string]int // container id -> exit status of its init process
}

func watchExits(sock, logPath string) (*exitWatcher, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("ctr", "-a", sock, "events")
	cmd.Stderr = log
	out, err := cmd.StdoutPipe()
	if err != nil {
		_ = log.Close() // nothing written yet
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = log.Close() // nothing written yet
		return nil, err
	}
	w := &exitWatcher{cmd: cmd, done: make(chan struct{}), codes: map[string]int{}}
	go func() {
		defer close(w.done)
		defer log.Close() // the stream has ended
		w.read(io.TeeReader(out, log))
		_ = cmd.Wait() // the stream ended: stop() or containerd went away
	}()
	return w, nil
}

// read parses lines like
//
//	2026-11-23 12:00:00.1 +0000 UTC k8s.io /tasks/exit {"container_id":"ab..","id":"ab..","pid":42,"exit_status":7,...}
//
// An exec's exit has id != container_id and is skipped; exit_status 0 is
// omitted from the JSON.
func (w *exitWatcher) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		i := strings.IndexByte(line, '{')
		if !strings.Contains(line, "/tasks/exit") || i < 0 {
			continue
		}
		var e struct {
			ContainerID string `json:"container_id"`
			ID          string `json:"id"`
			ExitStatus  int    `json:"exit_status"`
		}
		if err := json.Unmarshal([]byte(line[i:]), &e); err != nil || e.ID != e.ContainerID {
			continue
		}
		w.mu.Lock()
		w.codes[e.ContainerID] = e.ExitStatus
		w.mu.Unlock()
	}
}

// wait returns a container's exit code once it has exited.
func (w *exitWatcher) wait(id string, timeout time.Duration) (int, error) {
	code := -1
	err := poll(timeout, func() (bool, error) {
		w.mu.Lock()
		defer w.mu.Unlock()
		c, ok := w.codes[id]
		code = c
		return ok, nil
	})
	if err != nil {
		return -1, fmt.Errorf("no exit of container %.13s in containerd's events: %w", id, err)
	}
	return code, nil
}

func (w *exitWatcher) stop() {
	_ = w.cmd.Process.Kill() // ends the stream; an exited ctr is fine too
	select {
	case <-w.done:
	case <-time.After(10 * time.Second):
		logf("ctr events did not end within 10s of SIGKILL")
	}
}
