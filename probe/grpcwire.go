package probe

import "github.com/tend-init/tend/grpc"

// wireHealthCheck is package grpc's client: one Health/Check call on one h2c
// connection, bounded by ctx's deadline (sent as grpc-timeout too).
var wireHealthCheck = grpc.HealthCheck
