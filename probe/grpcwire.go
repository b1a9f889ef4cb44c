package probe

import (
	"context"
	"errors"
)

// wireCheck is a placeholder until the wire client (package grpc) lands.
func wireCheck(ctx context.Context, addr, service string) error {
	return errors.New("gRPC client not built")
}
