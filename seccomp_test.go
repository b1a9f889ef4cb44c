package main_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompEnv makes this test binary a launcher instead of a test run: it
// installs a seccomp filter that fails the pidfd calls with the errno that
// seccompEnv names (ENOSYS or EPERM), then execs its arguments. Filters are
// inherited across fork and exec, so tend and everything it starts run
// under it, as under a container runtime's profile or on a kernel before
// 5.3 (ENOSYS).
const seccompEnv = "TEND_TEST_SECCOMP_ERRNO"

// The launcher's exit codes when it does not exec.
const (
	seccompUnavailable = 120 // no seccomp filters here: skip
	seccompNotInForce  = 121 // the filter was installed but a call got through
	seccompExecFailed  = 122
)

// init runs the launcher before TestMain, which would otherwise build the
// test binaries again for nothing. It is not a test's set-up: in a normal
// run seccompEnv is unset and init returns at once.
func init() {
	if name, ok := os.LookupEnv(seccompEnv); ok {
		os.Exit(seccompLaunch(name, os.Args[1:]))
	}
}

var seccompErrnos = map[string]unix.Errno{"ENOSYS": unix.ENOSYS, "EPERM": unix.EPERM}

// auditArch is the AUDIT_ARCH of each little-endian GOARCH, which the
// filter checks first: a syscall number means something else under
// another ABI. (Big-endian ones would need the argument's other half.)
var auditArch = map[string]uint32{
	"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64, "386": unix.AUDIT_ARCH_I386,
	"arm": unix.AUDIT_ARCH_ARM, "riscv64": unix.AUDIT_ARCH_RISCV64, "ppc64le": unix.AUDIT_ARCH_PPC64LE,
}

// pidfdFilter is a classic BPF program over struct seccomp_data (nr at 0,
// arch at 4, args[0] at 16) that fails pidfd_open, pidfd_send_signal,
// pidfd_getfd, and waitid when its idtype (args[0]) is P_PIDFD, with
// errno; everything else is allowed. These are testdata/seccomp/*.json's
// rules, which podman hands to libseccomp.
func pidfdFilter(arch uint32, errno unix.Errno) []unix.SockFilter {
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	// Jump offsets count the instructions skipped: allow is at 9, deny
	// at 10.
	return []unix.SockFilter{
		/* 0 */ {Code: ld, K: 4},
		/* 1 */ {Code: jeq, K: arch, Jt: 0, Jf: 7},
		/* 2 */ {Code: ld, K: 0},
		/* 3 */ {Code: jeq, K: unix.SYS_PIDFD_OPEN, Jt: 6},
		/* 4 */ {Code: jeq, K: unix.SYS_PIDFD_SEND_SIGNAL, Jt: 5},
		/* 5 */ {Code: jeq, K: unix.SYS_PIDFD_GETFD, Jt: 4},
		/* 6 */ {Code: jeq, K: unix.SYS_WAITID, Jt: 0, Jf: 2},
		/* 7 */ {Code: ld, K: 16},
		/* 8 */ {Code: jeq, K: unix.P_PIDFD, Jt: 1, Jf: 0},
		/* 9 */ {Code: ret, K: unix.SECCOMP_RET_ALLOW},
		/* 10 */ {Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(errno)},
	}
}

