// Package job implements `asky job`: questions the daemon asks on a
// schedule and delivers while you are away.
package job

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/jobs"
	"github.com/askygo/asky/internal/turn/compose"
)

// NewCmdJob builds the job group.
func NewCmdJob(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "job <command>",
		Short: "Schedule questions the daemon answers while you are away",
		Long: heredoc.Doc(`
			A job is a question asked on a schedule by the daemon (asky daemon start),
			with the same core as asky query: each run is a history turn in the
			job's own session (job-ID), bounded by a time and a cost budget, and its
			answer can be written to a file or sent to a chat.

			Runs missed while the daemon was down run once when it starts, not once
			per missed slot; a run interrupted by a restart is retried once.
		`),
		Example: heredoc.Doc(`
			$ asky job add "what changed in Go this week?" --every 1w --notify file:~/go-news.md
			$ asky job add "new papers on retrieval" --cron "0 7 * * 1-5" --research web
			$ asky job list
			$ asky job show 1
			$ asky job run 1
		`),
	}
	cmd.AddCommand(NewCmdAdd(f, nil), NewCmdList(f, nil), NewCmdShow(f, nil), NewCmdRemove(f, nil), NewCmdRun(f, nil))
	return cmdutil.StrictGroup(cmd)
}

// NewScheduler is the scheduler over the factory's core and store: the
// daemon runs its loop, `job run` one job.
func NewScheduler(f *cmdutil.Factory, log func(string)) (*jobs.Scheduler, error) {
	st, err := f.Store()
	if err != nil {
		return nil, err
	}
	core := &compose.Core{Config: f.Config, Store: f.Store, HTTPClient: f.HTTPClient, Getenv: f.Getenv, Env: f.Env, Now: f.Now}
	return &jobs.Scheduler{Store: st, Asker: core, Now: f.Now, Log: log}, nil
}

// parseID reads a job id ("3" or "#3").
func parseID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(s, "#"), 10, 64)
	if err != nil || id <= 0 {
		return 0, &cmdutil.FlagError{Err: fmt.Errorf("%q is not a job id", s), Hint: "the ids are the numbers shown by `asky job list`"}
	}
	return id, nil
}

// daemonRunning reports whether the daemon (which runs jobs) is up.
func daemonRunning(f *cmdutil.Factory) bool {
	cfg, err := f.Config()
	if err != nil {
		return false
	}
	_, running, _ := daemon.Status(filepath.Join(cfg.Paths.StateDir, "daemon.pid"))
	return running
}
