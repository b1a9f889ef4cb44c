// Command kapp is the app that the kubelet end-to-end tests run under tend:
// a static HTTP or TCP server plus the hook commands that
// examples/app/Dockerfile and examples/kubernetes/pod.yaml name
// (warm-cache, drain-connections). Every mode appends what it saw, with a
// timestamp, to an events file that the test reads from the host through a
// hostPath volume: container logs vanish with the pod, a hostPath file
// does not, so the order "pre-stop, then the app's TERM" is still there
// after the kubelet removed the pod.
//
//	kapp serve --port N [--healthy-after DUR] [--sick-after DUR]
//	     HTTP on 0.0.0.0:N: /healthz (200, or 503 before --healthy-after
//	     and after --sick-after), /hook/X (records "hook X"). Its events
//	     come from "app:N". Exits $APP_EXIT_CODE (default 0) on TERM, INT
//	     or QUIT.
//	kapp tcp --port N --open-file F
//	     accept TCP on 0.0.0.0:N while F exists (checked every 100 ms).
//	kapp mesh --port N
//	     a fake mesh sidecar (Istio's pilot-agent): HTTP on 127.0.0.1:N,
//	     records "quit METHOD body=BODY" and exits 0 on POST /quitquitquit;
//	     a GET there is answered 405, as pilot-agent answers it. /ready
//	     answers 200 (pilot-agent's /healthz/ready).
//	kapp warm-cache         post-start: records begin, waits $WARM_CACHE_DELAY (3s), records end
//	kapp drain-connections  pre-stop: records begin, waits 1s, records end
//	kapp post-stop          records the code tend passes in $TEND_EXIT_CODE
//	kapp log WORDS...       records WORDS
//
// The events file is $EVENTS, default /events/log. A line is
// "UNIXNANO PID WHO WHAT..."; the host and the container share one clock.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kapp serve|tcp|warm-cache|drain-connections|post-stop|log ...")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1], os.Args[2:]))
}

func run(mode string, args []string) int {
	switch mode {
	case "serve":
		return serve(args)
	case "tcp":
		return tcp(args)
	case "mesh":
		return mesh(args)
	case "warm-cache":
		record("post-start", "begin")
		d, err := time.ParseDuration(envOr("WARM_CACHE_DELAY", "3s"))
		if err != nil {
			record("post-start", "bad WARM_CACHE_DELAY:", err.Error())
			return 2
		}
		time.Sleep(d) // the hook's whole job: be a slow post-start
		record("post-start", "end")
		return 0
	case "drain-connections":
		record("pre-stop", "begin")
		time.Sleep(time.Second) // long enough that "end" is clearly before the app's signal
		record("pre-stop", "end")
		return 0
	case "post-stop":
		record("post-stop", "exit="+os.Getenv("TEND_EXIT_CODE"))
		return 0
	case "log":
		record("log", args...)
		return 0
	}
	fmt.Fprintln(os.Stderr, "kapp: unknown mode", mode)
	return 2
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// record appends one event line. O_APPEND makes each short write land
// whole, so the app and its hooks can share one file.
func record(who string, what ...string) {
	line := fmt.Sprintf("%d %d %s %s\n", time.Now().UnixNano(), os.Getpid(), who, strings.Join(what, " "))
	fmt.Fprint(os.Stderr, line)
	f, err := os.OpenFile(envOr("EVENTS", "/events/log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kapp: events file:", err)
		return
	}
	_, _ = f.WriteString(line) // best effort: stderr has the line too
	_ = f.Close()              // nothing buffered to lose
}

// stopSignals records the signal that ends the app and returns its exit
// code, $APP_EXIT_CODE, so a test can tell the app's code from tend's.
func stopSignals(who string) <-chan int {
	code, err := strconv.Atoi(envOr("APP_EXIT_CODE", "0"))
	if err != nil {
		record(who, "bad APP_EXIT_CODE:", err.Error())
	}
	sig := make(chan os.Signal, 8)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP, syscall.SIGUSR1)
	done := make(chan int, 1)
	go func() {
		for s := range sig {
			record(who, "got", "SIG"+sigName(s))
			if s == syscall.SIGHUP || s == syscall.SIGUSR1 {
				continue // reported, not a stop
			}
			done <- code
			return
		}
	}()
	return done
}

