//go:build race

package main_test

// raceEnabled: the tests run under the race detector, so the binaries they
// exec are built with it too, or races in the shipped code go unseen.
const raceEnabled = true
