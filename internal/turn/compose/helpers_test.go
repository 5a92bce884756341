package compose

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/store"
)

// testCore returns a core over the asky home dir home (config from its
// config.toml, a database in it) and the loaded config.
func testCore(t *testing.T, home string) (*Core, *config.Config) {
	t.Helper()
	getenv := func(k string) string {
		if k == "ASKY_HOME" {
			return home
		}
		return ""
	}
	cfg, err := config.Load(getenv)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), cfg.Paths.DB)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &Core{
		Config:     func() (*config.Config, error) { return cfg, nil },
		Store:      func() (*store.Store, error) { return st, nil },
		HTTPClient: func() *http.Client { return http.DefaultClient },
		Getenv:     getenv,
		Env:        func() config.Env { return config.Env{Getenv: getenv} },
		Now:        time.Now,
	}, cfg
}
