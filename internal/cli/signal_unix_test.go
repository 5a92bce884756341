//go:build unix

package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/llm/llmtest"
	"github.com/askygo/asky/internal/store"
)

// A closed terminal (SIGHUP) ends a turn like Ctrl-C: the question, saved
// as pending before the model was called, is finished as interrupted
// instead of the process dying with nothing recorded.
func TestSIGHUPSavesTheTurnAsInterrupted(t *testing.T) {
	srv := llmtest.New()
	defer srv.Close()
	srv.Enqueue(llmtest.Response{Text: "# Answer\n\nslow", StallAfter: 1, Stall: llmtest.Duration(time.Minute)})
	f, _, _, _ := testFactory(t, map[string]string{"FAKE_KEY": "k"})
	home := f.Getenv("ASKY_HOME")
	cfg := fmt.Sprintf("[general]\ndefault_model = \"fake\"\n\n[api.fake]\nbase_url = %q\napi_key_env = \"FAKE_KEY\"\n\n[models.fake]\napi = \"fake\"\nid = \"m\"\n", srv.URL())
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() { done <- Run([]string{"tell me a long story"}, f) }()
	deadline := time.Now().Add(10 * time.Second)
	for len(srv.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the model was never called")
		}
		time.Sleep(5 * time.Millisecond)
	}
	st, err := store.Open(context.Background(), filepath.Join(home, "asky.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	turns, err := st.ListTurns(context.Background(), 5)
	if err != nil || len(turns) != 1 || turns[0].Status != store.StatusPending || turns[0].Query != "tell me a long story" {
		t.Fatalf("during the model call: %+v %v (want the question saved as pending)", turns, err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != cmdutil.ExitInterrupted {
			t.Fatalf("exit %d, want %d", code, cmdutil.ExitInterrupted)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("SIGHUP did not end the turn")
	}
	turns, err = st.ListTurns(context.Background(), 5)
	if err != nil || len(turns) != 1 || turns[0].Status != store.StatusInterrupted {
		t.Fatalf("after SIGHUP: %+v %v", turns, err)
	}
}
