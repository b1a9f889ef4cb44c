// Command fakeapp is a small, static test app that tend's tests run under
// tend. Each mode does one thing a real app might do and prints what it saw,
// so tests can assert on it. It is built with CGO_ENABLED=0 so it also runs
// in scratch images and chroots with nothing else in them.
//
//	fakeapp exit N             exit with code N
//	fakeapp killself SIG       die by signal SIG
//	fakeapp info               print pid, ppid, pgid, args, cwd, env, signal masks, tty
//	fakeapp cat                copy stdin to stdout, then exit 0
//	fakeapp signals EXITSIG N  print "got SIG" for every signal, exit N on EXITSIG ("none": never)
//	fakeapp ignore SIG... -- MODE ARGS  ignore SIGs, then run MODE
//	fakeapp sleep DUR          sleep, then exit 0
//	fakeapp spawn N [CODE]     start N children that all exit when this process exits; exit CODE (-SIG: die by SIG)
//	fakeapp storm N            run "spawn N", then wait until /proc shows no zombie and none of them left
//	fakeapp zombies            print the number of zombies among its parent's children
//	fakeapp eofwait            read stdin until EOF, then exit 0
//	fakeapp daemon FILE        fork a child that ignores TERM, write its pid to FILE, exit 0
//	fakeapp writeclosed        write to a closed stdout repeatedly, then exit 0
//	fakeapp joinpgid PID FILE MODE ARGS  join PID's process group, write its id to FILE, run MODE
//	fakeapp forkbomb CODE HOLD [orphans]  fork until the pid limit and keep at it; each child holds
//	                           its pid for HOLD (with orphans, a grandchild that PID 1 reaps); exit CODE on TERM
//	fakeapp oomfork N KB       start N children that each touch KB KiB and hold it; print how many died by SIGKILL
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: fakeapp MODE [ARGS]")
		os.Exit(2)
	}
	os.Exit(dispatch(os.Args[1], os.Args[2:]))
}

func dispatch(mode string, args []string) int {
	switch mode {
	case "exit":
		return atoi(arg(args, 0))
	case "killself":
		return killself(parseSig(arg(args, 0)))
	case "info":
		return info(args)
	case "cat":
		_, _ = io.Copy(os.Stdout, os.Stdin)
		return 0
	case "signals":
		return signals(arg(args, 0), atoi(arg(args, 1)))
	case "ignore":
		return ignore(args)
	case "sleep":
		d, _ := time.ParseDuration(arg(args, 0))
		time.Sleep(d)
		return 0
	case "spawn":
		if rc := spawn(atoi(arg(args, 0))); rc != 0 {
			return rc
		}
		if c := arg(args, 1); strings.HasPrefix(c, "-") {
			return dispatch("killself", []string{c[1:]})
		}
		return atoi(arg(args, 1))
	case "storm":
		return storm(atoi(arg(args, 0)))
	case "zombies":
		z, _ := countProcs()
		fmt.Printf("zombies=%d\n", z)
		return 0
	case "touch": // touch PATH: create an empty file, a signal to a waitfor
		if err := os.WriteFile(arg(args, 0), nil, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	case "waitfor": // waitfor PATH MODE ARGS...: once PATH exists (10 s at most), run MODE
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(arg(args, 0)); err == nil {
				break
			}
		}
		return dispatch(arg(args, 1), args[min(2, len(args)):])
	case "eofwait":
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "daemon":
		return daemon(arg(args, 0))
	case "forkbomb":
		hold, _ := time.ParseDuration(arg(args, 1))
		return forkbomb(atoi(arg(args, 0)), hold, arg(args, 2) == "orphans")
	case "joinpgid":
		return joinpgid(args)
	case "oomfork":
		return oomfork(atoi(arg(args, 0)), atoi(arg(args, 1)))
	case "oomhold":
		return oomhold(atoi(arg(args, 0)))
	case "writeclosed":
		_ = os.Stdout.Close()
		_ = os.Stderr.Close()
		return 0
	}
	fmt.Fprintln(os.Stderr, "fakeapp: unknown mode", mode)
	return 2
}

func arg(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func parseSig(s string) syscall.Signal {
	if n, err := strconv.Atoi(s); err == nil {
		return syscall.Signal(n)
	}
	s = strings.TrimPrefix(strings.ToUpper(s), "SIG")
	for n := 1; n < 65; n++ {
		if strings.TrimPrefix(strings.ToUpper(syscall.Signal(n).String()), "SIG") == s || sigName(syscall.Signal(n)) == "SIG"+s {
			return syscall.Signal(n)
		}
	}
	return 0
}

// names holds the signals fakeapp can name; realtime ones print as numbers.
var names = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGTERM: "SIGTERM", syscall.SIGUSR1: "SIGUSR1", syscall.SIGUSR2: "SIGUSR2",
	syscall.SIGALRM: "SIGALRM", syscall.SIGCONT: "SIGCONT", syscall.SIGTSTP: "SIGTSTP",
	syscall.SIGWINCH: "SIGWINCH", syscall.SIGPROF: "SIGPROF", syscall.SIGXCPU: "SIGXCPU",
	syscall.SIGVTALRM: "SIGVTALRM", syscall.SIGURG: "SIGURG", syscall.SIGPIPE: "SIGPIPE",
	syscall.SIGCHLD: "SIGCHLD", syscall.SIGKILL: "SIGKILL", syscall.SIGTTIN: "SIGTTIN",
	syscall.SIGTTOU: "SIGTTOU", syscall.SIGSEGV: "SIGSEGV", syscall.SIGPWR: "SIGPWR",
	syscall.SIGXFSZ: "SIGXFSZ", syscall.SIGIO: "SIGIO",
}

