package research

import (
	"context"
	"os"

	"github.com/askygo/asky/internal/store"
)

// otherSnaps keeps the snapshots of the corpus's other embedding spaces
// (the deep tier's) current across an ingest or prune that writes only
// the active space's vectors. Every such write moves the corpus
// generation, which left the deep snapshot stale though its vectors had
// not changed (new chunks simply have no deep vector yet), and the next
// query rewrote it whole from SQLite before answering: seconds at 100k
// chunks. Each space's snapshot is followed by a snapAppender that
// appends nothing and re-stamps the header with the new generation after
// each committed write, under the same checks as the main space's
// appends (the generation moved by exactly one, the space's vector count
// is the file's). A write that deleted vectors of the space (a replaced
// or removed document that had deep vectors) has their rows patched out
// in place (snappatch.go). A snapshot that cannot follow is rewritten at
// the end of the ingest instead.
type otherSnaps struct {
	spaces []*otherSnap
}

type otherSnap struct {
	ix  *Index
	app *snapAppender // nil once it could not follow
}

// followOtherSpaces opens, for appending, the current snapshot of each
// space but the active one. Spaces with no snapshot file are left alone
// (nothing to keep current), and so are spaces whose file is stale
// already: the next query or deep pass rewrites them as before. No
// embedder is loaded: the space rows give the fingerprint and dimension.
func (ix *Index) followOtherSpaces(ctx context.Context) *otherSnaps {
	if ix.SnapshotDir == "" {
		return nil
	}
	spaces, err := ix.St.EmbeddingSpaces(ctx)
	if err != nil {
		return nil
	}
	o := &otherSnaps{}
	for _, sp := range spaces {
		if sp.Fingerprint == ix.fp || sp.State != "ready" || sp.Dim <= 0 {
			continue
		}
		si := &Index{St: ix.St, SnapshotDir: ix.SnapshotDir, spec: Spec{Dim: sp.Dim}, fp: sp.Fingerprint, ready: true}
		if _, err := os.Stat(si.snapshotPath()); err != nil {
			continue
		}
		if app := si.beginAppend(ctx); app != nil {
			o.spaces = append(o.spaces, &otherSnap{ix: si, app: app})
		}
	}
	return o
}

// written follows a committed ingest batch: the rows of the replaced
// documents' vectors in each space are patched out.
func (o *otherSnaps) written(ctx context.Context, writes []store.SourceWrite) {
	if o == nil {
		return
	}
	for _, s := range o.spaces {
		var removed []int64
		for _, d := range writes {
			removed = append(removed, d.Dropped[s.ix.fp]...)
		}
		s.follow(ctx, removed)
	}
}

// removed follows a committed removal of one document, which deleted
// the vectors of the dropped chunk ids in each space.
func (o *otherSnaps) removed(ctx context.Context, dropped map[string][]int64) {
	if o == nil {
		return
	}
	for _, s := range o.spaces {
		s.follow(ctx, dropped[s.ix.fp])
	}
}

// spacesDropped follows a committed drop of whole spaces (counts of
// their vectors, see store.DropOtherSpacesCounted): their files cannot
// follow, the others are re-stamped.
func (o *otherSnaps) spacesDropped(ctx context.Context, dropped map[string]int) {
	if o == nil {
		return
	}
	for _, s := range o.spaces {
		if dropped[s.ix.fp] > 0 {
			s.app.close()
			s.app = nil
			continue
		}
		s.follow(ctx, nil)
	}
}

// follow brings the space's snapshot to a write that moved the
// generation by one and deleted the vectors of removed in the space
// (none: the header is only re-stamped).
func (s *otherSnap) follow(ctx context.Context, removed []int64) {
	if s.app == nil {
		return
	}
	if s.app.patchRows(ctx, s.app.gen+1, removed, nil, nil) != nil {
		s.app.close()
		s.app = nil
	}
}

// finish releases the files and rewrites, now rather than in the next
// query, each snapshot the writes could not follow (only a header check
// when another process brought it current meanwhile). A cache: failing
// only costs that query time.
func (o *otherSnaps) finish(ctx context.Context, progress SnapshotProgress) {
	if o == nil {
		return
	}
	for _, s := range o.spaces {
		followed := s.app != nil && !s.app.replaced()
		s.app.close()
		s.app = nil
		if !followed && ctx.Err() == nil {
			_ = s.ix.RefreshSnapshot(ctx, progress)
		}
	}
}

// close releases the files without rewriting anything (an ingest that
// was interrupted).
func (o *otherSnaps) close() {
	if o == nil {
		return
	}
	for _, s := range o.spaces {
		s.app.close()
		s.app = nil
	}
}
