package probe_test

import (
	"fmt"

	"github.com/tend-init/tend/probe"
)

func ExampleParseSpec() {
	for _, s := range []string{"http://127.0.0.1:8080/healthz", "tcp://127.0.0.1:5432", `["/bin/check"]`, "https://127.0.0.1:8443/healthz", "grpc://127.0.0.1:50051/grpc.health.v1.Health", "ftp://x:1"} {
		spec, err := probe.ParseSpec(s)
		fmt.Println(spec, err)
	}
	// Output:
	// http://127.0.0.1:8080/healthz <nil>
	// tcp://127.0.0.1:5432 <nil>
	// ["/bin/check"] <nil>
	// https://127.0.0.1:8443/healthz <nil>
	// grpc://127.0.0.1:50051/grpc.health.v1.Health <nil>
	// <nil> probe "ftp://x:1": unsupported scheme (want http://, https://, tcp://, grpc:// or grpcs://)
}

func ExampleThreshold() {
	t := probe.NewThreshold(probe.Params{FailureThreshold: 3, SuccessThreshold: 1}, true)
	for _, ok := range []bool{false, false, false, true} {
		state, changed := t.Observe(ok)
		fmt.Println(state, changed)
	}
	// Output:
	// true false
	// true false
	// false true
	// true true
}
