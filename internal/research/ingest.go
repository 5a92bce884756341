package research

// This file is the ingest pipeline for collected targets: files are read,
// extracted, chunked and embedded on all cores, and written in batched
// transactions by one writer, with progress after each file. Which files
// are targets is decided in collect.go.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/askygo/asky/internal/store"
)

// DefaultMaxFileBytes caps one input file; bigger files are skipped.
const DefaultMaxFileBytes = 50 << 20

// FileStatus values of FileResult.
const (
	StatusIngested  = "ingested"
	StatusUnchanged = "unchanged"
	StatusFailed    = "failed"
	// StatusSkipped is a file a directory walk left out on purpose (a
	// symlink leading out of the tree): not an error of the file.
	StatusSkipped = "skipped"
)

// FileResult is the outcome for one file.
type FileResult struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	Chunks int    `json:"chunks"`
	Bytes  int64  `json:"bytes"`
	ID     int64  `json:"id,omitempty"`
	// Reextracted marks an ingested file whose content had not changed
	// but whose stored text came from an older extractor for its format.
	Reextracted bool `json:"reextracted,omitempty"`
}

// Progress is reported after each file.
type Progress struct {
	Files, TotalFiles int
	Bytes, TotalBytes int64
	Chunks            int
	// Reextracted counts the unchanged files read again because their
	// format's extractor is newer than the one that read them.
	Reextracted int
	Elapsed     time.Duration
	Current     string
}

// Ingester adds files to the corpus.
type Ingester struct {
	Index        *Index
	Chunker      Chunker
	MaxFileBytes int64
	// Allowed restricts extensions (".md"); empty allows all supported.
	Allowed []string
	// OnProgress is called after each file (from the writing goroutine).
	OnProgress func(Progress)
	// OnSnapshot reports progress of the vector snapshot written at the
	// end of an ingest that changed the corpus.
	OnSnapshot SnapshotProgress
	// ExtractorVersions gives the current extractor version of a format;
	// nil is ExtractorVersion (tests bump a format through it).
	ExtractorVersions func(format string) int
}

// prepared is a document ready to be written.
type prepared struct {
	res    FileResult
	src    *store.CorpusSource
	chunks []store.CorpusChunk
	vecs   [][]float32
}

// A write batch takes the documents that are ready, up to these bounds.
const (
	writeBatchBytes = 8 << 20
	writeBatchDocs  = 32
)

