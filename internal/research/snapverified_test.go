package research

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// A process that has checked every block leaves a stamp, so the next one
// skips the block checks; any change to the file brings them back, and a
// damaged code is still caught.
func TestSnapshotBlocksVerifiedOnce(t *testing.T) {
	ctx := context.Background()
	ix, _ := snapIndex(t, topicDocs())
	query := "topic3 word21"
	want, err := freshIndex(ix).Search(ctx, query, SearchOptions{TopK: 3})
	if err != nil || len(want) == 0 {
		t.Fatalf("%+v %v", want, err)
	}
	if _, err := os.Stat(ix.verifiedPath()); err == nil {
		t.Fatal("a file written within the last tick of the clock was marked verified")
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(ix.snapshotPath(), old, old); err != nil {
		t.Fatal(err)
	}
	allChecked := func() bool {
		f, _ := ix.St.CorpusFacts(ctx, ix.Fingerprint())
		s, ok := ix.openSnapshot(f.Generation, f.Vectors)
		if !ok {
			t.Fatal("snapshot not current")
		}
		defer s.close()
		for _, c := range s.checked {
			if c == 0 {
				return false
			}
		}
		return true
	}
	if allChecked() {
		t.Fatal("blocks trusted before any process checked them")
	}
	if _, err := freshIndex(ix).Search(ctx, query, SearchOptions{TopK: 3}); err != nil {
		t.Fatal(err)
	}
	if !allChecked() {
		t.Fatal("a process that checked every block left no stamp for the next")
	}
	// A changed byte changes the stamp: the blocks are checked again and
	// the damage is caught (the file is rebuilt, the results unchanged).
	b, _ := os.ReadFile(ix.snapshotPath())
	pristine := append([]byte(nil), b...)
	f, _ := ix.St.CorpusFacts(ctx, ix.Fingerprint())
	l := layoutFor(512, f.Vectors)
	for r := 0; r < f.Vectors; r++ {
		b[l.blockOff(0)+snapCodesOff+int64(512*r)+3] ^= 0x7f
	}
	if err := os.WriteFile(ix.snapshotPath(), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if allChecked() {
		t.Fatal("a changed file kept the stamp")
	}
	got, err := freshIndex(ix).Search(ctx, query, SearchOptions{TopK: 3})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(hitIDs(got)) != fmt.Sprint(hitIDs(want)) {
		t.Fatalf("damaged snapshot changed the results: got %v, want %v", hitIDs(got), hitIDs(want))
	}
	if now, _ := os.ReadFile(ix.snapshotPath()); string(now) != string(pristine) {
		t.Fatal("the damaged snapshot was not rebuilt")
	}
}
