package shortlist_test

import (
	"github.com/askygo/asky/internal/fetch"
	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/search"
	"github.com/askygo/asky/internal/shortlist"
)

// The production types satisfy the consumer-side interfaces, so the
// preload core passes them as they are.
var (
	_ shortlist.Searcher = search.Provider(nil)
	_ shortlist.Fetcher  = (*fetch.Fetcher)(nil)
	_ shortlist.Embedder = research.Embedder(nil)
)
