package summarize

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/llm"
)

// fakeClient records calls and answers with a canned function.
type fakeClient struct {
	mu    sync.Mutex
	reqs  []llm.Request
	reply func(req llm.Request) (string, error)
}

func (f *fakeClient) Chat(_ context.Context, req llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	out, err := f.reply(req)
	if err != nil {
		return nil, err
	}
	return &llm.Response{Message: llm.Message{Role: llm.RoleAssistant, Content: out}}, nil
}

func newSummarizer(c Client) *Summarizer {
	return &Summarizer{Client: c, Model: "sum-model", ContextSize: 32000, Config: config.Defaults().Summarizer}
}

func TestSinglePassUnderTrigger(t *testing.T) {
	fc := &fakeClient{reply: func(req llm.Request) (string, error) { return "<think>hmm</think>short summary", nil }}
	out, st, err := newSummarizer(fc).Summarize(context.Background(), "A short page about otters.", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out != "short summary" || st.Calls != 1 || st.Maps != 0 {
		t.Fatalf("out %q stats %+v", out, st)
	}
	r := fc.reqs[0]
	if r.Model != "sum-model" || r.Messages[0].Role != llm.RoleSystem || r.Messages[1].Content != "A short page about otters." {
		t.Fatalf("request %+v", r)
	}
}

func TestMapReduceIsBounded(t *testing.T) {
	fc := &fakeClient{reply: func(req llm.Request) (string, error) {
		if strings.Contains(req.Messages[0].Content, "section summaries") {
			return "final merged summary", nil
		}
		return "- bullet for " + req.Messages[1].Content[:10], nil
	}}
	var b strings.Builder
	for i := 0; b.Len() < 200000; i++ {
		fmt.Fprintf(&b, "Paragraph %d talks about topic %d in some detail.\n\n", i, i%17)
	}
	s := newSummarizer(fc)
	s.Config.HierarchicalChunkTarget = 2000 // would be ~16 chunks of the capped input
	out, st, err := s.Summarize(context.Background(), b.String(), Options{MaxChars: 500})
	if err != nil {
		t.Fatal(err)
	}
	if out != "final merged summary" {
		t.Fatalf("out %q", out)
	}
	if st.Maps > MaxMaps || st.Maps < 2 || st.Calls != st.Maps+1 {
		t.Fatalf("stats %+v", st)
	}
	if st.InputUsed > 32000 {
		t.Fatalf("input %d chars, limit 32000", st.InputUsed)
	}
	reduce := fc.reqs[len(fc.reqs)-1].Messages[1].Content
	if !strings.Contains(reduce, "Section 1:") || !strings.Contains(reduce, fmt.Sprintf("Section %d:", st.Maps)) {
		t.Fatalf("reduce input %q", reduce[:min(200, len(reduce))])
	}
}

func TestOutputCapped(t *testing.T) {
	fc := &fakeClient{reply: func(llm.Request) (string, error) { return strings.Repeat("word ", 2000), nil }}
	out, _, err := newSummarizer(fc).Summarize(context.Background(), "x", Options{MaxChars: 300})
	if err != nil || len(out) > 300 {
		t.Fatalf("len %d err %v", len(out), err)
	}
}

func TestErrors(t *testing.T) {
	boom := errors.New("provider down")
	fc := &fakeClient{reply: func(llm.Request) (string, error) { return "", boom }}
	if _, _, err := newSummarizer(fc).Summarize(context.Background(), "text", Options{}); !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	empty := &fakeClient{reply: func(llm.Request) (string, error) { return "  ", nil }}
	if _, _, err := newSummarizer(empty).Summarize(context.Background(), "text", Options{}); err == nil {
		t.Fatal("empty summary accepted")
	}
	if _, _, err := newSummarizer(fc).Summarize(context.Background(), "   ", Options{}); err == nil {
		t.Fatal("empty input accepted")
	}
	var nilS *Summarizer
	if _, _, err := nilS.Summarize(context.Background(), "x", Options{}); err == nil {
		t.Fatal("nil summarizer accepted")
	}
}

func TestChunks(t *testing.T) {
	text := strings.Repeat("alpha beta gamma delta. ", 500) // 12,000 chars
	for _, tc := range []struct{ target, overlap, max int }{{1000, 120, 12}, {3000, 0, 12}, {500, 220, 12}, {100000, 50, 12}, {1000, 5000, 3}} {
		cs := Chunks(text, tc.target, tc.overlap, tc.max)
		if len(cs) == 0 || len(cs) > tc.max {
			t.Errorf("%+v: %d chunks", tc, len(cs))
		}
		var joined int
		for _, c := range cs {
			if c == "" || !utf8.ValidString(c) {
				t.Errorf("%+v: bad chunk %q", tc, c)
			}
			joined += len(c)
		}
		if joined < len(strings.TrimSpace(text))-len(cs) {
			t.Errorf("%+v: chunks lose text (%d < %d)", tc, joined, len(text))
		}
		if !strings.HasSuffix(cs[len(cs)-1], "delta. ") {
			t.Errorf("%+v: last chunk does not end the text", tc)
		}
	}
	uni := strings.Repeat("日本語のテキスト。", 300)
	for _, c := range Chunks(uni, 301, 17, 12) {
		if !utf8.ValidString(c) {
			t.Fatal("chunk splits a UTF-8 sequence")
		}
	}
}
