package configcmd

import (
	"os"
	"os/exec"
	"sort"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/tools/custom"
)

// checkCustomTools validates every [tool.NAME]: the command parses, its
// placeholders are parameters, the program is on PATH and the working
// directory exists. One line per tool.
func checkCustomTools(rep *doctorReport, opts *DoctorOptions, cfg *config.Config) {
	names := make([]string, 0, len(cfg.Tool))
	for n := range cfg.Tool {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		label := "tool " + n
		s, err := custom.Parse(n, cfg.Tool[n], opts.Env.Getenv("HOME"))
		if err != nil {
			rep.add(label, statusFail, "fix [tool."+n+"] in "+cfg.Origin("tool."+n), "%v", err)
			continue
		}
		prog := s.Program()
		switch {
		case !s.Enabled:
			rep.add(label, statusSkip, "", "disabled (enabled = false)")
		case lookPath(prog) != nil:
			rep.add(label, statusWarn, "install "+prog+" or fix the command", "program %q is not on PATH", prog)
		case s.Dir != "" && !isDir(s.Dir):
			rep.add(label, statusFail, "create it or fix working_dir", "working_dir %s does not exist", s.Dir)
		default:
			where := "local questions only"
			if s.Remote {
				where = "local and daemon questions"
			}
			rep.add(label, statusOK, "", "%s (%s)", s.Command(), where)
		}
	}
}

func lookPath(prog string) error {
	_, err := exec.LookPath(prog)
	return err
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