// Ingest processes targets: extraction, chunking and embedding run ahead
// on all cores while the caller's goroutine writes the documents that are
// ready, each batch in one transaction (a document is never split across
// transactions). Unchanged files (same sha256, read by the current
// extractor version of their format) are skipped, so an interrupted run
// resumes where it stopped.
func (in *Ingester) Ingest(ctx context.Context, targets []Target) ([]FileResult, error) {
	if err := in.Index.Open(ctx); err != nil {
		return nil, err
	}
	var total int64
	for _, t := range targets {
		total += t.Size
	}
	// Stop the preparing goroutines when the writer gives up early.
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := in.prepareAll(pctx, targets)
	// The vector snapshot follows the writes when it can (see
	// snapAppender); otherwise it is rewritten at the end.
	app := in.Index.beginAppend(ctx)
	defer func() { app.close() }()
	// So do the other spaces' (the deep tier's), whose vectors this
	// ingest leaves as they are (see otherSnaps).
	others := in.Index.followOtherSpaces(ctx)
	defer others.close()
	start := time.Now()
	var results []FileResult
	prog := Progress{TotalFiles: len(targets), TotalBytes: total}
	wroteChunks := 0
	for closed := false; !closed; {
		p, ok := <-ch
		if !ok {
			break
		}
		// Documents already prepared while the previous batch was being
		// written go into one transaction (and one FTS segment).
		batch := []prepared{p}
		size := p.res.Bytes
	drain:
		for size < writeBatchBytes && len(batch) < writeBatchDocs {
			select {
			case q, ok := <-ch:
				if !ok {
					closed = true
					break drain
				}
				batch = append(batch, q)
				size += q.res.Bytes
			default:
				break drain
			}
		}
		var writes []store.SourceWrite
		var written []int
		for i, q := range batch {
			if q.src != nil {
				writes = append(writes, store.SourceWrite{Src: q.src, Chunks: q.chunks, Vecs: q.vecs})
				written = append(written, i)
			}
		}
		if len(writes) > 0 {
			ids, err := in.Index.St.ReplaceCorpusSources(ctx, writes, in.Index.Fingerprint())
			if err != nil {
				if ctx.Err() != nil {
					break
				}
				return results, fmt.Errorf("writing %s: %w", batch[written[0]].res.Path, err)
			}
			for k, i := range written {
				batch[i].res.ID = ids[k]
				wroteChunks += len(batch[i].chunks)
			}
			if app != nil && app.append(ctx, writes) != nil {
				app.close()
				app = nil
			}
			others.written(ctx, writes)
		}
		for _, q := range batch {
			results = append(results, q.res)
			prog.Files++
			prog.Bytes += q.res.Bytes
			prog.Chunks += q.res.Chunks
			if q.res.Reextracted {
				prog.Reextracted++
			}
			prog.Elapsed = time.Since(start)
			prog.Current = q.res.Path
			if in.OnProgress != nil {
				in.OnProgress(prog)
			}
		}
	}
	if wroteChunks > 0 {
		in.Index.Invalidate()
	}
	if wroteChunks >= 1000 {
		_ = in.Index.St.CheckpointWAL(context.WithoutCancel(ctx))
	}
	if wroteChunks > 0 && ctx.Err() == nil {
		// Unless the appends kept it current (then this only checks the
		// header), written now, with progress, rather than by the first
		// query: at a million chunks that query would otherwise spend
		// seconds on it. A snapshot that cannot be written only costs
		// that query speed.
		_ = in.Index.RefreshSnapshot(ctx, in.OnSnapshot)
		others.finish(ctx, in.OnSnapshot)
	}
	// Missing (chunks without vectors) as of now, for the caller's note.
	_ = in.Index.refreshFacts(context.WithoutCancel(ctx), false)
	return results, ctx.Err()
}

// prepareAll reads, extracts, chunks and embeds the targets on all cores
// (PDF and EPUB extraction is single-threaded per file and was the
// bottleneck with one preparing goroutine) and delivers them in target
// order, so results and resumption stay deterministic. At most a few
// documents wait in memory ahead of the writer.
func (in *Ingester) prepareAll(ctx context.Context, targets []Target) <-chan prepared {
	workers := max(1, min(runtime.GOMAXPROCS(0), len(targets)))
	slots := make(chan chan prepared, workers+1)
	go func() {
		defer close(slots)
		sem := make(chan struct{}, workers)
		for _, t := range targets {
			if ctx.Err() != nil {
				return
			}
			slot := make(chan prepared, 1)
			select {
			case slots <- slot:
			case <-ctx.Done():
				return
			}
			sem <- struct{}{}
			go func(t Target) {
				defer func() { <-sem }()
				slot <- in.prepare(ctx, t)
			}(t)
		}
	}()
	out := make(chan prepared, 4)
	go func() {
		defer close(out)
		for slot := range slots {
			p := <-slot
			select {
			case out <- p:
			case <-ctx.Done():
				for range slots {
				}
				return
			}
		}
	}()
	return out
}

