package memory

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/askygo/asky/internal/store"
)

// BenchmarkRecall measures what recall adds to every question: with no
// memories, and over 1,000 (lexical similarity; rows written directly so
// the setup stays fast).
func BenchmarkRecall(b *testing.B) {
	ctx := context.Background()
	verbs := []string{"live in", "work with", "prefer", "often visit", "study", "own", "write about", "avoid", "collect", "teach"}
	things := []string{"Lisbon", "Neovim", "green tea", "road cycling", "Go generics", "Python typing", "modal jazz", "night shifts", "Berlin", "two dogs",
		"sourdough", "chess openings", "Rust async", "film cameras", "Kubernetes", "trail running", "Japanese", "vinyl records", "houseplants", "sailing"}
	for _, n := range []int{0, 1000} {
		b.Run(fmt.Sprintf("memories=%d", n), func(b *testing.B) {
			st := openStore(b)
			for i := 0; i < n; i++ {
				text := fmt.Sprintf("I %s %s since %d", verbs[i%len(verbs)], things[(i/len(verbs))%len(things)], 1950+i%70)
				if _, err := st.SaveMemory(ctx, &store.Memory{Text: text}); err != nil {
					b.Fatal(err)
				}
			}
			svc := New(st, defaults, nil)
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if _, err := svc.Recall(ctx, "weekend trips from Lisbon with my two dogs", 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Microseconds())/float64(b.N), "µs/recall")
		})
	}
}
