package grpc

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// TestCheckNoDeadline: a context without a deadline still ends, by the
// kubelet's default timeout, against a peer that never answers.
func TestCheckNoDeadline(t *testing.T) {
	addr := rawPeer(t, drain)
	done := make(chan error, 1)
	go func() { done <- HealthCheck(context.Background(), addr, "") }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "within 1s") {
			t.Fatalf("Check without a deadline = %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Check without a deadline did not end")
	}
}

// TestCheckCancelled: cancelling the context (tend stopping) ends a call
// that is waiting on a silent peer, and it is not reported as a timeout.
func TestCheckCancelled(t *testing.T) {
	reading := make(chan struct{}, 1)
	addr := rawPeer(t, func(c net.Conn) {
		readPreface(c)
		reading <- struct{}{}
		drain(c)
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- HealthCheck(ctx, addr, "") }()
	select {
	case <-reading:
	case <-time.After(30 * time.Second):
		t.Fatal("the request never arrived")
	}
	cancel()
	select {
	case err := <-done:
		if err == nil || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "cancelled") {
			t.Fatalf("Check after cancel = %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Check did not end at cancel")
	}
}
