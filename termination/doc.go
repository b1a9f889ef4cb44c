// Package termination is how tend ends: the stop's clock (Stop: its grace
// deadline, the kubelet's minimum shutdown window, the drain's and
// post-stop's ends), why the stop began (Cause: TEND_STOP_REASON and
// --stop-exit-code), and the termination-message file the kubelet reads
// (Write, which never follows what the app planted). The clock and the cause
// are values the event loop keeps in its state; lifecycle logs, signals and
// changes phase on what they say.
package termination
