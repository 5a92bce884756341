package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/askygo/asky/internal/cli/cmdutil"
	"github.com/askygo/asky/internal/daemon"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/userprompt"
)

// ErrRemotePolicy is the original's refusal of a command sent over chat.
//
//lint:ignore ST1005 the original's sentence, shown to the chat user as it is
var ErrRemotePolicy = errors.New("Remote policy blocked this command in daemon mode.")

// remoteGroups are the grouped commands a chat may run: reading only.
// Everything that writes (delete, clear, config and model edits), opens
// or reads local files, mails, or starts daemons stays on the machine.
var remoteGroups = map[string][]string{
	"history": {"list", "show", "search"},
	"session": {"list", "show"},
	"memory":  {"list"},
	"corpus":  {"list", "query"},
	"prompts": {"list"},
}

// remoteFlags are the legacy listing flags allowed as a chat command.
var remoteFlags = []string{"-H", "--history", "-pa", "--print-answer", "-ps", "--print-session", "--list-tools", "-h", "--help"}

// remoteQueryFlags may lead a question over chat: they only pick how the
// question is answered.
var remoteQueryFlags = map[string]bool{"-L": false, "--lean": false, "-m": true, "--model": true}

// remoteHelp answers /help over chat.
const remoteHelp = `Send a question as text; this chat continues an asky session.
Commands:
  /session              this chat's session and the latest sessions
  /session new [NAME]   start a new session in this chat
  /session child [NAME] a new session with this one's settings and documents
  /session clear        empty this chat's session (asks first)
  /session ID|NAME      continue another session here
  \preset args…         run a command preset (\presets lists them)
  -L question…          answer without tools; -m ALIAS question… picks a model
  history list|show|search, session list|show, memory list,
  corpus list|query, prompts list, -H, -pa N, -ps S, --list-tools
Anything else that writes, deletes, edits config or models, opens or
reads local files, mails or starts daemons is refused over chat.`

// remoteCommands runs chat commands through the CLI's own parser with the
// remote policy; the daemon command receives it as its CommandHandler.
type remoteCommands struct{ f *cmdutil.Factory }

var _ daemon.CommandHandler = remoteCommands{}

func (r remoteCommands) Command(ctx context.Context, conv, text string) (daemon.CommandResult, error) {
	words := userprompt.SplitArgs(text)
	// Chat routing takes "/ASKY" as a command as well (it lowercases).
	if len(words) > 0 && strings.EqualFold(words[0], "/asky") {
		words = words[1:]
	}
	if len(words) == 0 {
		return daemon.CommandResult{Handled: true, Reply: remoteHelp}, nil
	}
	switch strings.ToLower(words[0]) {
	case "/h", "/help":
		return daemon.CommandResult{Handled: true, Reply: remoteHelp}, nil
	case "/session":
		return r.session(ctx, conv, words[1:])
	}
	if strings.HasPrefix(words[0], `\`) && words[0] != `\presets` {
		cfg, err := r.f.Config()
		if err != nil {
			return daemon.CommandResult{}, err
		}
		if words, err = userprompt.ExpandPreset(cfg.CommandPresets, words); err != nil {
			return daemon.CommandResult{}, err
		}
		if len(words) == 0 {
			return daemon.CommandResult{}, fmt.Errorf("the preset expands to nothing")
		}
		if !daemon.LooksLikeCommand(strings.Join(words, " ")) {
			return daemon.CommandResult{Question: strings.Join(words, " ")}, nil
		}
	}
	if res, ok := queryFlags(words); ok {
		return res, nil
	}
	if err := remotePolicy(words); err != nil {
		return daemon.CommandResult{}, err
	}
	out, err := r.run(ctx, words)
	if err != nil {
		return daemon.CommandResult{}, err
	}
	return daemon.CommandResult{Handled: true, Reply: out}, nil
}

// queryFlags reads `-L words…` and `-m ALIAS words…`.
func queryFlags(words []string) (daemon.CommandResult, bool) {
	var res daemon.CommandResult
	i := 0
	for i < len(words) {
		takesValue, ok := remoteQueryFlags[words[i]]
		if !ok {
			break
		}
		if takesValue {
			if i+1 >= len(words) {
				return res, false
			}
			res.Model = words[i+1]
			i += 2
			continue
		}
		res.Lean = true
		i++
	}
	if i == 0 {
		return res, false
	}
	res.Question = strings.Join(words[i:], " ")
	return res, true
}

// remotePolicy admits the reading commands only; each token is checked,
// so a flag cannot be smuggled after an allowed command.
func remotePolicy(words []string) error {
	first := words[0]
	switch {
	case first == `\presets`:
	case slices.Contains(remoteFlags, first):
	case remoteGroups[first] != nil:
		if len(words) < 2 || !slices.Contains(remoteGroups[first], words[1]) {
			return fmt.Errorf("%w Allowed over chat: %s %s", ErrRemotePolicy, first, strings.Join(remoteGroups[first], "|"))
		}
	default:
		return ErrRemotePolicy
	}
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "-") && !allowedArgFlag(w) {
			return fmt.Errorf("%w (%s)", ErrRemotePolicy, w)
		}
	}
	return nil
}

// allowedArgFlag lists the flags the allowed commands may carry: output
// and paging only.
func allowedArgFlag(w string) bool {
	name, _, _ := strings.Cut(w, "=")
	switch name {
	case "--json", "-n", "--limit", "--top-k", "-k", "--all", "--session", "--help", "-h":
		return true
	}
	return false
}

// run executes words through a fresh command tree writing to a buffer:
// the same parser, strict groups and errors as the terminal.
func (r remoteCommands) run(ctx context.Context, words []string) (string, error) {
	ios, _, out, errOut := iostreams.Test()
	root := NewCmdRoot(r.f.WithIO(ios))
	root.SetArgs(TranslateLegacyArgs(words))
	root.SetOut(out)
	root.SetErr(errOut)
	if err := root.ExecuteContext(ctx); err != nil {
		var msg bytes.Buffer
		printError(&msg, err)
		return "", errors.New(strings.TrimPrefix(strings.TrimSpace(msg.String()), "error: "))
	}
	s := strings.TrimSpace(out.String())
	if s == "" {
		s = strings.TrimSpace(errOut.String())
	}
	if s == "" {
		s = "(no output)"
	}
	return s, nil
}
