//go:build tools

// Package e2e holds the kubelet end-to-end tests; this file only pins the
// kubelet command in go.mod, so run.sh can build it with this module's
// versions: go build k8s.io/kubernetes/cmd/kubelet.
package e2e

import _ "k8s.io/kubernetes/cmd/kubelet"
