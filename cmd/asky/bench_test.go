package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/askygo/asky/internal/llm/llmtest"
)

// BenchmarkLeanVsCurl compares a one-shot `asky -L` against curl sending an
// equivalent streamed request to the same local fake server. Goal: ≤ 2×.
func BenchmarkLeanVsCurl(b *testing.B) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		b.Skip("curl not installed")
	}
	dir := b.TempDir()
	bin := filepath.Join(dir, "asky")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	srv := llmtest.New()
	defer srv.Close()
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o700)
	cfg := "[general]\ndefault_model = \"fake\"\n[api.fake]\nbase_url = \"" + srv.URL() + "\"\n[models.fake]\napi = \"fake\"\nid = \"fake-model\"\n"
	os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600)
	env := append(os.Environ(), "ASKY_HOME="+home, "ASKY_NO_DETECT=1")
	body := `{"model":"fake-model","stream":true,"messages":[{"role":"system","content":"You are concise."},{"role":"user","content":"what is 2+2"}]}`

	run := func(cmd *exec.Cmd) time.Duration {
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
		return time.Since(t0)
	}
	const n = 15
	var askyT, curlT []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		askyT, curlT = askyT[:0], curlT[:0]
		for j := 0; j < n; j++ {
			c := exec.Command(bin, "-L", "what is 2+2")
			c.Env = env
			askyT = append(askyT, run(c))
			curlT = append(curlT, run(exec.Command(curl, "-sS", "-N", "-X", "POST", srv.URL()+"/chat/completions",
				"-H", "Content-Type: application/json", "-d", body)))
		}
	}
	a, c := median(askyT), median(curlT)
	b.ReportMetric(float64(a.Microseconds())/1000, "asky-ms")
	b.ReportMetric(float64(c.Microseconds())/1000, "curl-ms")
	b.ReportMetric(float64(a)/float64(c), "ratio")
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
