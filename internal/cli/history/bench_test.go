package history

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/store"
)

// benchTurns is the history size of the cold-start benchmark (issue 2,
// "Speed": 20 rows from a DB with 10k turns).
const benchTurns = 10000

// minSamples is the fewest cold runs a median is taken over.
const minSamples = 20

// coldBench is the binaries and seeded home shared by the sub-benchmarks.
type coldBench struct {
	asky, minimal, db, home string
}

func setupColdBench(b *testing.B) *coldBench {
	dir := b.TempDir()
	c := &coldBench{asky: filepath.Join(dir, "asky"), minimal: filepath.Join(dir, "minimal"), home: filepath.Join(dir, "home")}
	c.db = filepath.Join(c.home, "asky.db")
	for _, build := range [][]string{
		{"build", "-trimpath", "-o", c.asky, "github.com/askygo/asky/cmd/asky"},
		{"build", "-trimpath", "-o", c.minimal, "./testdata/minimal"},
	} {
		cmd := exec.Command("go", build...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go %s: %v\n%s", strings.Join(build, " "), err, out)
		}
	}
	if err := seedBenchDB(c.db); err != nil {
		b.Fatal(err)
	}
	return c
}

// seedBenchDB writes benchTurns realistic turns (question, ~1.5 KB
// answer, two messages, one usage row).
func seedBenchDB(path string) error {
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	answer := "# Answer\n\n" + strings.Repeat("Some explanation with a [link](https://example.org). ", 30)
	start := time.Now().Add(-benchTurns * time.Minute)
	for i := range benchTurns {
		q := fmt.Sprintf("question number %d about something worth asking a research assistant", i)
		_, err := st.SaveTurn(ctx, &store.Turn{CreatedAt: start.Add(time.Duration(i) * time.Minute), Model: "gpt-4o-mini", Query: q, Answer: answer,
			Messages: []store.Message{{Role: "user", Content: q}, {Role: "assistant", Content: answer}},
			Calls:    []store.LLMCall{{Purpose: "main", Model: "gpt-4o-mini", PromptTokens: 900, CompletionTokens: 300}}})
		if err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkColdStart builds asky and the minimal program (cobra + glamour +
// modernc.org/sqlite, testdata/minimal) once, seeds a 10k-turn database,
// and times cold processes in sub-benchmarks (the outer function runs once,
// so the setup is not repeated while b.N is tuned).
func BenchmarkColdStart(b *testing.B) {
	c := setupColdBench(b)
	env := append(os.Environ(), "ASKY_HOME="+c.home)
	// runOnce returns the wall time of one process and its CPU time (user
	// + system), which stays meaningful when the machine is shared and
	// wall times are inflated by waiting for a core.
	runOnce := func(b *testing.B, name string, args ...string) (wall, cpu time.Duration) {
		cmd := exec.Command(name, args...)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("%s %v: %v", name, args, err)
		}
		return time.Since(t0), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}

	// history-list compares `asky history list 20` with the minimal program
	// and reports both medians and their ratio (goal <= 1.3). Runs
	// alternate so machine noise hits both alike.
	b.Run("history-list", func(b *testing.B) {
		askyRun := func() (time.Duration, time.Duration) { return runOnce(b, c.asky, "history", "list", "20") }
		minRun := func() (time.Duration, time.Duration) { return runOnce(b, c.minimal, c.db) }
		for range 3 { // warm the page cache
			askyRun()
			minRun()
		}
		var askyWall, askyCPU, minWall, minCPU []time.Duration
		// At least minSamples pairs, so a plain `make bench` (b.N = 1 for a
		// slow benchmark) still gives a meaningful median; ns/op is not the
		// figure here, the reported metrics are.
		b.ResetTimer()
		for range max(b.N, minSamples) {
			wall, cpu := askyRun()
			askyWall, askyCPU = append(askyWall, wall), append(askyCPU, cpu)
			wall, cpu = minRun()
			minWall, minCPU = append(minWall, wall), append(minCPU, cpu)
		}
		b.StopTimer()
		ma, mm := median(askyWall), median(minWall)
		b.ReportMetric(ms(ma), "asky-ms")
		b.ReportMetric(ms(mm), "minimal-ms")
		b.ReportMetric(float64(ma)/float64(mm), "ratio")
		ca, cm := median(askyCPU), median(minCPU)
		b.ReportMetric(ms(ca), "asky-cpu-ms")
		b.ReportMetric(ms(cm), "minimal-cpu-ms")
		b.ReportMetric(float64(ca)/float64(cm), "cpu-ratio")
	})

	// help is `asky --help`, which loads neither config nor the database:
	// the floor of every invocation.
	b.Run("help", func(b *testing.B) {
		var times []time.Duration
		for range max(b.N, minSamples) {
			w, _ := runOnce(b, c.asky, "--help")
			times = append(times, w)
		}
		b.ReportMetric(ms(median(times)), "median-ms")
	})
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func TestMedian(t *testing.T) {
	if got := median([]time.Duration{5, 1, 3}); got != 3 {
		t.Fatalf("median = %v", got)
	}
}
