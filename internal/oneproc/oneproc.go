// Package oneproc sets GOMAXPROCS to 1 while the program initialises, before
// the packages that allocate much in their init functions run.
//
// tend runs with one P (lifecycle's thread budget). Setting it only in
// main came too late: by then package initialisation had often run on the
// second P, and destroying that P pushed every span its cache held back to
// the heap's central lists, each into a fresh 4 KiB block: 250 to 450 KiB
// of anonymous memory at random (RssAnon 1,100 or 1,550 KiB, run to run).
//
// Go initialises packages in import-path order as soon as their own
// imports are: this one imports only the runtime, so it runs among the
// very first, whatever imports it. The GOMAXPROCS variable is left alone;
// it is the app's, which inherits it.
package oneproc

import "runtime"

func init() { runtime.GOMAXPROCS(1) }
