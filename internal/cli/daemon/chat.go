package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/daemon/transport/telegram"
	"github.com/askygo/asky/internal/daemon/transport/xmpp"
	"github.com/askygo/asky/internal/jobs"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn/compose"
)

// secret resolves a *_cmd / *_env / literal secret, in that order.
func secret(ctx context.Context, f *cmdutil.Factory, key, cmd, env string, literal config.Secret) (string, error) {
	if cmd != "" {
		s, err := config.RunSecretCmd(ctx, cmd)
		if err != nil {
			return "", cmdutil.WithHint(fmt.Errorf("%s_cmd: %w", key, err), "check the command in "+key+"_cmd")
		}
		return s.Reveal(), nil
	}
	if env != "" {
		if v := f.Getenv(env); v != "" {
			return v, nil
		}
	}
	return literal.Reveal(), nil
}

// xmppTransport builds the XMPP client from [xmpp].
func xmppTransport(ctx context.Context, opts *RunOptions, cfg *config.Config, dc daemon.Config, chat *daemon.Chat, board *daemon.Board) (transportRun, error) {
	x := dc.XMPP
	pw, err := secret(ctx, opts.Factory, "xmpp.password", x.PasswordCmd, x.PasswordEnv, x.Password)
	if err != nil {
		return transportRun{}, err
	}
	tr, err := xmpp.New(xmpp.Options{Config: x, Password: pw, Chat: chat, Board: board, Log: opts.IO.ErrOut,
		RoomsFile: filepath.Join(cfg.Paths.StateDir, "xmpp-rooms.json"), Now: opts.Factory.Now})
	if err != nil {
		return transportRun{}, cmdutil.WithHint(err, "fix [xmpp] in your config (`asky config path` shows where it is)")
	}
	return transportRun{name: xmpp.Name, run: tr.Run, notify: notifier(tr)}, nil
}

// telegramTransport builds the Telegram bot from [daemon.telegram].
func telegramTransport(ctx context.Context, opts *RunOptions, cfg *config.Config, dc daemon.Config, chat *daemon.Chat, board *daemon.Board) (transportRun, error) {
	tc := dc.Telegram
	tok, err := secret(ctx, opts.Factory, "daemon.telegram.token", tc.TokenCmd, tc.TokenEnv, "")
	if err != nil {
		return transportRun{}, err
	}
	if tok == "" {
		return transportRun{}, cmdutil.Errorf("export "+tc.TokenEnv+"=<token from @BotFather>, or set [daemon.telegram] token_cmd",
			"no Telegram bot token (%s is empty)", tc.TokenEnv)
	}
	tr, err := telegram.New(telegram.Options{Token: tok, APIURL: tc.APIURL, AllowedUsers: tc.AllowedUsers, AllowedChats: tc.AllowedChats,
		Chat: chat, Board: board, Log: opts.IO.ErrOut, OffsetFile: filepath.Join(cfg.Paths.StateDir, "telegram-offset.json"), Now: opts.Factory.Now})
	if err != nil {
		return transportRun{}, cmdutil.WithHint(err, "fix [daemon.telegram] in your config (`asky config path` shows where it is)")
	}
	return transportRun{name: telegram.Name, run: tr.Run, notify: notifier(tr)}, nil
}

// deliverer is a chat transport that can send an answer unprompted.
type deliverer interface {
	Deliver(ctx context.Context, to, text string) error
}

// notifier delivers scheduled jobs' answers through a chat transport.
func notifier(d deliverer) jobs.Notifier {
	return jobs.NotifierFunc(func(ctx context.Context, to jobs.Target, m jobs.Message) error {
		return d.Deliver(ctx, to.Addr, m.ChatText())
	})
}

// newChat is the chat router every transport shares, over the service
// that runs the daemon's questions. Uploads wake the deep tier's background fill.
func newChat(ctx context.Context, opts *RunOptions, cfg *config.Config, dc daemon.Config, wake deepWake) (*daemon.Chat, error) {
	up := uploads(opts, cfg, wake)
	runner := newRunner(opts.Factory)
	runner.uploadDir = up.Dir
	media, err := mediaModels(ctx, opts.Factory, cfg, dc)
	if err != nil {
		return nil, err
	}
	st, err := opts.Factory.Store()
	if err != nil {
		return nil, err
	}
	return &daemon.Chat{Service: daemon.NewService(runner, 0), Commands: opts.Commands, Uploads: up, Media: media,
		CommandPrefix: cfg.XMPP.CommandPrefix, AnswerTranscripts: !dc.ConfirmTranscripts,
		ModelParameters: func(alias string) map[string]any { return cfg.Models[alias].Parameters },
		State:           daemon.StoreState{Store: st, Session: compose.ChatSession}}, nil
}

