// Package cli is asky's command tree. It only parses flags, builds
// dependencies through the Factory and calls into the domain packages;
// nothing imports it.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/llm"
	"github.com/askygo/asky/internal/research"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn/compose"
	"github.com/askygo/asky/internal/usage"
)

// Main runs asky with the process arguments and returns the exit code.
func Main() int {
	return Run(os.Args[1:], cmdutil.New(iostreams.System()))
}

// Run executes the command tree with args and the given factory; tests and
// testscript call it directly.
func Run(args []string, f *cmdutil.Factory) int {
	// SIGHUP (the terminal closed) ends a turn like Ctrl-C and SIGTERM:
	// it is saved as interrupted instead of dying mid-write.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	defer f.Close()
	// Embedding calls of any command (corpus ingest, memory add) are
	// recorded in the usage ledger; turns record with their session.
	ctx = llm.WithMeter(ctx, llm.MeterFunc(func(ctx context.Context, c llm.Call) {
		if st, err := f.Store(); err == nil {
			e := usage.Event(nil, c)
			_ = st.RecordUsage(ctx, &e)
		}
	}))

	root := NewCmdRoot(f)
	root.SetArgs(TranslateLegacyArgs(args))
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return cmdutil.ExitOK
	}
	var fe *cmdutil.FlagError
	if errors.As(err, &fe) && fe.Hint == "" && cmd != nil {
		// Every usage error gets a next step: a flag value a command
		// refused names the help page listing the accepted values.
		fe.Hint = "see `" + cmd.CommandPath() + " --help`"
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		fmt.Fprintln(f.IO.ErrOut, "\ninterrupted")
		return cmdutil.ExitInterrupted
	}
	if store.IsSQLite(err) {
		// A database error a command passed on without naming the file.
		if cfg, cerr := f.Config(); cerr == nil {
			err = store.Classify(cfg.Paths.DB, err)
		}
	}
	return printError(f.IO.ErrOut, err)
}

// printError writes `error: …` and `hint: …` and returns the exit code.
func printError(w io.Writer, err error) int {
	if errors.Is(err, cmdutil.ErrSilent) {
		return cmdutil.ExitError
	}
	code, hint := classify(err)
	var many interface{ Messages() []string }
	if errors.As(err, &many) {
		// Several config problems: one line each, so all get fixed at once.
		for _, m := range many.Messages() {
			fmt.Fprintf(w, "error: %s\n", firstLine(m))
		}
	} else {
		fmt.Fprintf(w, "error: %s\n", firstLine(err.Error()))
	}
	if hint != "" {
		fmt.Fprintf(w, "hint: %s\n", hint)
	}
	return code
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// classify maps typed errors from every layer to an exit code and a hint.
// It is the single place where exit codes are decided.
func classify(err error) (int, string) {
	var (
		ce   *cmdutil.Error
		fe   *cmdutil.FlagError
		ua   *config.UnknownAliasError
		mk   *config.MissingKeyError
		pe   *config.ParseError
		le   *llm.Error
		emb  *research.EmbedderError
		cu   *compose.UsageError
		hint cmdutil.Hinter
	)
	switch {
	case errors.As(err, &ce):
		return ce.Code, ce.Hint
	case errors.As(err, &fe):
		return cmdutil.ExitUsage, fe.Hint
	case errors.As(err, &cu):
		return cmdutil.ExitUsage, cu.Hint()
	case errors.Is(err, config.ErrNoModel):
		return cmdutil.ExitNoModel, "configure a model with `asky config model add`, or export OPENAI_API_KEY / ANTHROPIC_API_KEY / OPENROUTER_API_KEY, or start Ollama"
	case errors.As(err, &ua) && ua.From == "$ASKY_MODEL":
		// The default names a model that is not configured: nothing
		// was mistyped on this command line.
		return cmdutil.ExitNoModel, "unset ASKY_MODEL or set it to a configured alias, or add " + ua.Alias + " with `asky config model add --alias " + ua.Alias + "`"
	case errors.As(err, &ua) && ua.From != "":
		return cmdutil.ExitNoModel, "set a configured alias with `asky config set general.default_model ALIAS`, or add " + ua.Alias + " with `asky config model add --alias " + ua.Alias + "`"
	case errors.As(err, &ua):
		return cmdutil.ExitUsage, "pick one of the configured aliases, or add one with `asky config model add`"
	case errors.As(err, &mk):
		return cmdutil.ExitNoModel, mk.Hint() + "; check with `asky config doctor`"
	case errors.As(err, &pe):
		return cmdutil.ExitError, "fix the file and run `asky config doctor`"
	case errors.As(err, &emb):
		// Before the llm case: an embedder failure wraps a provider error,
		// but the fix is in [research.embedding], not the chat model.
		return cmdutil.ExitError, emb.Hint()
	case errors.As(err, &le):
		return llmExit(le)
	case errors.As(err, &hint):
		return cmdutil.ExitError, hint.Hint()
	}
	var nse *store.NewerSchemaError
	if errors.As(err, &nse) {
		return cmdutil.ExitError, "install a newer asky"
	}
	return cmdutil.ExitError, ""
}

func llmExit(e *llm.Error) (int, string) {
	switch e.Kind {
	case llm.KindAuth:
		return cmdutil.ExitError, "check the API key for this provider with `asky config doctor`"
	case llm.KindUnreachable:
		return cmdutil.ExitNoModel, "is the server running and the base_url right? check with `asky config doctor`"
	case llm.KindServer:
		return cmdutil.ExitError, "the provider keeps failing; retry later, use another model with -m, or raise [limits] max_retries / retry_budget"
	case llm.KindRateLimit:
		return cmdutil.ExitError, "wait a moment and retry, or use another model with -m"
	case llm.KindContextOverflow:
		return cmdutil.ExitError, "try a larger-context model (-m), a narrower question, or less piped input"
	case llm.KindTimeout:
		return cmdutil.ExitError, "raise [general] request_timeout / stream_idle_timeout, or retry"
	case llm.KindBadRequest:
		if e.Status == 404 {
			return cmdutil.ExitError, "check base_url (OpenAI-compatible servers usually end in /v1) and the model id; `asky config doctor` checks both"
		}
	case llm.KindTruncated:
		return cmdutil.ExitError, "the connection dropped mid-answer; retry (the partial answer is in `asky history show ~1`)"
	}
	return cmdutil.ExitError, "run with -v for details"
}
