package prompts

import "testing"

// Templates are parsed lazily, so a broken one would only show on first
// use; this keeps the failure at test time.
func TestTemplatesParse(t *testing.T) {
	if len(templates().Templates()) == 0 {
		t.Fatal("no templates embedded")
	}
}
