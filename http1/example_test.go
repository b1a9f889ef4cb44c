package http1_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/tend-init/tend/http1"
)

func ExampleGet() {
	// An app whose health page redirects to another host: the kubelet does
	// not follow it, and counts the 302 as success, with a warning.
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://login.example.invalid/", http.StatusFound)
	}))
	defer app.Close()
	resp, err := http1.Get(context.Background(), http1.Request{
		URL:             app.URL + "/healthz",
		Headers:         []http1.Header{{Name: "X-Probe", Value: "tend"}},
		FollowRedirects: true,
	})
	fmt.Println(resp.Code, err)
	fmt.Println(resp.Note)
	// Output:
	// 302 <nil>
	// redirect to http://login.example.invalid/ not followed (another host, as the kubelet): status 302 counted as success
}
