package store

import (
	"context"
	"strings"
	"testing"
)

// TestSlowCheckIsAnnounced checks that the page check before upgrading a
// big database is announced, and a small one's is not.
func TestSlowCheckIsAnnounced(t *testing.T) {
	var got []string
	ctx := WithNotice(context.Background(), func(m string) { got = append(got, m) })
	noteSlowCheck(ctx, 10<<20)
	if len(got) != 0 {
		t.Fatalf("a 10 MB database was announced: %q", got)
	}
	noteSlowCheck(ctx, 3<<30)
	if len(got) != 1 || !strings.Contains(got[0], "3.0 GB") || !strings.Contains(got[0], "once") {
		t.Fatalf("a 3 GB database: %q", got)
	}
	noteSlowCheck(context.Background(), 3<<30) // no notice set: nothing to call
}
