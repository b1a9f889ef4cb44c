// Package grpc makes one gRPC health check (grpc.health.v1.Health/Check)
// by hand, over one plaintext HTTP/2 connection with prior knowledge (h2c),
// as the kubelet's grpc probe does (pkg/probe/grpc: insecure, one Check
// call, success only on SERVING).
//
// It speaks only the frames one unary call needs: the client preface,
// SETTINGS and their ACK, HEADERS and CONTINUATION, DATA, PING answered,
// RST_STREAM and GOAWAY; frame types it does not know are skipped, as
// RFC 9113 section 4.1 requires. Every size a peer controls is bounded
// (frame, header list, message, number of frames, PINGs answered) and the
// whole call, connect included, ends by the context's deadline, so that a
// hostile or broken peer costs tend one connection and a few kilobytes for
// at most one probe timeout.
//
// Why not the usual stack: golang.org/x/net/http2 pulls in net/http (which
// http1/ already avoids for its size), and grpc-go adds its own runtime,
// reflection-based protobuf and resolvers on top, in a binary that ships
// in base images; the health API is one string field out and one enum
// field back. The whole of this package and hpack add about 86 KB to the
// stripped binary. Header compression uses
// golang.org/x/net/http2/hpack, a small well-kept package, rather than
// Huffman coding and the dynamic table written again here. The two
// protobuf messages are encoded and decoded by hand in proto.go: a
// protobuf runtime (google.golang.org/protobuf) would add hundreds of
// kilobytes for two fields.
//
// It is named for its protocol, as http1/ is.
package grpc
