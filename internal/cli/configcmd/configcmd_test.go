package configcmd

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/store"
)

// testEnv is a throwaway ASKY_HOME with a hand-built factory.
type testEnv struct {
	dir             string
	vars            map[string]string
	f               *cmdutil.Factory
	in, out, errOut *bytes.Buffer
	// requests counts HTTP requests made through the factory's client.
	requests int
}

// noNetwork fails every request that is not to 127.0.0.1, so a test can
// never reach the internet even when a detected model points there.
type noNetwork struct{ env *testEnv }

func (n noNetwork) RoundTrip(r *http.Request) (*http.Response, error) {
	n.env.requests++
	if r.URL.Hostname() != "127.0.0.1" {
		return nil, errors.New("dial tcp: lookup " + r.URL.Hostname() + ": no such host (test: network disabled)")
	}
	return http.DefaultTransport.RoundTrip(r)
}

func newEnv(t *testing.T, files map[string]string, vars ...string) *testEnv {
	t.Helper()
	e := &testEnv{dir: t.TempDir()}
	e.vars = map[string]string{"ASKY_HOME": e.dir, "HOME": e.dir}
	for i := 0; i+1 < len(vars); i += 2 {
		e.vars[vars[i]] = vars[i+1]
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(e.dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	io, in, out, errOut := iostreams.Test()
	e.in, e.out, e.errOut = in, out, errOut
	getenv := func(k string) string { return e.vars[k] }
	client := &http.Client{Transport: noNetwork{e}}
	e.f = &cmdutil.Factory{
		IO: io, Getenv: getenv, Now: time.Now,
		HTTPClient: func() *http.Client { return client },
		Probe:      func(context.Context, string) bool { return false },
		Config:     func() (*config.Config, error) { return config.Load(getenv) },
	}
	var st *store.Store
	e.f.Store = func() (*store.Store, error) {
		if st != nil {
			return st, nil
		}
		cfg, err := e.f.Config()
		if err != nil {
			return nil, err
		}
		s, err := store.Open(context.Background(), cfg.Paths.DB)
		if err == nil {
			st = s
			t.Cleanup(func() { s.Close() })
		}
		return s, err
	}
	return e
}

// run executes `config ARGS…` and returns the command's error.
func (e *testEnv) run(args ...string) error {
	e.out.Reset()
	e.errOut.Reset()
	cmd := NewCmdConfig(e.f)
	cmd.SetArgs(args)
	cmd.SetIn(e.f.IO.In)
	cmd.SetOut(e.f.IO.ErrOut)
	cmd.SetErr(e.f.IO.ErrOut)
	cmd.SilenceErrors = true
	cmd.SilenceUsage = true
	return cmd.ExecuteContext(context.Background())
}

func (e *testEnv) read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// exitCode mirrors cli.classify for the error kinds these commands return.
func exitCode(err error) int {
	var ce *cmdutil.Error
	var fe *cmdutil.FlagError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ce):
		return ce.Code
	case errors.As(err, &fe):
		return cmdutil.ExitUsage
	}
	return 1
}

func wantContains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, got)
		}
	}
}

func wantNot(t *testing.T, what, got string, nots ...string) {
	t.Helper()
	for _, w := range nots {
		if strings.Contains(got, w) {
			t.Errorf("%s contains %q:\n%s", what, w, got)
		}
	}
}
