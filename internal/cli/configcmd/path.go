package configcmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/MakeNowJust/heredoc"
	"github.com/spf13/cobra"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/iostreams"
)

// PathOptions are the inputs of `config path`.
type PathOptions struct {
	IO     *iostreams.IOStreams
	Config func() (*config.Config, error)
	Getenv func(string) string
	JSON   bool
}

// NewCmdPath builds `config path`; runF replaces the run function in tests.
func NewCmdPath(f *cmdutil.Factory, runF func(*PathOptions) error) *cobra.Command {
	opts := &PathOptions{IO: f.IO, Config: f.Config, Getenv: f.Getenv}
	cmd := &cobra.Command{
		Use:   "path",
		Short: "Print config, data and cache locations",
		Long: heredoc.Doc(`
			Print where asky keeps things: the config directory, data directory,
			cache directory, the database file, and which config files were read
			(in merge order). With $ASKY_HOME set everything lives under it;
			otherwise the XDG base directories are used. $ASKY_DB_PATH (or
			[general] db_path) moves the database.

			When a config file is broken the locations are still printed, then
			the error.
		`),
		Example: heredoc.Doc(`
			$ asky config path
			$ $EDITOR "$(asky config path --json | jq -r .config_dir)/config.toml"
		`),
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return pathRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the locations as JSON")
	return cmd
}

type pathInfo struct {
	ConfigDir string   `json:"config_dir"`
	DataDir   string   `json:"data_dir"`
	CacheDir  string   `json:"cache_dir"`
	StateDir  string   `json:"state_dir"`
	DB        string   `json:"db"`
	Files     []string `json:"files"`
}

func pathRun(opts *PathOptions) error {
	cfg, loadErr := opts.Config()
	var info pathInfo
	if loadErr == nil {
		warnDiagnostics(opts.IO, cfg)
		p := cfg.Paths
		info = pathInfo{p.ConfigDir, p.DataDir, p.CacheDir, p.StateDir, p.DB, cfg.Files}
	} else {
		// The config is broken: still say where everything is.
		p := config.ResolvePaths(opts.Getenv)
		info = pathInfo{p.ConfigDir, p.DataDir, p.CacheDir, p.StateDir, p.DB, nil}
		for _, name := range append([]string{config.MainFile}, config.SplitFiles...) {
			file := filepath.Join(p.ConfigDir, name)
			if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
				info.Files = append(info.Files, file)
			}
		}
	}
	if info.Files == nil {
		info.Files = []string{}
	}
	if opts.JSON {
		if err := cmdutil.WriteJSON(opts.IO.Out, info); err != nil {
			return err
		}
		return loadErr
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "config dir\t%s\n", info.ConfigDir)
	fmt.Fprintf(tw, "data dir\t%s\n", info.DataDir)
	fmt.Fprintf(tw, "cache dir\t%s\n", info.CacheDir)
	fmt.Fprintf(tw, "state dir\t%s\n", info.StateDir)
	fmt.Fprintf(tw, "database\t%s\n", info.DB)
	if len(info.Files) == 0 {
		fmt.Fprintf(tw, "files read\t(none: built-in defaults; create %s)\n", filepath.Join(info.ConfigDir, config.MainFile))
	}
	for i, f := range info.Files {
		label := ""
		if i == 0 {
			label = "files read"
		}
		fmt.Fprintf(tw, "%s\t%s\n", label, f)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return loadErr
}
