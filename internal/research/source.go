package research

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/askygo/asky/internal/store"
)

// HandlePrefix is the model-facing handle of a corpus source.
const HandlePrefix = "corpus://cache/"

// Handle returns "corpus://cache/<id>".
func Handle(id int64) string { return HandlePrefix + strconv.FormatInt(id, 10) }

// ParseHandle splits "corpus://cache/<id>[#section=<sid>]" (and the legacy
// "corpus://cache/<id>/<sid>").
func ParseHandle(s string) (id int64, section string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(s), HandlePrefix)
	if !found {
		return 0, "", false
	}
	if i := strings.Index(rest, "#section="); i >= 0 {
		section = rest[i+len("#section="):]
		rest = rest[:i]
	} else if i := strings.IndexByte(rest, '/'); i >= 0 {
		section = rest[i+1:]
		rest = rest[:i]
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	return id, section, err == nil && id > 0
}

// AmbiguousSourceError lists the candidates of a reference.
type AmbiguousSourceError struct {
	Ref        string
	Candidates []string
}

func (e *AmbiguousSourceError) Error() string {
	return fmt.Sprintf("%q matches %d sources: %s", e.Ref, len(e.Candidates), strings.Join(e.Candidates, ", "))
}

// ErrNoSource means a reference matched nothing.
var ErrNoSource = errors.New("no such source")

// sourceLister is what ResolveSource needs.
type sourceLister interface {
	ListCorpusSources(ctx context.Context) ([]store.CorpusSource, error)
}

// ResolveSources is ResolveSource that also accepts a directory: a path
// that is, or was, a directory ingested recursively selects every source
// below it, so a query can be scoped to "my papers" without listing ids.
func ResolveSources(ctx context.Context, st sourceLister, ref string) ([]int64, error) {
	if _, _, ok := ParseHandle(ref); !ok {
		if abs, err := filepath.Abs(strings.TrimSpace(ref)); err == nil {
			srcs, err := st.ListCorpusSources(ctx)
			if err != nil {
				return nil, err
			}
			prefix := strings.TrimSuffix(abs, string(filepath.Separator)) + string(filepath.Separator)
			var ids []int64
			for _, src := range srcs {
				if strings.HasPrefix(src.Path, prefix) {
					ids = append(ids, src.ID)
				}
			}
			if len(ids) > 0 {
				return ids, nil
			}
		}
	}
	src, _, err := ResolveSource(ctx, st, ref)
	if err != nil {
		return nil, err
	}
	return []int64{src.ID}, nil
}

// ResolveSource finds a source by id, handle, path (absolute or relative
// to the working directory), exact title, or a unique substring of its
// path or title.
func ResolveSource(ctx context.Context, st sourceLister, ref string) (*store.CorpusSource, string, error) {
	srcs, err := st.ListCorpusSources(ctx)
	if err != nil {
		return nil, "", err
	}
	section := ""
	ref = strings.TrimSpace(ref)
	if id, sec, ok := ParseHandle(ref); ok {
		ref, section = strconv.FormatInt(id, 10), sec
	}
	if id, err := strconv.ParseInt(ref, 10, 64); err == nil {
		for i := range srcs {
			if srcs[i].ID == id {
				return &srcs[i], section, nil
			}
		}
	}
	abs, _ := filepath.Abs(ref)
	for i := range srcs {
		if srcs[i].Path == abs || srcs[i].Path == ref || strings.EqualFold(srcs[i].Title, ref) {
			return &srcs[i], section, nil
		}
	}
	var cands []*store.CorpusSource
	low := strings.ToLower(ref)
	for i := range srcs {
		if strings.Contains(strings.ToLower(srcs[i].Path), low) || strings.Contains(strings.ToLower(srcs[i].Title), low) {
			cands = append(cands, &srcs[i])
		}
	}
	switch len(cands) {
	case 0:
		return nil, "", fmt.Errorf("%w %q", ErrNoSource, ref)
	case 1:
		return cands[0], section, nil
	}
	names := make([]string, 0, len(cands))
	for _, c := range cands {
		names = append(names, fmt.Sprintf("%d (%s)", c.ID, filepath.Base(c.Path)))
	}
	return nil, "", &AmbiguousSourceError{Ref: ref, Candidates: names}
}
