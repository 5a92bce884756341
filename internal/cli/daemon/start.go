package daemon

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/iostreams"
)

// StartOptions are the inputs of `daemon start`.
type StartOptions struct {
	IO      *iostreams.IOStreams
	Config  func() (*config.Config, error)
	Factory *cmdutil.Factory
	// Timeout bounds the wait for the API to answer.
	Timeout time.Duration
}

// NewCmdStart builds `daemon start`; runF replaces the run function in
// tests.
func NewCmdStart(f *cmdutil.Factory, runF func(context.Context, *StartOptions) error) *cobra.Command {
	opts := &StartOptions{IO: f.IO, Config: f.Config, Factory: f, Timeout: 15 * time.Second}
	return &cobra.Command{
		Use:   "start",
		Short: "Start the daemon in the background",
		Long: heredoc.Doc(`
			Start "asky daemon run" detached from this terminal, wait until its API
			answers, and print its pid, URL and log file (daemon.log in the state
			directory).
		`),
		Example: heredoc.Doc(`
			$ asky daemon start
			$ asky daemon status --json | jq -r .log
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return startRun(c.Context(), opts)
		},
	}
}

func startRun(ctx context.Context, opts *StartOptions) error {
	cfg, err := opts.Config()
	if err != nil {
		return err
	}
	dc, err := daemonConfig(cfg)
	if err != nil {
		return err
	}
	// Refuse here, with the real hint, what `daemon run` would refuse (a
	// token_cmd is left to the daemon: it may prompt, and must run once).
	if dc.HTTP.Enabled && dc.HTTP.TokenCmd == "" && opts.Factory != nil {
		if _, err := requireToken(ctx, opts.Factory, dc.HTTP); err != nil {
			return err
		}
	}
	pid := pidPath(cfg)
	if info, running, err := daemon.Status(pid); err != nil {
		return err
	} else if running {
		return lockError(&daemon.RunningError{Info: info})
	}
	logFile := logPath(cfg)
	if err := os.MkdirAll(filepath.Dir(logFile), 0o700); err != nil {
		return err
	}
	lf, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer lf.Close()
	logStart, _ := lf.Seek(0, 2)
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	// Not CommandContext: the daemon must outlive this command.
	cmd := exec.Command(exe, "daemon", "run")
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start daemon: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	deadline := time.Now().Add(opts.Timeout)
	client := &http.Client{Timeout: time.Second}
	for {
		select {
		case <-exited:
			msg, hint := logTail(logFile, logStart)
			if hint != "" {
				hint += "; "
			}
			return cmdutil.Errorf(hint+"see "+logFile, "the daemon exited at start: %s", msg)
		case <-ctx.Done():
			stopChild(cmd.Process)
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		info, running, _ := daemon.Status(pid)
		if running && info.PID == cmd.Process.Pid && !info.Started.IsZero() && (info.URL == "" || healthy(ctx, client, info.URL)) {
			fmt.Fprintf(opts.IO.Out, "asky daemon started (pid %d)\n", info.PID)
			if info.URL != "" {
				fmt.Fprintf(opts.IO.Out, "url: %s\n", info.URL)
			}
			fmt.Fprintf(opts.IO.Out, "serving: %s\nlog: %s\n", strings.Join(info.Transports, ", "), logFile)
			return nil
		}
		if time.Now().After(deadline) {
			stopChild(cmd.Process)
			return cmdutil.Errorf("see "+logFile, "the daemon did not answer within %s", opts.Timeout)
		}
	}
}

// healthy reports whether GET /v1/health answers 200.
func healthy(ctx context.Context, client *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/v1/health", nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// logTail returns the last error line the daemon wrote since from, which
// is why it exited, and the hint line after it (the next step, e.g. for
// a port in use), if any.
func logTail(path string, from int64) (msg, hint string) {
	b, err := os.ReadFile(path)
	if err != nil || int64(len(b)) < from {
		return "no output", ""
	}
	lines := strings.Split(strings.TrimSpace(string(b[from:])), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "error: ") {
			if i+1 < len(lines) {
				hint = strings.TrimPrefix(lines[i+1], "hint: ")
				if hint == lines[i+1] {
					hint = ""
				}
			}
			return strings.TrimPrefix(lines[i], "error: "), hint
		}
	}
	if len(lines) > 0 && lines[len(lines)-1] != "" {
		return lines[len(lines)-1], ""
	}
	return "no output", ""
}
