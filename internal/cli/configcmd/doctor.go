package configcmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/search"
	"github.com/askygo/asky/internal/store"
)

// DoctorOptions are the inputs of `config doctor`.
type DoctorOptions struct {
	IO         *iostreams.IOStreams
	Config     func() (*config.Config, error)
	Store      func() (*store.Store, error)
	HTTPClient func() *http.Client
	Env        config.Env
	// Timeout bounds each network check.
	Timeout time.Duration
	JSON    bool
}

// NewCmdDoctor builds `config doctor`; runF replaces the run function in
// tests.
func NewCmdDoctor(f *cmdutil.Factory, runF func(context.Context, *DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{IO: f.IO, Config: f.Config, Store: f.Store, HTTPClient: f.HTTPClient, Env: f.Env(), Timeout: 2 * time.Second}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check configuration, keys, endpoints and the database",
		Long: heredoc.Doc(`
			Check that asky can work, one line per check:

			  ✓ ok   ✗ failed (exit status 1)   ! warning   - skipped

			Checks: the config files parse (and their warnings), the default
			model resolves, its API key is present (the source is shown, never
			the key), its endpoint answers GET /models with that key, the
			database opens and passes PRAGMA quick_check, and the web search
			provider has what it needs (a SearXNG instance is asked one search).
			Network checks time out after 2 seconds.
		`),
		Example: heredoc.Doc(`
			$ asky config doctor
			$ ASKY_MODEL=sonnet asky config doctor
			$ asky config doctor --json | jq '.checks[] | select(.status == "fail")'
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return doctorRun(c.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the checks as JSON")
	return cmd
}

type checkStatus string

const (
	statusOK   checkStatus = "ok"
	statusFail checkStatus = "fail"
	statusWarn checkStatus = "warn"
	statusSkip checkStatus = "skip"
)

type check struct {
	Name   string      `json:"name"`
	Status checkStatus `json:"status"`
	Detail string      `json:"detail"`
	Hint   string      `json:"hint,omitempty"`
}

type doctorReport struct {
	OK     bool    `json:"ok"`
	Checks []check `json:"checks"`
}

func (r *doctorReport) add(name string, st checkStatus, hint, format string, args ...any) {
	r.Checks = append(r.Checks, check{Name: name, Status: st, Detail: fmt.Sprintf(format, args...), Hint: hint})
}

func doctorRun(ctx context.Context, opts *DoctorOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	rep := &doctorReport{}
	if cfg := checkConfig(rep, opts); cfg != nil {
		checkModel(ctx, rep, opts, cfg)
		checkPrices(rep, cfg)
		checkDatabase(ctx, rep, opts, cfg)
		checkSearch(ctx, rep, opts, cfg)
		checkDeep(ctx, rep, opts, cfg)
		checkCustomTools(rep, opts, cfg)
		checkDeliveryConfig(rep, opts, cfg)
		checkDaemonConfig(ctx, rep, opts, cfg)
	}
	rep.OK = !slices.ContainsFunc(rep.Checks, func(c check) bool { return c.Status == statusFail })
	if opts.JSON {
		if err := cmdutil.WriteJSON(opts.IO.Out, rep); err != nil {
			return err
		}
	} else {
		printChecks(opts.IO, rep)
	}
	if !rep.OK {
		return cmdutil.ErrSilent
	}
	return nil
}

func printChecks(io *iostreams.IOStreams, rep *doctorReport) {
	marks := map[checkStatus][2]string{
		statusOK: {"✓", "\x1b[32m"}, statusFail: {"✗", "\x1b[31m"}, statusWarn: {"!", "\x1b[33m"}, statusSkip: {"-", "\x1b[2m"},
	}
	for _, c := range rep.Checks {
		m := marks[c.Status]
		mark := m[0]
		if io.ColorEnabled() {
			mark = m[1] + mark + "\x1b[0m"
		}
		fmt.Fprintf(io.Out, "%s %-9s %s\n", mark, c.Name, c.Detail)
		if c.Hint != "" {
			fmt.Fprintf(io.Out, "  %-9s hint: %s\n", "", c.Hint)
		}
	}
}

func checkConfig(rep *doctorReport, opts *DoctorOptions) *config.Config {
	cfg, err := opts.Config()
	if err != nil {
		hint := "fix the file and run `asky config doctor` again"
		var h cmdutil.Hinter
		if errors.As(err, &h) {
			hint = h.Hint()
		}
		rep.add("config", statusFail, hint, "%s", err)
		return nil
	}
	switch len(cfg.Files) {
	case 0:
		rep.add("config", statusOK, "", "no config files in %s (built-in defaults)", cfg.Paths.ConfigDir)
	default:
		names := make([]string, len(cfg.Files))
		for i, f := range cfg.Files {
			names[i] = filepath.Base(f)
		}
		rep.add("config", statusOK, "", "%d file(s) parsed in %s: %s", len(cfg.Files), cfg.Paths.ConfigDir, strings.Join(names, ", "))
	}
	for _, d := range cfg.Diagnostics {
		rep.add("config", statusWarn, "", "%s", d)
	}
	return cfg
}

func checkModel(ctx context.Context, rep *doctorReport, opts *DoctorOptions, cfg *config.Config) {
	r, err := cfg.LookupModel(ctx, "", opts.Env)
	var ua *config.UnknownAliasError
	switch {
	case errors.Is(err, config.ErrNoModel):
		rep.add("model", statusFail, "add one with `asky config model add`, export OPENAI_API_KEY / ANTHROPIC_API_KEY / OPENROUTER_API_KEY, or start Ollama / LM Studio", "no model configured and none detected")
		rep.add("api key", statusSkip, "", "no model")
		rep.add("endpoint", statusSkip, "", "no model")
		return
	case errors.As(err, &ua):
		rep.add("model", statusFail, "fix general.default_model / $ASKY_MODEL, or add the alias with `asky config model add --alias "+ua.Alias+"`", "%s", err)
		return
	case err != nil:
		rep.add("model", statusFail, "fix the model's [models.*] / [api.*] tables (`asky config model edit`)", "%s", err)
		return
	}
	if r.Detected {
		rep.add("model", statusOK, "save it (or another) with `asky config model add`", "%s (%s at %s), detected: no model is configured", r.ID, r.APIName, r.BaseURL)
	} else {
		rep.add("model", statusOK, "", "%s → %s via api %q (%s, %s)", r.Alias, r.ID, r.APIName, r.Type, r.BaseURL)
	}
	if s := cfg.General.SummarizationModel; s != "" {
		if _, ok := cfg.Models[s]; !ok {
			rep.add("model", statusWarn, "", "general.summarization_model %q is not a configured alias (have: %s)", s, aliasList(cfg))
		}
	}
	if err := cfg.ResolveKey(ctx, r, opts.Env); err != nil {
		var mk *config.MissingKeyError
		hint := ""
		if errors.As(err, &mk) {
			hint = mk.Hint()
		}
		rep.add("api key", statusFail, hint, "%s", err)
		rep.add("endpoint", statusSkip, "", "no API key")
		return
	}
	switch {
	case r.KeySource == "none" && isLocal(r.BaseURL):
		rep.add("api key", statusOK, "", "none needed for a local server")
	case r.KeySource == "none":
		rep.add("api key", statusWarn, "set api_key_env or api_key_cmd in [api."+r.APIName+"]", "none configured for %s; requests are sent without authentication", r.BaseURL)
	case r.KeySource == "api_key in config":
		rep.add("api key", statusWarn, "move it to an environment variable (api_key_env) or a password manager (api_key_cmd)", "literal api_key in the config file")
	default:
		rep.add("api key", statusOK, "", "present (from %s)", r.KeySource)
	}
	checkEndpoint(ctx, rep, opts, r)
}

func isLocal(base string) bool {
	for _, h := range []string{"://localhost", "://127.", "://[::1]", "://0.0.0.0"} {
		if strings.Contains(base, h) {
			return true
		}
	}
	return false
}

func checkEndpoint(ctx context.Context, rep *doctorReport, opts *DoctorOptions, r *config.ResolvedModel) {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	start := time.Now()
	ids, err := config.FetchModels(ctx, opts.HTTPClient(), config.Endpoint{Type: r.Type, BaseURL: r.BaseURL, Key: r.Key, Headers: r.Headers})
	took := time.Since(start).Round(time.Millisecond)
	var se *config.StatusError
	switch {
	case err == nil:
		rep.add("endpoint", statusOK, "", "%s reachable (%d models listed, %s)", r.BaseURL, len(ids), took)
		if len(ids) > 0 && !slices.Contains(ids, r.ID) {
			rep.add("endpoint", statusWarn, "check the model id with `asky config model edit "+r.Alias+"`", "model id %q is not in the server's list", r.ID)
		}
	case errors.As(err, &se) && (se.Status == http.StatusUnauthorized || se.Status == http.StatusForbidden):
		rep.add("endpoint", statusFail, "the key from "+r.KeySource+" was rejected; check it", "%s answered %d %s", r.BaseURL, se.Status, http.StatusText(se.Status))
	case errors.As(err, &se) && se.Status < 500:
		// Reachable; some servers simply do not implement /models.
		hint := ""
		if se.Status == http.StatusNotFound && !versioned(r.BaseURL) {
			// The most common slip: the API root without its /v1.
			hint = "OpenAI-compatible servers usually serve under /v1: try base_url = \"" + r.BaseURL + "/v1\""
		}
		rep.add("endpoint", statusWarn, hint, "%s reachable, but GET /models answered %d %s", r.BaseURL, se.Status, http.StatusText(se.Status))
	case errors.As(err, &se):
		rep.add("endpoint", statusFail, "the server is failing; retry later", "%s answered %d %s", r.BaseURL, se.Status, http.StatusText(se.Status))
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		rep.add("endpoint", statusFail, "is the server up and the base_url right?", "%s did not answer within %s", r.BaseURL, opts.Timeout)
	default:
		rep.add("endpoint", statusFail, "is the server running and the base_url right?", "%s unreachable: %s", r.BaseURL, netReason(err))
	}
}

// versioned reports whether a base URL's path names an API version
// (/v1, /v1beta/openai, /api/paas/v4, …).
func versioned(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return true
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if len(seg) > 1 && seg[0] == 'v' && seg[1] >= '0' && seg[1] <= '9' {
			return true
		}
	}
	return false
}

// netReason shortens a transport error to its cause ("connection refused",
// "no such host") without repeating the URL.
func netReason(err error) string {
	s := err.Error()
	for _, cause := range []string{"connection refused", "no such host", "network is unreachable", "certificate", "connection reset", "malformed"} {
		if i := strings.Index(s, cause); i >= 0 {
			return s[i:]
		}
	}
	return s
}

func checkDatabase(ctx context.Context, rep *doctorReport, opts *DoctorOptions, cfg *config.Config) {
	db := cfg.Paths.DB
	if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
		// Doctor does not create it: it only looks.
		rep.add("database", statusOK, "", "%s does not exist yet; it is created on first use", db)
		return
	}
	st, err := opts.Store()
	if err != nil {
		hint := ""
		var h cmdutil.Hinter
		if errors.As(err, &h) {
			hint = h.Hint()
		}
		rep.add("database", statusFail, hint, "%s", err)
		return
	}
	res, err := st.IntegrityCheck(ctx)
	switch {
	case err != nil:
		rep.add("database", statusFail, "", "%s: quick_check failed: %s", db, err)
	case res != "ok":
		first, _, _ := strings.Cut(res, "\n")
		rep.add("database", statusFail, fmt.Sprintf("back it up, then try `sqlite3 %s .recover`", db), "%s: quick_check: %s", db, first)
	default:
		rep.add("database", statusOK, "", "%s (quick_check ok)", db)
	}
}

func checkSearch(ctx context.Context, rep *doctorReport, opts *DoctorOptions, cfg *config.Config) {
	g := cfg.General
	keyed := func(name, env, url string) {
		switch {
		case env == "":
			rep.add("search", statusFail, "set general."+name+"_api_key_env", "%s selected but general.%s_api_key_env is empty", name, name)
		case opts.Env.Getenv(env) == "":
			rep.add("search", statusFail, "export "+env+", or pick another provider with `asky config set general.search_provider duckduckgo`", "%s selected but %s is not set", name, env)
		default:
			rep.add("search", statusOK, "", "%s (%s; key from env %s)", name, url, env)
		}
	}
	switch strings.ToLower(strings.TrimSpace(g.SearchProvider)) { // the config loader refused any other value
	case "", "duckduckgo", "ddg":
		rep.add("search", statusOK, "", "duckduckgo (keyless default)")
	case "searxng":
		if g.SearxngURL == "" {
			rep.add("search", statusFail, "set general.searxng_url", "searxng selected but general.searxng_url is empty")
		} else {
			checkSearxng(ctx, rep, opts, cfg)
		}
	case "serper":
		keyed("serper", g.SerperAPIKeyEnv, g.SerperAPIURL)
	case "tavily":
		keyed("tavily", g.TavilyAPIKeyEnv, g.TavilyAPIURL)
	case "brave":
		keyed("brave", g.BraveAPIKeyEnv, g.BraveAPIURL)
	}
}

// checkSearxng asks the SearXNG instance one search: it is the user's own
// server, so whether it is up (and serves JSON) is worth the request; the
// keyed providers are not queried, as a search there costs quota.
func checkSearxng(ctx context.Context, rep *doctorReport, opts *DoctorOptions, cfg *config.Config) {
	url := cfg.General.SearxngURL
	p, err := search.New(cfg, opts.Env.Getenv, opts.HTTPClient())
	if err == nil {
		ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
		t0 := time.Now()
		if _, err = p.Search(ctx, "asky", 1); err == nil {
			rep.add("search", statusOK, "", "searxng at %s answered (%s)", url, time.Since(t0).Round(time.Millisecond))
			return
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("did not answer within %s", opts.Timeout)
		}
	}
	rep.add("search", statusFail, "is SearXNG running there? fix general.searxng_url, or pick another provider with `asky config set general.search_provider duckduckgo`",
		"searxng at %s: %s", url, strings.TrimPrefix(err.Error(), "search provider searxng: "))
}
