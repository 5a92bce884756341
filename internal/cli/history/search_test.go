package history

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/store"
)

func TestSearchRun(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	s := &store.Session{Name: "kitchen"}
	st.CreateSession(ctx, s)
	st.SaveTurn(ctx, &store.Turn{Query: "how to bake bread", Answer: "Flour, water, salt, yeast."})
	st.SaveTurn(ctx, &store.Turn{SessionID: s.ID, Query: "sourdough starter", Answer: "Feed it daily; the bread will rise."})
	st.SaveTurn(ctx, &store.Turn{Query: "tcp vs udp", Answer: "Reliable vs fast."})

	ios, _, out, errOut := iostreams.Test()
	opts := &SearchOptions{IO: ios, Store: func() (*store.Store, error) { return st, nil }, Text: "bread", Limit: 10}
	if err := searchRun(ctx, opts); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "1 ") || !strings.Contains(lines[2], "[kitchen]") || strings.Contains(out.String(), "«") {
		t.Fatalf("table:\n%s", out)
	}
	if !strings.Contains(errOut.String(), "history show") {
		t.Errorf("hint missing: %q", errOut)
	}

	ios, _, out, _ = iostreams.Test()
	opts = &SearchOptions{IO: ios, Store: opts.Store, Text: "bread", Limit: 1, JSON: true}
	if err := searchRun(ctx, opts); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Results []searchJSON `json:"results"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || len(res.Results) != 1 || res.Results[0].ID != 1 || res.Results[0].Score <= 0 {
		t.Fatalf("json: %v %s", err, out)
	}

	ios, _, out, errOut = iostreams.Test()
	opts = &SearchOptions{IO: ios, Store: opts.Store, Text: "croissant", Limit: 5}
	if err := searchRun(ctx, opts); err != nil || out.Len() != 0 || !strings.Contains(errOut.String(), "no turn matches") {
		t.Fatalf("no match: %v %q %q", err, out, errOut)
	}
}
