// Package probe is what a probe is: its kinds (HTTP, TCP, gRPC, a
// command: one Handler type each), how a spec or a Kubernetes Probe in
// JSON becomes one, running its attempts every period, Kubernetes'
// thresholds, and judging an attempt as the kubelet does (a 200-399
// status, SERVING, exit 0, "timed out", ErrUnknown when tend could not run
// it). --check is one such attempt (Get, or GRPC's Attempt). Set and
// Await are the checks' and --wait-for's state, values the event loop
// owns and drives. The bytes an
// HTTP probe exchanges are package http1's, a gRPC probe's package grpc's;
// the endpoint that shows the results is package health's.
package probe
