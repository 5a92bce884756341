package minilm

import (
	"testing"

	"github.com/askygo/asky/internal/research/staticemb"
)

// flops is the multiply-add work of one text of n tokens (×2 per MAC):
// the four linear layers and the two attention products, per layer.
func flops(n int) float64 {
	lin := float64(n) * float64(Dim*3*Dim+Dim*Dim+2*Dim*FFN)
	att := 2 * float64(n*n*Dim)
	return 2 * Layers * (lin + att)
}

func chunkText(tb testing.TB, m *Model) string {
	g := loadGolden(tb)
	long := g.Texts[len(g.Texts)-1].Text
	if n := len(m.Tokens(nil, long)); n != MaxTokens {
		tb.Fatalf("benchmark chunk has %d tokens, want %d", n, MaxTokens)
	}
	return long
}

// BenchmarkEncodeChunk encodes one full 256-token chunk, on one core
// and with both halves of the work split over two.
func BenchmarkEncodeChunk(b *testing.B) {
	m, err := Builtin()
	if err != nil {
		b.Fatal(err)
	}
	text := chunkText(b, m)
	for _, threads := range []int{1, 2} {
		b.Run(map[int]string{1: "1core", 2: "2cores"}[threads], func(b *testing.B) {
			e := m.NewEncoder(threads)
			e.Encode([]string{text})
			b.ResetTimer()
			c0 := cpuTime()
			for b.Loop() {
				e.Encode([]string{text})
			}
			cpu := (cpuTime() - c0).Seconds() / float64(b.N)
			b.ReportMetric(cpu*1e3, "cpu-ms/chunk")
			b.ReportMetric(flops(MaxTokens)/cpu/1e9, "cpu-GFLOP/s")
			per := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(per*1e3, "ms/chunk")
			b.ReportMetric(1/per, "chunks/s")
			b.ReportMetric(flops(MaxTokens)/per/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkEncodeQuery encodes a 12-token query (the cold CLI query path).
func BenchmarkEncodeQuery(b *testing.B) {
	m, err := Builtin()
	if err != nil {
		b.Fatal(err)
	}
	q := "how do I recover from a panic in a goroutine"
	n := len(m.Tokens(nil, q))
	for _, threads := range []int{1, 2} {
		b.Run(map[int]string{1: "1core", 2: "2cores"}[threads], func(b *testing.B) {
			e := m.NewEncoder(threads)
			e.Encode([]string{q})
			b.ResetTimer()
			c0 := cpuTime()
			for b.Loop() {
				e.Encode([]string{q})
			}
			b.ReportMetric((cpuTime()-c0).Seconds()*1e3/float64(b.N), "cpu-ms/query")
			per := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(float64(n), "tokens")
			b.ReportMetric(per*1e3, "ms/query")
			b.ReportMetric(flops(n)/per/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkLoad is the first-use cost (the weights are mapped in place;
// the vocabulary is parsed).
func BenchmarkLoad(b *testing.B) {
	c0 := cpuTime()
	for b.Loop() {
		toks, err := staticemb.BuiltinTokens()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := load(weights, toks); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/load")
	b.ReportMetric((cpuTime()-c0).Seconds()*1e3/float64(b.N), "cpu-ms/load")
}

// BenchmarkKernelInCache runs the int8 and float32 kernels on operands that
// stay in L1: the FMA-bound ceiling the encoder's GFLOP/s compare with.
func BenchmarkKernelInCache(b *testing.B) {
	const k, panels = 256, 4
	a := make([]float32, rowBlock*k)
	bf := make([]float32, panels*k*panel)
	c := make([]float32, rowBlock*panels*panel)
	l := linear{q: make([]int8, panels*k*panel), scale: make([]float32, panels*panel), bias: make([]float32, panels*panel), in: k, out: panels * panel}
	work := float64(2 * rowBlock * k * panels * panel)
	b.Run("int8", func(b *testing.B) {
		c0 := cpuTime()
		for b.Loop() {
			gemmI8(c, panels*panel, a, k, rowBlock, &l, 0, panels)
		}
		b.ReportMetric(work*float64(b.N)/(cpuTime()-c0).Seconds()/1e9, "cpu-GFLOP/s")
	})
	b.Run("f32", func(b *testing.B) {
		c0 := cpuTime()
		for b.Loop() {
			gemmF32(c, panels*panel, a, k, rowBlock, bf, k, panels)
		}
		b.ReportMetric(work*float64(b.N)/(cpuTime()-c0).Seconds()/1e9, "cpu-GFLOP/s")
	})
}

// BenchmarkEncodeQueryBatch encodes eight short texts in one call (one
// stacked matrix) and one by one: batching is what EmbedDocuments does.
func BenchmarkEncodeQueryBatch(b *testing.B) {
	m, err := Builtin()
	if err != nil {
		b.Fatal(err)
	}
	qs := []string{"how do I commute", "recover from a panic", "dictionary of strings", "close a channel twice",
		"permission to sublicense", "warranty disclaimer", "format a date", "read a file line by line"}
	e := m.NewEncoder(1)
	b.Run("batched", func(b *testing.B) {
		c0 := cpuTime()
		for b.Loop() {
			e.Encode(qs)
		}
		b.ReportMetric((cpuTime()-c0).Seconds()*1e3/float64(b.N)/float64(len(qs)), "cpu-ms/text")
	})
	b.Run("single", func(b *testing.B) {
		c0 := cpuTime()
		for b.Loop() {
			for _, q := range qs {
				e.Encode([]string{q})
			}
		}
		b.ReportMetric((cpuTime()-c0).Seconds()*1e3/float64(b.N)/float64(len(qs)), "cpu-ms/text")
	})
}
