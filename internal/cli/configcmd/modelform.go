package configcmd

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
)

// modelFlags are the values `model add` and `model edit` accept. The
// *Set fields record which flags were given, so that edit changes only
// those.
type modelFlags struct {
	Alias       string
	API         string
	Type        string
	BaseURL     string
	ID          string
	ContextSize int
	KeyEnv      string
	KeyCmd      string
	MaxTurns    int
	PriceIn     float64
	PriceOut    float64
	Default     bool

	set map[string]bool
	// help is the command path whose --help a usage error points at.
	help string
}

func (m *modelFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&m.Alias, "alias", "", "short `name` used with -m")
	fl.StringVar(&m.API, "api", "", "[api.NAME] endpoint `name` (openai, anthropic, openrouter, gemini, ollama and lmstudio are built in)")
	fl.StringVar(&m.Type, "type", "", "wire format of a new endpoint: openai or anthropic")
	fl.StringVar(&m.BaseURL, "base-url", "", "API root `url` (e.g. http://127.0.0.1:11434/v1); add makes a new [api.NAME] rather than repoint one in use, edit updates it")
	fl.StringVar(&m.ID, "id", "", "model `id` the server knows (e.g. gpt-4o-mini)")
	fl.IntVar(&m.ContextSize, "context-size", 0, "context window in `tokens`")
	fl.StringVar(&m.KeyEnv, "key-env", "", "environment `variable` holding the endpoint's API key")
	fl.StringVar(&m.KeyCmd, "key-cmd", "", "shell `command` printing the API key (e.g. \"pass show openai\")")
	fl.IntVar(&m.MaxTurns, "max-turns", 0, "tool-using turns per question for this model")
	fl.Float64Var(&m.PriceIn, "price-in", 0, "USD per million input tokens (for cost in history)")
	fl.Float64Var(&m.PriceOut, "price-out", 0, "USD per million output tokens")
	fl.BoolVar(&m.Default, "default", false, "make this the default model (general.default_model)")
}

// capture records which flags were given on the command line.
func (m *modelFlags) capture(cmd *cobra.Command) {
	m.set = map[string]bool{}
	m.help = cmd.CommandPath()
	cmd.Flags().Visit(func(f *pflag.Flag) { m.set[f.Name] = true })
}

// usage is a usage error (exit 2) pointing at the command's help.
func (m *modelFlags) usage(format string, args ...any) error {
	return cmdutil.UsageError("see the flags with `"+m.help+" --help`", format, args...)
}

func (m *modelFlags) validate() error {
	if m.Type != "" && m.Type != "openai" && m.Type != "anthropic" {
		return m.usage("--type must be openai or anthropic, not %q", m.Type)
	}
	if m.ContextSize < 0 || m.MaxTurns < 0 || m.PriceIn < 0 || m.PriceOut < 0 {
		return m.usage("--context-size, --max-turns and prices cannot be negative")
	}
	if m.BaseURL != "" && !strings.HasPrefix(m.BaseURL, "http://") && !strings.HasPrefix(m.BaseURL, "https://") {
		return m.usage("--base-url must start with http:// or https://, got %q", m.BaseURL)
	}
	if strings.ContainsAny(m.Alias, " \t\n\"'") {
		return m.usage("--alias must be one word, got %q", m.Alias)
	}
	return nil
}

// changes turns the form into config changes: the [models.ALIAS] keys,
// the [api.NAME] keys when an endpoint is created or changed, and
// general.default_model with --default. all=true writes every model field
// (add); otherwise only the flags that were given (edit).
func (m *modelFlags) changes(cfg *config.Config, all bool) []config.Change {
	var out []config.Change
	if m.Default {
		// First, so that a new config.toml starts with [general].
		out = append(out, config.Change{Key: "general.default_model", Value: m.Alias})
	}
	model := func(key string, v any) {
		out = append(out, config.Change{Key: "models." + quoteSeg(m.Alias) + "." + key, Value: v})
	}
	given := func(flag string) bool { return all || m.set[flag] }
	if given("api") && m.API != "" {
		model("api", m.API)
	}
	if given("id") && m.ID != "" {
		model("id", m.ID)
	}
	if given("context-size") && (m.ContextSize > 0 || m.set["context-size"]) {
		model("context_size", int64(m.ContextSize))
	}
	if given("max-turns") && (m.MaxTurns > 0 || m.set["max-turns"]) {
		model("max_turns", int64(m.MaxTurns))
	}
	if m.set["price-in"] || all && m.PriceIn > 0 {
		model("price_in", m.PriceIn)
	}
	if m.set["price-out"] || all && m.PriceOut > 0 {
		model("price_out", m.PriceOut)
	}
	api := func(key string, v any) {
		out = append(out, config.Change{Key: "api." + quoteSeg(m.API) + "." + key, Value: v})
	}
	_, hasTable := cfg.API[m.API]
	touchesAPI := m.BaseURL != "" || m.Type != "" || m.KeyEnv != "" || m.KeyCmd != ""
	if touchesAPI && !hasTable {
		// A new table needs a base_url and type even when the flags name
		// only a key: take them from the built-in endpoint of that name.
		known := config.KnownAPIs()[m.API]
		if m.BaseURL == "" {
			m.BaseURL = known.BaseURL
		}
		if m.Type == "" {
			m.Type = known.Type
		}
		if m.Type == "" {
			m.Type = "openai"
		}
		if m.KeyEnv == "" && m.KeyCmd == "" {
			m.KeyEnv = known.APIKeyEnv
		}
	}
	if m.BaseURL != "" {
		api("base_url", m.BaseURL)
	}
	if m.Type != "" {
		api("type", m.Type)
	}
	if m.KeyEnv != "" {
		api("api_key_env", m.KeyEnv)
	}
	if m.KeyCmd != "" {
		api("api_key_cmd", m.KeyCmd)
	}
	return out
}

