// Command grpcapp is a gRPC server with grpc-go's reference health service
// (google.golang.org/grpc/health), the server tend's grpc probes are
// tested against. It serves until SIGTERM or SIGINT.
//
// Its health is what a test controls, without a signal or a shell, so that
// it works the same under tend in a test and in a kubelet pod:
//
//	-down FILE     NOT_SERVING while FILE exists (polled every 20 ms)
//	-serve-for D   SERVING for D after the start, then NOT_SERVING for good
//
// The status is set for -service and for "" (the server as a whole);
// grpc-go answers NOT_FOUND for any other service name. Each change is
// printed on stdout ("status SERVING"), so a test can wait for it.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:50051", "listen on `HOST:PORT`")
	service := flag.String("service", "app", "the service name whose status is toggled")
	down := flag.String("down", "", "NOT_SERVING while `FILE` exists")
	serveFor := flag.Duration("serve-for", 0, "NOT_SERVING after `DUR` (0: never)")
	flag.Parse()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "grpcapp:", err)
		os.Exit(1)
	}
	srv := grpc.NewServer()
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	start := time.Now()
	last := healthpb.HealthCheckResponse_UNKNOWN
	set := func() {
		st := healthpb.HealthCheckResponse_SERVING
		if *down != "" {
			if _, err := os.Stat(*down); err == nil {
				st = healthpb.HealthCheckResponse_NOT_SERVING
			}
		}
		if *serveFor > 0 && time.Since(start) >= *serveFor {
			st = healthpb.HealthCheckResponse_NOT_SERVING
		}
		if st == last {
			return
		}
		hs.SetServingStatus("", st)
		hs.SetServingStatus(*service, st)
		last = st
		fmt.Printf("status %s\n", st)
	}
	set()
	fmt.Printf("listening on %s\n", ln.Addr())
	go func() { _ = srv.Serve(ln) }() // ends with Stop below

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			srv.Stop()
			return
		case <-tick.C:
			set()
		}
	}
}