// mediaModels resolves [daemon] transcription_model and vision_model
// (keys included, so a missing key fails at start, not at the first voice
// message); nil when neither is set.
func mediaModels(ctx context.Context, f *cmdutil.Factory, cfg *config.Config, dc daemon.Config) (*daemon.Media, error) {
	if err := dc.CheckMediaModels(cfg); err != nil {
		return nil, cmdutil.WithHint(err, "fix [daemon] transcription_model / vision_model in your config (`asky config path` shows where it is)")
	}
	resolve := func(key, alias string) (daemon.OpenAIModel, error) {
		r, err := cfg.ResolveModel(ctx, alias, f.Env())
		if err != nil {
			return daemon.OpenAIModel{}, fmt.Errorf("daemon.%s: %w", key, err)
		}
		return daemon.OpenAIModel{BaseURL: r.BaseURL, Key: r.Key.Reveal(), Model: r.ID, Headers: r.Headers, Client: f.HTTPClient()}, nil
	}
	var m daemon.Media
	if dc.TranscriptionModel != "" {
		om, err := resolve("transcription_model", dc.TranscriptionModel)
		if err != nil {
			return nil, err
		}
		m.Transcribe = om.Transcribe
	}
	if dc.VisionModel != "" {
		om, err := resolve("vision_model", dc.VisionModel)
		if err != nil {
			return nil, err
		}
		m.Describe = om.Describe
	}
	if m.Transcribe == nil && m.Describe == nil {
		return nil, nil
	}
	return &m, nil
}

// uploads stores chat documents under the first [research]
// local_document_roots entry (else the data dir's research-corpus),
// ingests them like `asky corpus ingest --no-deep` (ingestUploads; wake
// starts the deep tier's background fill) and links them to the chat's
// session (linkUploads).
func uploads(opts *RunOptions, cfg *config.Config, wake deepWake) *daemon.Uploads {
	dir := filepath.Join(cfg.Paths.DataDir, "research-corpus")
	if roots := cfg.DocumentRoots(opts.Factory.Getenv); len(roots) > 0 && strings.TrimSpace(roots[0]) != "" {
		dir = roots[0]
	}
	return &daemon.Uploads{Dir: filepath.Join(dir, "uploads"), Ingest: func(ctx context.Context, conversation string, paths []string) daemon.Ingested {
		ok, failed := ingestUploads(ctx, opts.Factory, paths, wake)
		res := daemon.Ingested{Failed: failed}
		if conversation == "" || len(ok) == 0 {
			return res
		}
		note, err := linkUploads(ctx, opts.Factory, conversation, ok)
		if err != nil {
			res.Note = "✗ not linked to this chat: " + err.Error()
		} else {
			res.Note = note
		}
		return res
	}}
}

// linkUploads adds uploaded files to the research pointer of the chat's
// session, so its later questions run in research mode over them: the
// corpus tools search them and bootstrap retrieval puts their best
// passages before the model. A session without a pointer gets `web` too,
// so web search stays available; a pointer the user set (say -r ~/docs,
// local only) keeps its choice and only gains the files.
func linkUploads(ctx context.Context, f *cmdutil.Factory, conversation string, paths []string) (string, error) {
	for _, p := range paths {
		if strings.Contains(p, ",") {
			return "", fmt.Errorf("the upload path %s contains a comma, which a research pointer cannot hold", filepath.Dir(p))
		}
	}
	st, err := f.Store()
	if err != nil {
		return "", err
	}
	s, err := compose.ChatSession(ctx, st, conversation)
	if err != nil {
		return "", err
	}
	var toks []string
	web := true
	if r := s.Defaults.Research; r != nil && strings.TrimSpace(*r) != "" {
		web = false
		for _, t := range strings.Split(*r, ",") {
			if t = strings.TrimSpace(t); t != "" {
				toks = append(toks, t)
			}
		}
	}
	for _, p := range paths {
		if !slices.Contains(toks, p) {
			toks = append(toks, p)
		}
	}
	if web {
		toks = append(toks, "web")
	}
	ptr := strings.Join(toks, ",")
	s.Defaults.Research = &ptr
	if err := st.UpdateSessionSettings(ctx, s); err != nil {
		return "", err
	}
	_, name, _ := strings.Cut(filepath.Base(paths[0]), "-") // stored as <sha>-<name>
	also := " (web search stays available)"
	if !web {
		also = " (with the documents this chat already pointed at)"
	}
	return fmt.Sprintf("Linked to this chat: questions here are now answered from these documents first%s, e.g. “summarize %s” or “what does %s say about …?”", also, name, name), nil
}

// unlinkMissingUploads drops from the conversation's research pointer the
// uploads deleted from disk since they were linked: a pointer naming a
// missing file refuses every question, and the chat user cannot fix that.
// Paths the user pointed at themselves are left alone.
func unlinkMissingUploads(ctx context.Context, st *store.Store, conversation, uploadDir string) {
	s, err := compose.ChatSession(ctx, st, conversation)
	if err != nil || s.Defaults.Research == nil {
		return
	}
	var keep []string
	dropped := false
	for _, t := range strings.Split(*s.Defaults.Research, ",") {
		if filepath.Dir(strings.TrimSpace(t)) == uploadDir {
			if _, err := os.Stat(strings.TrimSpace(t)); errors.Is(err, fs.ErrNotExist) {
				dropped = true
				continue
			}
		}
		keep = append(keep, t)
	}
	if !dropped {
		return
	}
	ptr := strings.Join(keep, ",")
	if ptr == "web" {
		s.Defaults.Research = nil // only the uploads turned research on
	} else {
		s.Defaults.Research = &ptr
	}
	_ = st.UpdateSessionSettings(ctx, s)
}
