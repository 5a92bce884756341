package compose

import (
	"context"
	"encoding/json"
	"github.com/askygo/asky/internal/llm"
	"regexp"
	"strings"
	"sync"

	"github.com/askygo/asky/internal/summarize"
	"github.com/askygo/asky/internal/tools"
	"github.com/askygo/asky/internal/turn"
)

// In-turn compaction of URL-keyed tool results (asky-behavior.md §5.3
// phase 1): each long page of a get_url_content or get_full_content
// result becomes "[COMPACTED] <summary>" by the summarization model.
const (
	compactInputChars  = 24000
	compactSummaryMax  = 800
	compactMinPageSize = 500
)

// pageHeading starts a page in a get_url_content result ("## <url>").
var pageHeading = regexp.MustCompile(`(?m)^## (https?://\S+)$`)

// compactor summarizes pages for the engine's CompactTool, caching each
// summary for the rest of the turn so a page is summarized once.
type compactor struct {
	summarizer func(context.Context) (tools.TextSummarizer, error)
	// instruction is the summary prompt ([prompts] summarize_page).
	instruction string
	mu          sync.Mutex
	cache       map[string]string
}

func newCompactor(x *composer, req *turn.Request) *compactor {
	return &compactor{summarizer: summarizerFor(x, req), cache: map[string]string{},
		instruction: orPrompt(x.cfg, promptSummarizePage, "Keep the facts, numbers and names a later answer may need.")}
}

// compact implements turn.Request.CompactTool.
func (c *compactor) compact(ctx context.Context, tool, content string) (string, bool) {
	ctx = llm.WithPurpose(ctx, llm.PurposeCompaction)
	switch tool {
	case tools.GetURLContentName:
		return c.compactPages(ctx, content)
	case tools.ToolGetFullContent:
		return c.compactDocuments(ctx, content)
	}
	return "", false
}

// compactPages summarizes each long "## <url>" section.
func (c *compactor) compactPages(ctx context.Context, content string) (string, bool) {
	locs := pageHeading.FindAllStringSubmatchIndex(content, -1)
	if len(locs) == 0 {
		return "", false
	}
	var b strings.Builder
	b.WriteString(content[:locs[0][0]])
	changed := false
	for i, loc := range locs {
		end := len(content)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		url, body := content[loc[2]:loc[3]], content[loc[1]:end]
		b.WriteString(content[loc[0]:loc[1]])
		if len(body) <= compactMinPageSize {
			b.WriteString(body)
			continue
		}
		s, ok := c.summary(ctx, url, body)
		if !ok {
			b.WriteString(body)
			continue
		}
		changed = true
		b.WriteString("\n[COMPACTED] " + s + "\n\n")
	}
	return strings.TrimRight(b.String(), "\n"), changed
}

// compactDocuments summarizes the content of each long document of a
// get_full_content JSON result.
func (c *compactor) compactDocuments(ctx context.Context, content string) (string, bool) {
	var v struct {
		Documents []map[string]any `json:"documents"`
	}
	if json.Unmarshal([]byte(content), &v) != nil || len(v.Documents) == 0 {
		return "", false
	}
	changed := false
	for _, d := range v.Documents {
		text, _ := d["content"].(string)
		if len(text) <= compactMinPageSize {
			continue
		}
		key, _ := d["source"].(string)
		if sec, _ := d["section"].(string); sec != "" {
			key += "#" + sec
		}
		if s, ok := c.summary(ctx, key, text); ok {
			d["content"], changed = "[COMPACTED] "+s, true
			delete(d, "truncated")
		}
	}
	if !changed {
		return "", false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// summary returns the cached or a new summary of text (keyed by its URL
// or source); false when no summarizer works.
func (c *compactor) summary(ctx context.Context, key, text string) (string, bool) {
	c.mu.Lock()
	s, ok := c.cache[key]
	c.mu.Unlock()
	if ok {
		return s, true
	}
	summ, err := c.summarizer(ctx)
	if err != nil {
		return "", false
	}
	text = strings.TrimSpace(text)
	if len(text) > compactInputChars {
		text = text[:compactInputChars]
	}
	s, _, err = summ.Summarize(ctx, text, summarize.Options{MaxChars: compactSummaryMax, Instruction: c.instruction})
	if err != nil || strings.TrimSpace(s) == "" {
		return "", false
	}
	s = strings.TrimSpace(s)
	if len(s) > compactSummaryMax {
		s = s[:compactSummaryMax]
	}
	c.mu.Lock()
	c.cache[key] = s
	c.mu.Unlock()
	return s, true
}