func (in *Ingester) prepare(ctx context.Context, t Target) prepared {
	res := FileResult{Path: t.Path, Bytes: t.Size}
	fail := func(reason string) prepared {
		res.Status, res.Reason = StatusFailed, reason
		return prepared{res: res}
	}
	limit := in.MaxFileBytes
	if limit <= 0 {
		limit = DefaultMaxFileBytes
	}
	if t.Size > limit {
		return fail(fmt.Sprintf("file too large (%d MB > %d MB)", t.Size>>20, limit>>20))
	}
	f, err := os.Open(t.Path)
	if err != nil {
		return fail(statReason(err))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	f.Close()
	if err != nil {
		return fail(statReason(err))
	}
	if int64(len(data)) > limit {
		return fail("file too large")
	}
	res.Bytes = int64(len(data))
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	version := in.extractorVersion(FormatOf(t.Path))
	reread := false // unchanged, but read by an older extractor
	if old, err := in.Index.St.CorpusSourceByPath(ctx, t.Path); err == nil && old.SHA256 == hash {
		// A newer version's text is kept too: an older build does not
		// make it worse.
		if old.ExtractorVersion >= version {
			res.Status, res.ID, res.Chunks = StatusUnchanged, old.ID, 0
			return prepared{res: res}
		}
		reread = true
	}
	doc, err := Extract(t.Path, data)
	if err != nil {
		return fail(err.Error())
	}
	chunks, err := ChunkDocument(doc, in.Chunker)
	if err != nil {
		return fail(err.Error())
	}
	if len(chunks) == 0 {
		return fail("no extractable text")
	}
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = EmbedText(c)
	}
	vecs, err := in.Index.Emb.EmbedDocuments(ctx, texts)
	if err != nil {
		return fail("embedding: " + err.Error())
	}
	secs, _ := json.Marshal(doc.Sections)
	var mtime string
	if fi, err := os.Stat(t.Path); err == nil {
		mtime = fi.ModTime().UTC().Format(time.RFC3339)
	}
	src := &store.CorpusSource{Path: t.Path, Title: doc.Title, Format: doc.Format, SHA256: hash, Size: res.Bytes,
		MTime: mtime, Content: doc.Text, Sections: string(secs), ExtractorVersion: version}
	res.Status, res.Chunks, res.Reextracted = StatusIngested, len(chunks), reread
	return prepared{res: res, src: src, chunks: chunks, vecs: vecs}
}

// EmbedText is what gets embedded for a chunk: its section breadcrumb and
// text, so heading words count for dense retrieval as they do in FTS.
func EmbedText(c store.CorpusChunk) string {
	if c.Section == "" {
		return c.Text
	}
	return c.Section + "\n" + c.Text
}

// ChunkDocument chunks each section separately, so no chunk straddles two
// sections and every chunk carries its breadcrumb.
func ChunkDocument(doc *Document, ck Chunker) ([]store.CorpusChunk, error) {
	var out []store.CorpusChunk
	secs := doc.Sections
	if len(secs) == 0 {
		secs = buildSections(doc.Text, nil)
	}
	sort.SliceStable(secs, func(i, j int) bool { return secs[i].Start < secs[j].Start })
	for _, s := range secs {
		body := doc.Text[s.Start:s.End]
		if s.Title != "" {
			// Drop the heading line itself; it is in the breadcrumb.
			if nl := strings.IndexByte(body, '\n'); nl >= 0 && strings.Contains(body[:nl], s.Title) {
				body = body[nl+1:]
			}
		}
		body = stripMarkdownHeadingMarks(body)
		spans, err := ck.Split(body)
		if err != nil {
			return nil, err
		}
		path := s.Path
		if path == "" && s.Title != "Full Document" {
			path = s.Title
		}
		for _, sp := range spans {
			out = append(out, store.CorpusChunk{Index: len(out), SectionID: s.ID, Section: path, Title: doc.Title, Text: sp.Text})
		}
	}
	if len(out) == 0 && len(secs) > 0 {
		// Only headings (a stub note, an outline): their text is the content.
		spans, err := ck.Split(stripMarkdownHeadingMarks(doc.Text))
		if err != nil {
			return nil, err
		}
		for _, sp := range spans {
			out = append(out, store.CorpusChunk{Index: len(out), SectionID: secs[0].ID, Title: doc.Title, Text: sp.Text})
		}
	}
	return out, nil
}

func stripMarkdownHeadingMarks(s string) string {
	if !strings.Contains(s, "#") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if strings.HasPrefix(t, "#") {
			lines[i] = strings.TrimLeft(t, "# ")
		}
	}
	return strings.Join(lines, "\n")
}
