package probe

import (
	"strings"
	"testing"
	"time"
)

// TestParseJSONGRPC: the Probe's grpc handler as the API validates it
// (GRPCAction: port an int32 1..65535, service optional and any string),
// probing this container.
func TestParseJSONGRPC(t *testing.T) {
	for _, c := range []struct {
		in   string
		want GRPC
	}{
		{`{"grpc":{"port":50051}}`, GRPC{Addr: "127.0.0.1:50051"}},
		{`{"grpc":{"port":50051,"service":""}}`, GRPC{Addr: "127.0.0.1:50051"}},
		{`{"grpc":{"port":1,"service":"a/b?c#d"}}`, GRPC{Addr: "127.0.0.1:1", Service: "a/b?c#d"}},
		{`{"grpc":{"port":65535,"service":"grpc.health.v1.Health"},"periodSeconds":2}`, GRPC{Addr: "127.0.0.1:65535", Service: "grpc.health.v1.Health"}},
	} {
		c2, _, err := ParseJSON(c.in)
		if g, ok := c2.(GRPC); err != nil || !ok || g != c.want {
			t.Errorf("ParseJSON(%s) = %#v, %v; want %#v", c.in, c2, err, c.want)
		}
	}
	for _, c := range []struct{ in, err string }{
		{`{"grpc":{"port":"grpc"}}`, "port"},
		{`{"grpc":{"port":0}}`, "1..65535"},
		{`{"grpc":{}}`, "1..65535"},
		{`{"grpc":{"port":65536}}`, "1..65535"},
		{`{"grpc":{"port":-1}}`, "1..65535"},
		{`{"grpc":{"port":50051,"host":"x"}}`, `unknown field "grpc.host"`},
		{`{"grpc":{"port":50051},"tcpSocket":{"port":1}}`, "exactly one of exec, httpGet, tcpSocket or grpc, got 2"},
		{`{"periodSeconds":1}`, "exactly one of exec, httpGet, tcpSocket or grpc, got 0"},
	} {
		_, _, err := ParseJSON(c.in)
		if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseJSON(%s): %v; want one line containing %q", c.in, err, c.err)
		}
	}
}

// TestParseJSONTerminationGracePeriod: a probe's own
// terminationGracePeriodSeconds, > 0 as validateProbe requires.
func TestParseJSONTerminationGracePeriod(t *testing.T) {
	_, st, err := ParseJSON(`{"tcpSocket":{"port":1},"terminationGracePeriodSeconds":3}`)
	if err != nil || st.GracePeriod == nil || *st.GracePeriod != 3*time.Second {
		t.Errorf("terminationGracePeriodSeconds 3: %+v, %v", st, err)
	}
	_, st, err = ParseJSON(`{"tcpSocket":{"port":1}}`)
	if err != nil || st.GracePeriod != nil {
		t.Errorf("no terminationGracePeriodSeconds: %+v, %v", st, err)
	}
	for _, in := range []string{"0", "-1", "1.5", `"3"`, "99999999999999"} {
		_, _, err := ParseJSON(`{"tcpSocket":{"port":1},"terminationGracePeriodSeconds":` + in + `}`)
		if err == nil || !strings.Contains(err.Error(), "terminationGracePeriodSeconds") {
			t.Errorf("terminationGracePeriodSeconds %s: %v; want an error naming it", in, err)
		}
	}
}
