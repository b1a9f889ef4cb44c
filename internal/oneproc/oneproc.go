// Package oneproc sets GOMAXPROCS to 1 while the program initialises, before
// the packages that allocate much in their init functions run.
//
// tend runs with one P (lifecycle's thread budget). Setting it only in
// main came too late: by then package initialisation had often run on the
// second P, and destroying that P pushed every span its cache held back to
// the heap's central lists, each into a fresh 4 KiB block: 250 to 450 KiB
// of anonymous memory at random (RssAnon 1,100 or 1,550 KiB, run to run).
//
// Where main imports it does not matter: Go (since 1.21) initialises, at
// each step, the first package by import path whose own imports are all
// initialised. This one imports only the runtime, so it is ready at once
// and runs after only the few packages whose paths sort before it and
// whose imports are ready as well, none of which allocates.
// TestOneProcInitsFirst reads the runtime's init trace (GODEBUG=inittrace=1)
// and fails if any package allocated before it: give it an import, or a
// path that sorts later, and it would. The GOMAXPROCS variable is left
// alone; it is the app's, which inherits it.
package oneproc

import "runtime"

func init() { runtime.GOMAXPROCS(1) }
