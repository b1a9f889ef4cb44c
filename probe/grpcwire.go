package probe

import "github.com/tend-init/tend/grpc"

// wireHealthCheck is package grpc's client: one Health/Check call on one
// HTTP/2 connection (h2c, or TLS for grpcs), bounded by ctx's deadline
// (sent as grpc-timeout too).
var wireHealthCheck = grpc.Check
