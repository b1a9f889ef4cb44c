// Command notifysend is a test sender of the sd_notify protocol, written
// against the socket directly (no libsystemd), as an app in a container
// would: it sends datagrams to $NOTIFY_SOCKET, "@name" meaning the
// abstract namespace.
//
//	notifysend [-n COUNT] [-size N] [-fd] [-nonblock] MESSAGE
//
//	-n COUNT   send MESSAGE COUNT times (a flood), blocking unless -nonblock
//	-size N    pad MESSAGE with 'x' to N bytes (an oversized datagram)
//	-fd        attach a descriptor (SCM_RIGHTS: the write end of a pipe),
//	           then wait up to 5 s for the receiver to close it, as
//	           sd_notify_barrier does, and exit 3 if it does not
//	-nonblock  count EAGAIN instead of waiting for room
//	-tend      send once through tend's own notify.Sender instead, as tend
//	           will when podman or systemd runs it
//	-stay      print "at=UNIXNANO" just before sending, then, once sent,
//	           stay until SIGTERM and exit 0 (an app that keeps running)
//	-after D   wait D before sending (an app that takes D to be ready)
//
// It prints "sent=N eagain=M" and exits 0, or 1 on any other error. It is
// built with CGO_ENABLED=0 so it runs in scratch images.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/tend-init/tend/notify"
	"golang.org/x/sys/unix"
)

func main() {
	n := flag.Int("n", 1, "how many times to send")
	size := flag.Int("size", 0, "pad the message to this many bytes")
	withFd := flag.Bool("fd", false, "attach a pipe's write end and wait for it to be closed")
	nonblock := flag.Bool("nonblock", false, "count EAGAIN instead of blocking")
	viaTend := flag.Bool("tend", false, "send through notify.Sender")
	stay := flag.Bool("stay", false, "print the time before sending, then wait for SIGTERM")
	after := flag.Duration("after", 0, "wait this long before sending")
	flag.Parse()
	msg := strings.Join(flag.Args(), "\n")
	if len(msg) < *size {
		msg += strings.Repeat("x", *size-len(msg))
	}
	fmt.Printf("NOTIFY_SOCKET=%s\n", os.Getenv("NOTIFY_SOCKET"))
	run := run
	if *viaTend {
		run = func(msg string, _ int, _, _ bool) error { return sendViaTend(msg) }
	}
	var term chan os.Signal
	if *stay {
		term = make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM) // before the send: a stop right after READY=1 is not lost
	}
	time.Sleep(*after)
	if *stay {
		fmt.Printf("at=%d\n", time.Now().UnixNano())
	}
	if err := run(msg, *n, *withFd, *nonblock); err != nil {
		fmt.Fprintln(os.Stderr, "notifysend:", err)
		os.Exit(1)
	}
	if term != nil {
		<-term
	}
}

func sendViaTend(msg string) error {
	s, err := notify.FromEnv(os.LookupEnv)
	if err != nil || s == nil {
		return fmt.Errorf("notify.FromEnv: %v, %v", s, err)
	}
	defer s.Close()
	if err := s.Send(msg); err != nil {
		return err
	}
	fmt.Println("sent=1 eagain=0")
	return nil
}

func run(msg string, n int, withFd, nonblock bool) error {
	name := os.Getenv("NOTIFY_SOCKET")
	if name == "" {
		return errors.New("NOTIFY_SOCKET is not set")
	}
	flags := unix.SOCK_DGRAM | unix.SOCK_CLOEXEC
	if nonblock {
		flags |= unix.SOCK_NONBLOCK
	}
	fd, err := unix.Socket(unix.AF_UNIX, flags, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	addr := &unix.SockaddrUnix{Name: name} // x/sys turns a leading '@' into the abstract NUL
	var oob []byte
	pr, pw := -1, -1
	if withFd {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
			return fmt.Errorf("pipe2: %w", err)
		}
		oob = unix.UnixRights(p[1])
		pr, pw = p[0], p[1]
	}
	sent, eagain := 0, 0
	for i := 0; i < n; i++ {
		err := unix.Sendmsg(fd, []byte(msg), oob, addr, unix.MSG_NOSIGNAL)
		switch {
		case err == nil:
			sent++
		case errors.Is(err, unix.EAGAIN):
			eagain++
		case errors.Is(err, unix.EINTR):
			i--
		default:
			return fmt.Errorf("sendmsg after %d: %w", sent, err)
		}
	}
	fmt.Printf("sent=%d eagain=%d\n", sent, eagain)
	if pr >= 0 {
		// Our own copy of the write end goes first; then EOF on the read
		// end means the receiver closed the copy it was given.
		_ = unix.Close(pw) // ours; an error would only leave the wait to its deadline
		fds := []unix.PollFd{{Fd: int32(pr), Events: unix.POLLIN}}
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			k, err := unix.Poll(fds, int(time.Until(deadline)/time.Millisecond)+1)
			if err == nil && k > 0 {
				fmt.Println("closed by receiver")
				return nil
			}
		}
		os.Exit(3)
	}
	return nil
}