// sigName names a signal the way tend's flags do (TERM, QUIT, ...).
func sigName(s os.Signal) string {
	switch s {
	case syscall.SIGTERM:
		return "TERM"
	case syscall.SIGINT:
		return "INT"
	case syscall.SIGQUIT:
		return "QUIT"
	case syscall.SIGHUP:
		return "HUP"
	case syscall.SIGUSR1:
		return "USR1"
	}
	return s.String()
}

func serve(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	port := fs.Int("port", 8080, "port")
	healthyAfter := fs.Duration("healthy-after", 0, "/healthz fails until then")
	sickAfter := fs.Duration("sick-after", 0, "/healthz fails from then on (0: never)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	who := fmt.Sprintf("app:%d", *port)
	done := stopSignals(who)
	start := time.Now()
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		up := time.Since(start)
		if up < *healthyAfter || *sickAfter > 0 && up >= *sickAfter {
			http.Error(w, "unhealthy", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/hook/", func(w http.ResponseWriter, r *http.Request) {
		record("hook", strings.TrimPrefix(r.URL.Path, "/hook/"))
		fmt.Fprintln(w, "ok")
	})
	ln, err := net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", *port))
	if err != nil {
		record(who, "listen:", err.Error())
		return 1
	}
	record(who, "serving")
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }() // ends when the process exits
	code := <-done
	record(who, "exit", strconv.Itoa(code))
	return code
}

// tcp is the sidecar example's stand-in for Redis: a port that is open
// exactly while the test wants it open.
func tcp(args []string) int {
	fs := flag.NewFlagSet("tcp", flag.ContinueOnError)
	port := fs.Int("port", 6379, "port")
	openFile := fs.String("open-file", "/events/open", "listen while this file exists")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	who := fmt.Sprintf("app:%d", *port)
	done := stopSignals(who)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var ln net.Listener
	for {
		select {
		case code := <-done:
			record(who, "exit", strconv.Itoa(code))
			return code
		case <-tick.C:
		}
		_, err := os.Stat(*openFile)
		switch want := err == nil; {
		case want && ln == nil:
			if ln, err = net.Listen("tcp", fmt.Sprintf("0.0.0.0:%d", *port)); err != nil {
				record(who, "listen:", err.Error())
				ln = nil
				continue
			}
			record(who, "port open")
			go accept(ln)
		case !want && ln != nil:
			_ = ln.Close() // a close error leaves nothing to undo
			ln = nil
			record(who, "port closed")
		}
	}
}

func accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return // closed
		}
		_ = c.Close() // a probe only needs the connection
	}
}

// mesh stands in for a mesh sidecar that a Job must tell to quit, or the
// pod never completes (kubernetes #25908).
func mesh(args []string) int {
	fs := flag.NewFlagSet("mesh", flag.ContinueOnError)
	port := fs.Int("port", 15020, "port")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	who := fmt.Sprintf("mesh:%d", *port)
	quit := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/ready", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/quitquitquit", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			record(who, "refused", r.Method)
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		b := make([]byte, 256)
		n, _ := io.ReadFull(r.Body, b) // short bodies are the norm; what arrived is recorded
		record(who, "quit", r.Method, fmt.Sprintf("body=%q", b[:n]))
		fmt.Fprintln(w, "OK")
		select {
		case <-quit:
		default:
			close(quit)
		}
	})
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		record(who, "listen:", err.Error())
		return 1
	}
	record(who, "serving")
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }() // ends when the process exits
	<-quit
	time.Sleep(100 * time.Millisecond) // the answer reaches tend before the exit
	record(who, "exit 0")
	return 0
}
