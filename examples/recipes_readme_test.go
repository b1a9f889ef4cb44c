package examples

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// recipeNames are the README's recipes, each introduced by a
// `<!-- recipe: NAME -->` line before its dockerfile block.
var recipeNames = []string{"nginx", "postgresql", "redis", "gunicorn", "node"}

// readmeRecipe returns the dockerfile block of the README that follows the
// marker of recipe name: the lines a user copies, which `make recipes`
// builds as they are (recipes_test.go), so that the recipe the README
// shows is the one tested.
func readmeRecipe(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	marker := "<!-- recipe: " + name + " -->\n```dockerfile\n"
	_, rest, ok := strings.Cut(string(b), marker)
	if !ok {
		t.Fatalf("README.md has no %q", marker)
	}
	block, _, ok := strings.Cut(rest, "```\n")
	if !ok {
		t.Fatalf("README.md: the %s recipe's block does not end", name)
	}
	return block
}

// TestReadmeRecipes checks, in every `go test`, the shape the recipe tests
// rely on: each block copies tend from the `tend` image and has an exec-form
// ENTRYPOINT (a JSON array, after joining continued lines) that runs /tend.
// The build and the behaviour are checked by `make recipes`.
func TestReadmeRecipes(t *testing.T) {
	for _, name := range recipeNames {
		block := readmeRecipe(t, name)
		if !strings.HasPrefix(block, "COPY --from=tend /tend /tend\n") {
			t.Errorf("%s: the block does not begin with COPY --from=tend /tend /tend:\n%s", name, block)
		}
		joined := strings.ReplaceAll(block, "\\\n", "")
		var entry []string
		for _, line := range strings.Split(joined, "\n") {
			if v, ok := strings.CutPrefix(line, "ENTRYPOINT "); ok {
				if err := json.Unmarshal([]byte(v), &entry); err != nil {
					t.Errorf("%s: ENTRYPOINT is not a JSON array: %v\n%s", name, err, v)
				}
			}
		}
		if len(entry) == 0 || entry[0] != "/tend" || entry[len(entry)-1] != "--" {
			t.Errorf("%s: want ENTRYPOINT [\"/tend\", …, \"--\"], got %q", name, entry)
		}
	}
}
