package query

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/deliver"
	"github.com/askygo/asky/internal/turn"
)

// errRemoteDelivery refuses mail and push for daemon questions: a remote
// sender must not make this machine send mail or call endpoints.
var errRemoteDelivery = errors.New("--sendmail and --push-data are not available to remote questions")

// checkDelivery validates --sendmail/--push-data before the question is
// asked, so a typo costs no tokens.
func checkDelivery(opts *Options, cfg *config.Config) error {
	if opts.Subject != "" && opts.SendMail == "" {
		return cmdutil.FlagErrorf("--subject is the subject of the --sendmail mail; give --sendmail ADDRESS too")
	}
	if opts.SendMail == "" && opts.PushData == "" {
		return nil
	}
	if opts.Remote {
		return errRemoteDelivery
	}
	if opts.SendMail != "" {
		if _, err := deliver.ParseRecipients(opts.SendMail); err != nil {
			return cmdutil.FlagErrorf("%v", err)
		}
		if cfg.Email.SMTPHost == "" {
			return cmdutil.WithHint(errors.New("--sendmail needs an SMTP server"), "set [email] smtp_host, smtp_port and from_address in config.toml (password: smtp_password_env or smtp_password_cmd)")
		}
		// A password from the environment is checked now; a password
		// command runs only when the mail is sent.
		if cfg.Email.SMTPPasswordCmd == "" {
			if _, _, err := cfg.Email.SMTPCredentials(context.Background(), opts.Factory.Env()); err != nil {
				return err
			}
		}
	}
	if opts.PushData != "" {
		spec, err := deliver.ParsePushSpec(opts.PushData)
		if err != nil {
			return cmdutil.FlagErrorf("%v", err)
		}
		if err := deliver.CheckPush(cfg.PushData, spec, opts.Factory.Getenv); err != nil {
			return cmdutil.WithHint(err, "endpoints are [push_data.NAME] tables with url, method, headers and fields")
		}
	}
	return nil
}

// deliverAnswer mails and pushes the printed answer. Failures are
// warnings: the answer is already out.
func (sx *sessionTurn) deliverAnswer(ctx context.Context, res *turn.Result) {
	opts := sx.opts
	if (opts.SendMail == "" && opts.PushData == "") || res.Answer == "" {
		return
	}
	warn := func(err error) { fmt.Fprintf(opts.IO.ErrOut, "warning: %v\n", err) }
	if opts.Remote {
		warn(errRemoteDelivery)
		return
	}
	question := joinWords(opts.Words)
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	if opts.SendMail != "" {
		if err := sx.sendMail(ctx, question, res, now()); err != nil {
			warn(err)
		}
	}
	if opts.PushData != "" {
		spec, err := deliver.ParsePushSpec(opts.PushData)
		if err == nil {
			a := deliver.Answer{Query: question, Answer: res.Answer, Model: res.Model, Timestamp: now(), HistoryID: res.HistoryID}
			if sx.sess != nil {
				a.SessionID = sx.sess.ID
			}
			for _, s := range res.Sources {
				a.Sources = append(a.Sources, s.URL)
			}
			var status string
			if status, err = deliver.Push(ctx, opts.Factory.HTTPClient(), sx.cfg.General.LLMUserAgent, sx.cfg.PushData, spec, a, opts.Factory.Getenv); err == nil {
				fmt.Fprintf(opts.IO.ErrOut, "pushed the answer to %s (%s)\n", spec.Endpoint, status)
			}
		}
		if err != nil {
			warn(err)
		}
	}
}

func (sx *sessionTurn) sendMail(ctx context.Context, question string, res *turn.Result, now time.Time) error {
	opts := sx.opts
	to, err := deliver.ParseRecipients(opts.SendMail)
	if err != nil {
		return err
	}
	user, pass, err := sx.cfg.Email.SMTPCredentials(ctx, opts.Factory.Env())
	if err != nil {
		return err
	}
	subject := opts.Subject
	if subject == "" {
		subject = deliver.Subject(res.Answer, question)
	}
	m := deliver.Message{To: to, Subject: subject, Markdown: res.Answer, Now: now}
	if err := deliver.SendMail(ctx, sx.cfg.Email, user, pass, m); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.ErrOut, "mailed the answer to %s\n", opts.SendMail)
	return nil
}
