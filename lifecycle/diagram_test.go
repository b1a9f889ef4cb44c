package lifecycle

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite the generated blocks in docs/ instead of comparing them")

// The state diagram in docs/design.md is generated from the transition
// table (next), as pebble keeps one beside its servstate, so that it
// cannot drift: TestStateDiagram compares, and -update rewrites it.
const (
	diagramDoc   = "../docs/design.md"
	diagramBegin = "<!-- states: generated from lifecycle/phase.go's next by TestStateDiagram; go test ./lifecycle -run StateDiagram -update -->\n"
	diagramEnd   = "<!-- end of states -->\n"
)

// stateDiagram is the transition table as a Mermaid state diagram, the
// phases in their declared order: phaseNone is the start, phaseDone the end.
func stateDiagram() string {
	id := func(p Phase) string {
		if p == phaseNone {
			return "[*]"
		}
		return strings.ReplaceAll(p.String(), "-", "_")
	}
	var b strings.Builder
	b.WriteString("```mermaid\nstateDiagram-v2\n")
	for p := phaseNone + 1; p <= phaseDone; p++ {
		if id(p) != p.String() {
			b.WriteString("    state \"" + p.String() + "\" as " + id(p) + "\n")
		}
	}
	for from := phaseNone; from <= phaseDone; from++ {
		for _, to := range next[from] {
			b.WriteString("    " + id(from) + " --> " + id(to) + "\n")
		}
	}
	b.WriteString("    " + id(phaseDone) + " --> [*]\n```\n")
	return b.String()
}

// TestStateDiagram: docs/design.md's diagram is the table's.
func TestStateDiagram(t *testing.T) {
	b, err := os.ReadFile(diagramDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, diagramBegin), strings.Index(doc, diagramEnd)
	if i < 0 || j < i {
		t.Fatalf("%s has no generated state diagram (%q ... %q)", diagramDoc, diagramBegin, diagramEnd)
	}
	got, want := doc[i+len(diagramBegin):j], stateDiagram()
	if got == want {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(diagramDoc, []byte(doc[:i+len(diagramBegin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's state diagram differs from lifecycle/phase.go's transition table; run go test ./lifecycle -run StateDiagram -update\n got:\n%s\nwant:\n%s", diagramDoc, got, want)
}
