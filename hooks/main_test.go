package hooks

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// escapeEnv makes the test binary a hook that escapes its process group:
// it ignores TERM, moves into the group named by the variable, writes its
// pid to the file named by escapeFileEnv, and sleeps.
const (
	escapeEnv     = "HOOKS_TEST_ESCAPE_TO"
	escapeFileEnv = "HOOKS_TEST_ESCAPE_FILE"
)

func TestMain(m *testing.M) {
	if to := os.Getenv(escapeEnv); to != "" {
		os.Exit(escape(to, os.Getenv(escapeFileEnv)))
	}
	os.Exit(m.Run())
}

func escape(to, file string) int {
	signal.Ignore(syscall.SIGTERM)
	pgid, _ := strconv.Atoi(to)
	if err := syscall.Setpgid(0, pgid); err != nil {
		fmt.Fprintln(os.Stderr, "setpgid:", err)
		return 1
	}
	// Written whole, then renamed: the test acts as soon as it appears.
	if err := os.WriteFile(file+".tmp", []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.Rename(file+".tmp", file); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	time.Sleep(time.Minute)
	return 0
}