// seccompLaunch installs the filter on every thread, checks that it is in
// force, and execs argv with seccompEnv removed from the environment.
func seccompLaunch(name string, argv []string) int {
	errno, ok := seccompErrnos[name]
	arch, archOK := auditArch[runtime.GOARCH]
	if !ok || len(argv) == 0 {
		fmt.Fprintf(os.Stderr, "seccomp launcher: want %s=ENOSYS|EPERM and a command, got %q %q\n", seccompEnv, name, argv)
		return seccompExecFailed
	}
	if !archOK {
		fmt.Fprintf(os.Stderr, "seccomp launcher: no filter for %s\n", runtime.GOARCH)
		return seccompUnavailable
	}
	// Without no_new_privs, only CAP_SYS_ADMIN may install a filter; with
	// it, anyone may, and exec cannot gain privileges past the filter.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "seccomp launcher: prctl(PR_SET_NO_NEW_PRIVS): %v\n", err)
		return seccompUnavailable
	}
	filter := pidfdFilter(arch, errno)
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	// TSYNC: the Go runtime has several threads already, and any of them
	// may be the one that execs.
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog))); e != 0 {
		fmt.Fprintf(os.Stderr, "seccomp launcher: seccomp(SECCOMP_SET_MODE_FILTER): %v\n", e)
		return seccompUnavailable
	}
	runtime.KeepAlive(filter)
	var info unix.Siginfo
	_, openErr := unix.PidfdOpen(os.Getpid(), 0)
	waitErr := unix.Waitid(unix.P_PIDFD, 0, &info, unix.WEXITED|unix.WNOHANG, nil)
	allErr := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG, nil)
	if !errors.Is(openErr, errno) || !errors.Is(waitErr, errno) || errors.Is(allErr, errno) {
		fmt.Fprintf(os.Stderr, "seccomp launcher: filter not in force: pidfd_open %v, waitid(P_PIDFD) %v, waitid(P_ALL) %v\n", openErr, waitErr, allErr)
		return seccompNotInForce
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "seccomp launcher: %v\n", err)
		return seccompExecFailed
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, seccompEnv+"=") {
			env = append(env, kv)
		}
	}
	err = syscall.Exec(path, argv, env)
	fmt.Fprintf(os.Stderr, "seccomp launcher: exec %s: %v\n", path, err)
	return seccompExecFailed
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// seccompShell is the opts.shell that runs argv through the launcher.
func seccompShell(t *testing.T, argv ...string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	q := []string{"exec", shellQuote(self)}
	for _, a := range argv {
		q = append(q, shellQuote(a))
	}
	return strings.Join(q, " ")
}

// startSeccomp starts tend under the filter: as PID 1 of a new PID
// namespace (unshare -pf --mount-proc), or as a plain process.
func startSeccomp(t *testing.T, errno string, pid1 bool, args ...string) *tendProc {
	t.Helper()
	argv := append([]string{tendBin}, args...)
	if pid1 {
		argv = append([]string{"unshare", "-pf", "--mount-proc"}, argv...)
	}
	return startTend(t, opts{pid1: pid1, shell: seccompShell(t, argv...), env: []string{seccompEnv + "=" + errno}})
}

// fakeappRuns reports whether pid is a live (not zombie) fakeapp.
func fakeappRuns(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if i < 0 || j < i {
		return false
	}
	f := strings.Fields(s[j+1:])
	return s[i+1:j] == "fakeapp" && len(f) > 0 && f[0] != "Z"
}

