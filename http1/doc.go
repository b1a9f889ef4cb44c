// Package http1 speaks HTTP/1.1 by hand, in both directions tend needs: the
// GET client of HTTP probes, HTTP hook actions and --check (request heads,
// response heads, bodies, redirects and TLS, with the kubelet's rules and
// limits), and the parser of the health server's request heads. Both
// directions read a peer's bytes through one bounded line reader, so that
// neither can make tend grow with what a peer sends. net/http would more
// than double the size of a binary that ships in base images.
//
// It is named for its protocol, as golang.org/x/net/http2 is: an HTTP/2
// client (for gRPC health checks) belongs in a package of its own beside
// it, not in this one.
package http1
