package configcmd

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"sort"
	"strings"

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
		if e := cfg.Tool[n].Enabled; e != nil && !*e {
			// Not offered, so not checked: a half-written entry can be
			// parked with enabled = false without failing the doctor.
			rep.add(label, statusSkip, "", "disabled (enabled = false)")
			continue
		}
		s, err := custom.Parse(n, cfg.Tool[n], opts.Env.Getenv("HOME"))
		if err != nil {
			rep.add(label, statusFail, "fix [tool."+n+"] in "+cfg.Origin("tool."+n), "%v", err)
			continue
		}
		prog := s.Program()
		switch {
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

// checkDeliveryConfig checks [email] (when a server is set) and each
// [push_data.NAME] endpoint, without sending anything.
func checkDeliveryConfig(rep *doctorReport, opts *DoctorOptions, cfg *config.Config) {
	if e := cfg.Email; e.SMTPHost != "" {
		user, _, err := e.SMTPCredentials(context.Background(), opts.Env)
		switch {
		case err != nil:
			rep.add("email", statusFail, "export "+e.SMTPPasswordEnv+" or set email.smtp_password_cmd", "%v", err)
		case e.FromAddress == "" && user == "":
			rep.add("email", statusFail, "set email.from_address", "no sender: email.from_address and the SMTP user are empty")
		case !e.SMTPUseTLS && !e.SMTPUseSSL:
			rep.add("email", statusWarn, "set email.smtp_use_tls = true unless the relay is local", "%s:%d without TLS", e.SMTPHost, e.SMTPPort)
		default:
			rep.add("email", statusOK, "", "%s:%d (for --sendmail)", e.SMTPHost, e.SMTPPort)
		}
	}
	names := make([]string, 0, len(cfg.PushData))
	for n := range cfg.PushData {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		ep := cfg.PushData[n]
		label := "push " + n
		u, err := url.Parse(ep.URL)
		missing := ""
		for k, v := range ep.Headers {
			if strings.HasSuffix(k, "_env") && opts.Env.Getenv(v) == "" {
				missing = v
			}
		}
		switch {
		case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
			rep.add(label, statusFail, "set push_data."+n+".url", "url must be an http(s) URL, got %q", ep.URL)
		case missing != "":
			rep.add(label, statusFail, "export "+missing, "header variable %s is not set", missing)
		case ep.Enabled != nil && !*ep.Enabled:
			rep.add(label, statusSkip, "", "disabled (enabled = false)")
		default:
			rep.add(label, statusOK, "", "%s %s (for --push-data %s)", strings.ToUpper(orDefault(ep.Method, "post")), u.Redacted(), n)
		}
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
