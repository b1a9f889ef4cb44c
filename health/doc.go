// Package health serves tend's health endpoint: /livez, /readyz (with
// ?verbose) and /metrics, from the Status snapshot the event loop
// publishes. It owns the connections (the cap, eviction, the lingering
// close), the gate that keeps their system calls from growing tend's
// threads, the /metrics rendering cache and the /proc walk behind it, and
// giving memory back after a flood. Requests are read with http1's parser:
// net/http would more than double the size of a binary that ships in base
// images.
package health
