package grpc

import (
	"bytes"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2/hpack"
)

// rawPeer serves every connection on a loopback listener with behave, a
// hostile HTTP/2 server written frame by frame. Cleanup closes the
// listener and waits for every connection's goroutine.
func rawPeer(t *testing.T, behave func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return // the listener closed at cleanup
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { _ = c.Close() }() // the client sees the close as it may
				// No behaviour outlives its test by more than this.
				_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // a fresh TCP connection takes a deadline
				behave(c)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close() // ends the accept loop
		wg.Wait()
	})
	return ln.Addr().String()
}

// readPreface reads the client preface and tend's SETTINGS frame.
func readPreface(c net.Conn) bool {
	b := make([]byte, len(clientPreface)+9+18)
	_, err := io.ReadFull(c, b)
	return err == nil
}

func frame(typ, flags uint8, stream uint32, p []byte) []byte {
	return appendFrame(nil, typ, flags, stream, p)
}

var serverSettings = frame(frameSettings, 0, 0, nil)

// responseHeaders is an HPACK block of a 200 gRPC answer.
func responseHeaders() []byte {
	var b bytes.Buffer
	e := hpack.NewEncoder(&b)
	_ = e.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})                   // bytes.Buffer
	_ = e.WriteField(hpack.HeaderField{Name: "content-type", Value: "application/grpc"}) // bytes.Buffer
	return b.Bytes()
}

// writeForever writes f until the client goes away.
func writeForever(c net.Conn, f []byte) {
	for {
		if _, err := c.Write(f); err != nil {
			return
		}
	}
}

// drain reads until the client closes: a peer that holds the connection.
func drain(c net.Conn) { _, _ = io.Copy(io.Discard, c) } // ends with the client's close
