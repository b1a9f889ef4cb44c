package probe

import (
	"context"

	"github.com/tend-init/tend/hooks"
)

// Version is tend's version, set by package main: the User-Agent of every
// request, and tend_build_info.
var Version = "dev"

// Header is one request header; an empty Value removes a default header.
type Header struct{ Name, Value string }

// Request is one GET.
type Request struct {
	URL     string
	Headers []Header
}

// Response is what came back.
type Response struct {
	Code int
	Note string
}

// Get makes the request within ctx's deadline.
func Get(ctx context.Context, r Request) (Response, error) {
	code, err := httpGet(ctx, r.URL)
	return Response{Code: code}, err
}

// newHTTP is the HTTP checker for a JSON httpGet handler.
func newHTTP(a hooks.HTTPGet) HTTP { return HTTP{URL: a.URL} }