// TestSeccompRefusingPidfds runs tend where seccomp fails the pidfd calls
// with ENOSYS (a kernel before 5.3 looks the same) or EPERM, as PID 1 and
// as a plain subreaper: exit codes pass through, TERM reaches the app,
// orphans are reaped, and the tree is drained when the app exits.
//
// Go's os package probes pidfd_open, waitid(P_PIDFD) and
// pidfd_send_signal before its first process start and, refused, signals
// by pid; tend's reaper blocks in waitid(P_ALL), which the filter allows;
// tend's subreaper drain pins each descendant with pidfd_open, and,
// refused, must fall back to kill(2) rather than skip the process.
// examples/seccomp_test.go runs the same through podman's
// --security-opt seccomp=testdata/seccomp/pidfd-*.json.
func TestSeccompRefusingPidfds(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skipf("unshare (util-linux) is not installed: %v", err)
	}
	for _, errno := range []string{"ENOSYS", "EPERM"} {
		t.Run(errno, func(t *testing.T) {
			// Preflight: the launcher itself, with nothing else.
			pre := exec.Command(os.Args[0], "true")
			pre.Env = append(os.Environ(), seccompEnv+"="+errno)
			out, err := pre.CombinedOutput()
			var ee *exec.ExitError
			switch {
			case errors.As(err, &ee) && ee.ExitCode() == seccompUnavailable:
				t.Skipf("cannot install a seccomp filter here: %s", out)
			case err != nil:
				t.Fatalf("seccomp launcher: %v\n%s", err, out)
			}
			// A namespace of our own may be refused (no root, no user
			// namespaces): skip rather than fail, as the other PID-1
			// tests do.
			if out, err := exec.Command("unshare", "-pf", "--mount-proc", "true").CombinedOutput(); err != nil {
				t.Skipf("cannot create a PID namespace here: %v\n%s", err, out)
			}

			t.Run("exit codes pass through", func(t *testing.T) {
				for _, c := range []struct {
					app  []string
					want int
				}{
					{[]string{"exit", "7"}, 7},
					{[]string{"killself", "TERM"}, 143},
				} {
					p := startSeccomp(t, errno, true, append([]string{"--", fakeappBin}, c.app...)...)
					if code := p.wait(30 * time.Second); code != c.want {
						t.Errorf("fakeapp %s: exit %d, want %d\n%s", strings.Join(c.app, " "), code, c.want, p.stderr)
					}
				}
			})

			t.Run("TERM reaches the app", func(t *testing.T) {
				for _, pid1 := range []bool{true, false} {
					p := startSeccomp(t, errno, pid1, "-s", "--", fakeappBin, "signals", "TERM", "5")
					p.stdout.wait(t, "ready", 10*time.Second)
					p.signal(syscall.SIGTERM)
					if code := p.wait(30 * time.Second); code != 5 || !p.stdout.has("got SIGTERM") {
						t.Errorf("PID 1 %v: exit %d, want 5 after the app got TERM\n%s\n%s", pid1, code, p.stdout, p.stderr)
					}
				}
			})

			t.Run("orphans are reaped", func(t *testing.T) {
				// storm exits 0 only once none of its 100 orphans is left.
				p := startSeccomp(t, errno, true, "-w", "--", fakeappBin, "storm", "100")
				code := p.wait(60 * time.Second)
				if n := strings.Count(p.stderr.String(), "Reaped zombie process"); code != 0 || n < 100 {
					t.Fatalf("exit %d, %d orphans reaped; want 0 and 100\n%s\n%s", code, n, p.stdout, p.stderr)
				}
			})

			t.Run("PID 1 drains the namespace", func(t *testing.T) {
				dir := t.TempDir()
				p := startSeccomp(t, errno, true, "-v", "--drain-timeout", "300ms",
					"--post-stop", `for f in `+dir+`/*.pid; do test -e /proc/$(cat $f) && echo "alive $f"; done; echo checked`,
					"--", "sh", "-c", `sleep 60 & echo $! > `+dir+`/sleep.pid; "$FAKEAPP" daemon `+dir+`/daemon.pid; exit 4`)
				code := p.wait(30 * time.Second)
				if code != 4 || !p.stdout.has("checked") || p.stdout.has("alive") ||
					!p.stderr.has("drain: sent SIGTERM") || !p.stderr.has("sent SIGKILL") {
					t.Fatalf("want TERM, then KILL, to what the app left, and exit 4; got %d\n%s\n%s", code, p.stdout, p.stderr)
				}
			})

			t.Run("a subreaper drains its descendants", func(t *testing.T) {
				// Not PID 1: tend finds its descendants in /proc and
				// must signal them without a pidfd.
				file := filepath.Join(t.TempDir(), "daemon.pid")
				p := startSeccomp(t, errno, false, "-s", "-v", "--drain-timeout", "300ms", "--", fakeappBin, "daemon", file)
				code := p.wait(30 * time.Second)
				b, err := os.ReadFile(file)
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				if err != nil || pid <= 0 {
					t.Fatalf("no daemon pid (%v); exit %d\n%s", err, code, p.stderr)
				}
				if fakeappRuns(pid) {
					_ = syscall.Kill(pid, syscall.SIGKILL) // the drain missed it; do not leak it
					t.Fatalf("the TERM-ignoring descendant %d outlived tend's drain\n%s", pid, p.stderr)
				}
				if code != 0 || !p.stderr.has("drain: sent SIGTERM to 1 descendant(s)") || !p.stderr.has("sent SIGKILL to 1 descendant(s)") {
					t.Fatalf("want exit 0 after TERM, then KILL, to the one descendant; got %d\n%s", code, p.stderr)
				}
			})
		})
	}
}
