package minilm

import (
	"slices"
	"testing"
)

// Pause is asked before every step of every layer; the vectors do not depend on it, and
// a false stops the batch with nil.
func TestEncodePause(t *testing.T) {
	m, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"the pager rolls back a transaction", "a zebra grazes"}
	want := m.NewEncoder(1).Encode(texts)
	calls := 0
	e := m.NewEncoder(1)
	e.Pause = func() bool { calls++; return true }
	got := e.Encode(texts)
	if calls != PausePoints {
		t.Fatalf("Pause called %d times, want once per step (%d)", calls, PausePoints)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("text %d: vectors differ with Pause set", i)
		}
	}
	calls = 0
	e.Pause = func() bool { calls++; return calls < 3 }
	if v := e.Encode(texts); v != nil || calls != 3 {
		t.Fatalf("stopped at the third step: %d calls, vectors %v", calls, v != nil)
	}
	e.Pause = nil
	if got := e.Encode(texts); !slices.Equal(got[0], want[0]) {
		t.Fatal("an encoder stopped once encodes wrong afterwards")
	}
}