// quoteSeg quotes a key segment that is not a bare TOML key.
func quoteSeg(s string) string {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return strconv.Quote(s)
		}
	}
	return s
}

// apiNames lists the endpoints to offer: configured ones, then built-ins.
func apiNames(cfg *config.Config) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range sortedNames(cfg.API) {
		seen[n] = true
		out = append(out, n)
	}
	for _, n := range sortedNames(config.KnownAPIs()) {
		if !seen[n] {
			out = append(out, n)
		}
	}
	return out
}

func sortedNames(m map[string]config.API) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// serverModels asks the endpoint the form points at for its model ids, so
// the user can pick one instead of typing it. A failure only means no
// list; the caller says why, so a wrong URL or key shows before the end.
func serverModels(ctx context.Context, hc *http.Client, getenv func(string) string, cfg *config.Config, m *modelFlags) ([]string, error) {
	a, _ := cfg.APIFor(m.API)
	if m.BaseURL != "" {
		a.BaseURL = m.BaseURL
	}
	if m.Type != "" {
		a.Type = m.Type
	}
	if m.KeyEnv != "" {
		a.APIKeyEnv = m.KeyEnv
	}
	if a.BaseURL == "" {
		return nil, nil
	}
	ep := config.Endpoint{Type: a.Type, BaseURL: a.BaseURL, Key: a.APIKey, Headers: a.Headers}
	if ep.Key == "" && a.APIKeyEnv != "" {
		ep.Key = config.Secret(getenv(a.APIKeyEnv))
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return config.FetchModels(ctx, hc, ep)
}

// askEndpoint fills the endpoint fields interactively when the named api
// is neither configured nor built in.
func askEndpoint(p *prompter, cfg *config.Config, m *modelFlags) error {
	if _, ok := cfg.APIFor(m.API); ok && m.BaseURL == "" {
		return nil
	}
	var err error
	// A wrong answer is asked again at once, not refused after the
	// remaining questions.
	for m.BaseURL == "" {
		if m.BaseURL, err = p.ask("Base URL of the "+m.API+" API (e.g. http://127.0.0.1:11434/v1)", ""); err != nil {
			return err
		}
		if !strings.HasPrefix(m.BaseURL, "http://") && !strings.HasPrefix(m.BaseURL, "https://") {
			fmt.Fprintf(p.out, "  %q: give the URL with http:// or https://\n", m.BaseURL)
			m.BaseURL = ""
		}
	}
	for m.Type != "openai" && m.Type != "anthropic" {
		if m.Type != "" {
			fmt.Fprintf(p.out, "  %q: answer openai or anthropic\n", m.Type)
		}
		if m.Type, err = p.ask("Wire format: openai or anthropic", "openai"); err != nil {
			return err
		}
	}
	if m.KeyEnv == "" && m.KeyCmd == "" {
		if m.KeyEnv, err = p.ask("Environment variable holding the API key (blank: none)", ""); err != nil {
			return err
		}
	}
	return nil
}

// askModelID offers the server's models, or asks for an id.
func askModelID(ctx context.Context, p *prompter, opts *modelDeps, cfg *config.Config, m *modelFlags, def string) error {
	ids, err := serverModels(ctx, opts.HTTPClient(), opts.Getenv, cfg, m)
	if err != nil {
		fmt.Fprintf(p.out, "  (could not list the server's models: %v; check it later with `asky config doctor`)\n", err)
	}
	if len(ids) > 0 {
		shown := ids
		if len(shown) > 40 {
			fmt.Fprintf(p.out, "  (%d models; the first 40 are listed, any id can be typed)\n", len(ids))
			shown = shown[:40]
		}
		m.ID, err = p.choose("Model id", shown, def)
	} else {
		m.ID, err = p.ask("Model id (as the server names it)", def)
	}
	return err
}

func askInt(p *prompter, label string, def int) (int, error) {
	d := ""
	if def > 0 {
		d = strconv.Itoa(def)
	}
	for {
		s, err := p.ask(label, d)
		if err != nil {
			return 0, err
		}
		if s == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(s)
		if err == nil && n >= 0 {
			return n, nil
		}
		fmt.Fprintf(p.out, "  %q is not a whole number\n", s)
	}
}

// modelDeps are the dependencies both model verbs share.
type modelDeps struct {
	HTTPClient func() *http.Client
	Getenv     func(string) string
}
