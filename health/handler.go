package health

import (
	"strconv"
	"strings"
	"time"
)

const textPlain = "text/plain; charset=utf-8"

// answer renders the whole response to a parsed request, so that it goes
// out in one write.
func (s *Server) answer(method, target string) []byte {
	path, query, _ := strings.Cut(target, "?")
	if path == "/metrics" && (method == "GET" || method == "HEAD") {
		return s.metricsAnswer(s.status.Load(), method == "HEAD")
	}
	code, ctype, body := s.respond(method, path)
	if verbose(query) && (path == "/readyz" || path == "/livez") && (code == 200 || code == 503) {
		body = s.verbose(path, code == 200)
	}
	extra := ""
	if code == 405 {
		extra = "Allow: GET, HEAD\r\n" // RFC 9110 requires it with a 405
	}
	if method == "HEAD" {
		return response(code, ctype, extra, len(body), "")
	}
	return response(code, ctype, extra, len(body), body)
}

// errorResponse is the answer to a request that could not be parsed.
func errorResponse(code int, body string) []byte {
	return response(code, textPlain, "", len(body), body)
}

// response renders a status line, headers and body. Content-Length is
// passed apart from body because a HEAD answer states the GET body's size.
func response(code int, ctype, extra string, length int, body string) []byte {
	var b strings.Builder
	b.Grow(160 + len(body))
	b.WriteString("HTTP/1.1 ")
	b.WriteString(strconv.Itoa(code))
	b.WriteString(" ")
	b.WriteString(statusText(code))
	b.WriteString("\r\nContent-Type: ")
	b.WriteString(ctype)
	b.WriteString("\r\nContent-Length: ")
	b.WriteString(strconv.Itoa(length))
	b.WriteString("\r\nCache-Control: no-store\r\nConnection: close\r\n")
	b.WriteString(extra)
	b.WriteString("\r\n")
	b.WriteString(body)
	return []byte(b.String())
}

func (s *Server) respond(method, path string) (int, string, string) {
	switch path {
	case "/livez", "/readyz", "/metrics":
	default:
		return 404, textPlain, "not found\n"
	}
	if method != "GET" && method != "HEAD" {
		return 405, textPlain, "method not allowed\n"
	}
	st := s.status.Load()
	switch path {
	case "/livez":
		switch {
		case st == nil:
			return 503, textPlain, "not live: starting\n"
		case time.Since(st.Published) > staleAfter:
			return 503, textPlain, "not live: event loop unresponsive\n"
		case !st.Live:
			return 503, textPlain, st.LiveReason + "\n"
		}
		return 200, textPlain, "ok\n"
	case "/readyz":
		switch {
		case st == nil:
			return 503, textPlain, "not ready: starting\n"
		case !st.Ready:
			return 503, textPlain, st.ReadyReason + "\n"
		}
		return 200, textPlain, "ok\n"
	}
	// Unreachable: answer serves a GET or HEAD of /metrics from
	// metricsAnswer, and any other method got its 405 above.
	return 500, textPlain, "internal error\n"
}

// statusText is the reason phrase of every code the server sends. An
// unknown code gets an empty phrase, which RFC 9112 allows, rather than a
// wrong one.
func statusText(code int) string {
	switch code {
	case 200:
		return "OK"
	case 400:
		return "Bad Request"
	case 404:
		return "Not Found"
	case 405:
		return "Method Not Allowed"
	case 431:
		return "Request Header Fields Too Large"
	case 503:
		return "Service Unavailable"
	}
	return ""
}

// verbose reports whether a query asks for ?verbose, as kube-apiserver's
// health endpoints take it.
func verbose(query string) bool {
	for _, kv := range strings.Split(query, "&") {
		if k, _, _ := strings.Cut(kv, "="); k == "verbose" {
			return true
		}
	}
	return false
}

// verbose lists each check that the endpoint answers for, kube-apiserver's
// way: "[+]db ok" or "[-]api failed: status 503", then the verdict. The
// startup checks gate both endpoints. A reason that no check explains
// (post-start running, stopping, ...) is listed as [-]lifecycle.
func (s *Server) verbose(path string, ok bool) string {
	st := s.status.Load()
	kind, word, reason := "ready", "readyz", ""
	if path == "/livez" {
		kind, word = "live", "livez"
	}
	var b strings.Builder
	failed := false
	if st != nil {
		for _, c := range st.Checks {
			if c.Kind != kind && c.Kind != "startup" {
				continue
			}
			if c.Up && c.Detail != "" {
				b.WriteString("[+]" + c.Name + " ok: " + c.Detail + "\n") // the app's STATUS= (--notify)
			} else if c.Up {
				b.WriteString("[+]" + c.Name + " ok\n")
			} else {
				failed = true
				b.WriteString("[-]" + c.Name + " failed: " + c.Detail + "\n")
			}
		}
		reason = st.ReadyReason
		if path == "/livez" {
			reason = st.LiveReason
		}
	}
	if !ok && !failed {
		if reason == "" {
			reason = "starting"
		}
		b.WriteString("[-]lifecycle failed: " + reason + "\n")
	}
	if ok {
		b.WriteString(word + " check passed\n")
	} else {
		b.WriteString(word + " check failed\n")
	}
	return b.String()
}