func sigName(s syscall.Signal) string {
	if n, ok := names[s]; ok {
		return n
	}
	return strconv.Itoa(int(s))
}

// killself dies by sig. The Go runtime keeps its own handler for most
// signals even after signal.Reset, and ignores e.g. SIGUSR1 there, so the
// default action is restored with a raw rt_sigaction first.
func killself(sig syscall.Signal) int {
	var act [4]uint64 // struct sigaction, all zero: SIG_DFL, no flags, empty mask
	_, _, errno := syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
	if errno != 0 && sig != syscall.SIGKILL && sig != syscall.SIGSTOP {
		fmt.Fprintln(os.Stderr, "rt_sigaction:", errno)
		return 98
	}
	_ = syscall.Kill(os.Getpid(), sig)
	time.Sleep(5 * time.Second)
	return 99
}

func info(args []string) int {
	wd, _ := os.Getwd()
	fmt.Printf("pid=%d\n", os.Getpid())
	fmt.Printf("ppid=%d\n", os.Getppid())
	pgid, _ := syscall.Getpgid(0)
	fmt.Printf("pgid=%d\n", pgid)
	fmt.Printf("args=%s\n", strings.Join(args, "|"))
	fmt.Printf("cwd=%s\n", wd)
	fmt.Printf("env_FAKE=%s\n", os.Getenv("FAKE"))
	if init, err := os.ReadFile("/proc/1/cmdline"); err == nil {
		fmt.Printf("init=%s\n", strings.ReplaceAll(strings.TrimRight(string(init), "\x00"), "\x00", " "))
	}
	if st, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(st), "\n") {
			if strings.HasPrefix(l, "SigIgn:") || strings.HasPrefix(l, "SigBlk:") {
				k, v, _ := strings.Cut(l, ":")
				fmt.Printf("%s=%s\n", k, strings.TrimSpace(v))
			}
		}
	}
	if stat, err := os.ReadFile("/proc/self/stat"); err == nil {
		// Field 8 (tpgid) is the terminal's foreground group, after the
		// parenthesised command name.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		if len(f) > 5 {
			fmt.Printf("tpgid=%s\n", f[5])
		}
	}
	return 0
}

func signals(exitOn string, code int) int {
	c := make(chan os.Signal, 128)
	var all []os.Signal
	for n := 1; n < 65; n++ {
		s := syscall.Signal(n)
		if s == syscall.SIGKILL || s == syscall.SIGSTOP || n == 32 || n == 33 {
			continue
		}
		if signal.Ignored(s) {
			continue
		}
		all = append(all, s)
	}
	signal.Notify(c, all...)
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintln(w, "ready")
	_ = w.Flush()
	for s := range c {
		name := sigName(s.(syscall.Signal))
		if name == "SIGURG" || name == "SIGCHLD" {
			continue // the Go runtime and our own children produce these
		}
		fmt.Fprintf(w, "got %s\n", name)
		_ = w.Flush()
		if name == exitOn || strings.TrimPrefix(name, "SIG") == exitOn {
			return code
		}
	}
	return 0
}

func ignore(args []string) int {
	i := 0
	for ; i < len(args) && args[i] != "--"; i++ {
		signal.Ignore(parseSig(args[i]))
	}
	if i+1 >= len(args) {
		return 2
	}
	return dispatch(args[i+1], args[i+2:])
}

// spawn starts n children that block on a pipe whose only writer is this
// process, then exits: the children become orphans, and all of them exit
// in the same instant, when the kernel closes the pipe.
func spawn(n int) int {
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	self, _ := os.Executable()
	for i := 0; i < n; i++ {
		attr := &syscall.ProcAttr{Files: []uintptr{r.Fd(), 1, 2}}
		if _, err := syscall.ForkExec(self, []string{"fakeapp", "eofwait"}, attr); err != nil {
			fmt.Fprintln(os.Stderr, "fork:", err)
			return 1
		}
	}
	_ = w // exiting closes the last write end
	return 0
}

// daemon leaves behind a child that ignores TERM, like a badly written
// background helper, and records its pid.
func daemon(file string) int {
	self, _ := os.Executable()
	p, err := os.StartProcess(self, []string{"fakeapp", "ignore", "TERM", "--", "sleep", "1h"}, &os.ProcAttr{Files: []*os.File{nil, nil, os.Stderr}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Return only once the child really ignores TERM, so a test that
	// drains right after this exits sees a stubborn process.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Pid))
		for _, l := range strings.Split(string(st), "\n") {
			if v, ok := strings.CutPrefix(l, "SigIgn:"); ok {
				if m, _ := strconv.ParseUint(strings.TrimSpace(v), 16, 64); m&(1<<(syscall.SIGTERM-1)) != 0 {
					if err := os.WriteFile(file, []byte(strconv.Itoa(p.Pid)), 0o644); err != nil {
						fmt.Fprintln(os.Stderr, err)
						return 1
					}
					return 0
				}
			}
		}
	}
	fmt.Fprintln(os.Stderr, "daemon never ignored TERM")
	return 1
}
