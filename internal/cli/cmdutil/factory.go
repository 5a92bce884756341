package cmdutil

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/render"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/termbg"
)

// Factory builds dependencies lazily: --help, completion and version never
// parse config or open the database.
type Factory struct {
	IO      *iostreams.IOStreams
	Getenv  func(string) string
	Now     func() time.Time
	Getppid func() int
	// HTTPClient is the plain client for configured endpoints (LLM, search
	// provider, embeddings). URLs chosen by a model never use it.
	HTTPClient func() *http.Client
	// Probe checks for a local OpenAI-compatible server (model detection).
	Probe func(ctx context.Context, baseURL string) bool

	Config func() (*config.Config, error)
	Store  func() (*store.Store, error)
	// DarkBackground asks the terminal whether its background is dark
	// (nil: assume dark). Only called for [general] markdown_style = auto
	// when output is colored.
	DarkBackground func() bool

	// Verbosity is set by the root command's -v count.
	Verbosity int

	closers []func()

	styleOnce sync.Once
	style     string
}

// MarkdownStyle is the glamour style for rendered markdown, chosen once
// per run from color, $GLAMOUR_STYLE, [general] markdown_style and the
// terminal background (see render.ChooseStyle).
func (f *Factory) MarkdownStyle() string {
	f.styleOnce.Do(func() {
		color := f.IO != nil && f.IO.ColorEnabled()
		getenv := f.Getenv
		if getenv == nil {
			getenv = func(string) string { return "" }
		}
		configured := ""
		if color && f.Config != nil {
			if cfg, err := f.Config(); err == nil {
				configured = cfg.General.MarkdownStyle
			}
		}
		f.style = render.ChooseStyle(color, getenv, configured, f.DarkBackground)
	})
	return f.style
}

// WithIO returns a factory that shares f's config, store and clients but
// writes to ios: the daemon runs a command for a chat into a buffer. The
// copy owns nothing to close; f keeps the database.
func (f *Factory) WithIO(ios *iostreams.IOStreams) *Factory {
	return &Factory{IO: ios, Getenv: f.Getenv, Now: f.Now, Getppid: f.Getppid, HTTPClient: f.HTTPClient,
		Probe: f.Probe, Config: f.Config, Store: f.Store, DarkBackground: f.DarkBackground, Verbosity: f.Verbosity}
}

// Close releases what the factory opened (the database).
func (f *Factory) Close() {
	for i := len(f.closers) - 1; i >= 0; i-- {
		f.closers[i]()
	}
	f.closers = nil
}

// New returns the production factory.
func New(io *iostreams.IOStreams) *Factory {
	f := &Factory{IO: io, Getenv: os.Getenv, Now: time.Now, Getppid: os.Getppid, Probe: config.SystemProbe}
	f.HTTPClient = sync.OnceValue(func() *http.Client {
		return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	})
	f.Config = sync.OnceValues(func() (*config.Config, error) { return config.Load(f.Getenv) })
	f.DarkBackground = func() bool {
		if !io.IsStdoutTTY() {
			return true
		}
		return termbg.Dark(os.Stdout, f.Getenv)
	}
	f.Store = sync.OnceValues(func() (*store.Store, error) {
		cfg, err := f.Config()
		if err != nil {
			return nil, err
		}
		ctx := store.WithNotice(context.Background(), func(msg string) { fmt.Fprintln(io.ErrOut, "note: "+msg) })
		st, err := store.Open(ctx, cfg.Paths.DB)
		if err == nil {
			f.closers = append(f.closers, func() { st.Close() })
		}
		return st, err
	})
	return f
}

// Env returns the model-resolution environment. ASKY_NO_DETECT=1 turns off
// probing for local Ollama / LM Studio servers.
func (f *Factory) Env() config.Env {
	probe := f.Probe
	if f.Getenv("ASKY_NO_DETECT") != "" {
		probe = nil
	}
	return config.Env{Getenv: f.Getenv, Probe: probe}
}
