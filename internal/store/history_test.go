package store

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// seedTurns saves n turns with ids 1..n, each with two messages and a
// usage row.
func seedTurns(t *testing.T, s *Store, n int) {
	t.Helper()
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i := 1; i <= n; i++ {
		_, err := s.SaveTurn(context.Background(), &Turn{
			CreatedAt: base.Add(time.Duration(i) * time.Minute), Model: "m", Query: "question " + strconv.Itoa(i),
			Answer:   "# Answer " + strconv.Itoa(i) + "\n\n" + strings.Repeat("x", 1000),
			Messages: []Message{{Role: "user", Content: "q"}, {Role: "assistant", Content: "a"}},
			Calls:    []LLMCall{{Purpose: "main", Model: "m", PromptTokens: 10, CompletionTokens: 5}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestListHistory(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	sid := int64(0)
	if err := s.DB().QueryRow(`INSERT INTO sessions(name, created_at, last_used_at) VALUES ('work', 'x', 'x') RETURNING id`).Scan(&sid); err != nil {
		t.Fatal(err)
	}
	seedTurns(t, s, 3)
	if _, err := s.SaveTurn(ctx, &Turn{SessionID: sid, Query: "in session", Answer: "partial", Status: StatusInterrupted}); err != nil {
		t.Fatal(err)
	}
	got, err := s.ListHistory(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].ID != 4 || got[2].ID != 2 {
		t.Fatalf("ListHistory ids = %+v", got)
	}
	if got[0].SessionName != "work" || got[0].SessionID != sid || got[0].Status != StatusInterrupted {
		t.Fatalf("session turn = %+v", got[0])
	}
	if len(got[1].AnswerPreview) != previewChars {
		t.Fatalf("preview is %d bytes, want %d", len(got[1].AnswerPreview), previewChars)
	}
	if got[1].CreatedAt.IsZero() || got[1].Model != "m" || got[1].Query != "question 3" {
		t.Fatalf("entry = %+v", got[1])
	}
	if n, _ := s.CountTurns(ctx); n != 4 {
		t.Fatalf("CountTurns = %d", n)
	}
}

func TestResolveHistory(t *testing.T) {
	s := openTemp(t)
	seedTurns(t, s, 10)
	if _, err := s.DeleteTurns(context.Background(), []int64{5}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		sel     string
		ids     []int64
		missing []string
	}{
		{"3", []int64{3}, nil},
		{"~1", []int64{10}, nil},
		{"~2", []int64{9}, nil},
		{"~6", []int64{4}, nil}, // 5 is gone: ~6 skips it
		{"~1-~3", []int64{10, 9, 8}, nil},
		{"3-7", []int64{3, 4, 6, 7}, nil},
		{"5", nil, []string{"5"}},
		{"~10", nil, []string{"~10"}},
		{"~9223372036854775807", nil, []string{"~9223372036854775807"}},
		{"11-9223372036854775807", nil, []string{"11-9223372036854775807"}},
		{"1-9223372036854775807", []int64{1, 2, 3, 4, 6, 7, 8, 9, 10}, nil},
		{"2,~9,2,99,1-2", []int64{2, 1}, []string{"99"}},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			sel, err := ParseHistorySelector(tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			res, err := s.ResolveHistory(context.Background(), sel)
			if err != nil {
				t.Fatal(err)
			}
			var missing []string
			for _, m := range res.Missing {
				missing = append(missing, m.String())
			}
			if !reflect.DeepEqual(res.IDs, tt.ids) || !reflect.DeepEqual(missing, tt.missing) {
				t.Fatalf("resolve %s = ids %v missing %v; want %v %v", tt.sel, res.IDs, missing, tt.ids, tt.missing)
			}
		})
	}
}

func TestDeleteTurnsCascades(t *testing.T) {
	s := openTemp(t)
	ctx := context.Background()
	seedTurns(t, s, 1200)
	ids := make([]int64, 0, 1100)
	for i := int64(1); i <= 1100; i++ {
		ids = append(ids, i)
	}
	n, err := s.DeleteTurns(ctx, ids)
	if err != nil || n != 1100 {
		t.Fatalf("DeleteTurns = %d, %v", n, err)
	}
	count := func(table string) int {
		var c int
		if err := s.DB().QueryRow(`SELECT count(*) FROM ` + table).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	if count("turns") != 100 || count("messages") != 200 || count("llm_calls") != 100 {
		t.Fatalf("after delete: turns %d messages %d calls %d", count("turns"), count("messages"), count("llm_calls"))
	}
	n, err = s.DeleteAllTurns(ctx)
	if err != nil || n != 100 {
		t.Fatalf("DeleteAllTurns = %d, %v", n, err)
	}
	if count("turns")+count("messages")+count("llm_calls") != 0 {
		t.Fatal("rows left after DeleteAllTurns")
	}
}

func TestGetTurnsKeepsOrder(t *testing.T) {
	s := openTemp(t)
	seedTurns(t, s, 3)
	ts, err := s.GetTurns(context.Background(), []int64{3, 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 2 || ts[0].ID != 3 || ts[1].ID != 1 || len(ts[0].Messages) != 2 || len(ts[0].Calls) != 1 {
		t.Fatalf("GetTurns = %+v", ts)
	}
}
