package grpc

import (
	"context"
	"fmt"
	"strconv"

	"github.com/tend-init/tend/internal/excerpt"
)

// codeNames are the gRPC status codes as grpc-go's codes.Code.String
// spells them, since the kubelet's probe output prints that spelling.
var codeNames = [...]string{
	"OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded",
	"NotFound", "AlreadyExists", "PermissionDenied", "ResourceExhausted",
	"FailedPrecondition", "Aborted", "OutOfRange", "Unimplemented",
	"Internal", "Unavailable", "DataLoss", "Unauthenticated",
}

// codeName names a gRPC status code; unknown codes print as grpc-go does.
func codeName(c uint32) string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "Code(" + strconv.FormatUint(uint64(c), 10) + ")"
}

const (
	codeDeadlineExceeded = 4
	codeUnimplemented    = 12
)

// servingNames are grpc.health.v1.HealthCheckResponse.ServingStatus.
var servingNames = [...]string{"UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"}

const statusServing = 1

// servingName names a serving status; a value the enum does not define
// prints as its number, as protobuf-go's Enum.String does.
func servingName(s uint64) string {
	if s < uint64(len(servingNames)) {
		return servingNames[s]
	}
	return strconv.FormatInt(int64(int32(s)), 10)
}

// StatusError is a call the server ended with a non-OK grpc-status.
type StatusError struct {
	Code    uint32
	Message string // percent-decoded grpc-message
}

// Error words it as the kubelet's prober does (pkg/probe/grpc/grpc.go:
// a separate text for Unimplemented, "health rpc probe failed" otherwise).
func (e *StatusError) Error() string {
	switch e.Code {
	case codeUnimplemented:
		return "this server does not implement the grpc health protocol (grpc.health.v1.Health): " + excerpt.Quote(e.Message)
	case codeDeadlineExceeded:
		return "timeout: health rpc did not complete in time (grpc-status DeadlineExceeded " + excerpt.Quote(e.Message) + ")"
	}
	return fmt.Sprintf("health rpc probe failed: code = %s desc = %s", codeName(e.Code), excerpt.Quote(e.Message))
}

// Is makes a server-side DeadlineExceeded a timeout too, as the kubelet
// reports it ("timeout: health rpc did not complete within").
func (e *StatusError) Is(target error) bool {
	return target == context.DeadlineExceeded && e.Code == codeDeadlineExceeded
}

// UnhealthyError is an OK call whose answer is not SERVING.
type UnhealthyError struct {
	Status uint64 // the ServingStatus number
}

// Error is the kubelet's wording: service unhealthy (responded with "NOT_SERVING").
func (e *UnhealthyError) Error() string {
	return fmt.Sprintf("service unhealthy (responded with %q)", servingName(e.Status))
}

// timeoutError is a call that ran out of time; errors.Is(err,
// context.DeadlineExceeded) tells the caller, which reports timeouts apart.
type timeoutError struct{ msg string }

func (e *timeoutError) Error() string { return e.msg }
func (e *timeoutError) Unwrap() error { return context.DeadlineExceeded }
func (e *timeoutError) Timeout() bool { return true }

// h2CodeNames are RFC 9113 section 7 error codes.
var h2CodeNames = [...]string{
	"NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR",
	"SETTINGS_TIMEOUT", "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM",
	"CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
	"INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
}

func h2CodeName(c uint32) string {
	if int(c) < len(h2CodeNames) {
		return h2CodeNames[c]
	}
	return "0x" + strconv.FormatUint(uint64(c), 16)
}
