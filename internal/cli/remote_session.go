package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	clisession "github.com/askygo/asky/internal/cli/session"
	"github.com/askygo/asky/internal/daemon"
	sess "github.com/askygo/asky/internal/session"
	"github.com/askygo/asky/internal/store"
	"github.com/askygo/asky/internal/turn/compose"
)

// sessionHelp lists the /session commands in replies.
const sessionHelp = `/session new [NAME] starts a new session here, /session child [NAME] one with this session's settings and documents, /session clear empties it (asks first), /session ID|NAME continues another.`

// session answers /session over chat: which session the chat continues,
// starting a new or child one, clearing it, or switching to another. The
// choice is per chat (room) and kept in the store, so it survives a
// restart and the shell sees the same sessions.
func (r remoteCommands) session(ctx context.Context, conv string, args []string) (daemon.CommandResult, error) {
	st, err := r.f.Store()
	if err != nil {
		return daemon.CommandResult{}, err
	}
	cur, err := compose.ChatSession(ctx, st, conv)
	if err != nil {
		return daemon.CommandResult{}, err
	}
	if len(args) == 0 {
		list, err := r.run(ctx, []string{"session", "list", "20"})
		if err != nil {
			return daemon.CommandResult{}, err
		}
		return handled(fmt.Sprintf("This chat continues session %s, %s.\n%s\n\n%s", sess.Label(cur), turns(cur.Turns), sessionHelp, list)), nil
	}
	name := strings.TrimSpace(strings.Join(args[1:], " "))
	switch strings.ToLower(args[0]) {
	case "new":
		return r.startSession(ctx, st, conv, cur, name, false)
	case "child":
		return r.startSession(ctx, st, conv, cur, name, true)
	case "clear":
		if name != "" {
			return daemon.CommandResult{}, fmt.Errorf("/session clear takes no argument: it empties the session this chat continues, %s", sess.Label(cur))
		}
		return r.clearSession(ctx, st, conv, cur)
	}
	return r.switchSession(ctx, st, conv, cur, strings.Join(args, " "))
}

func handled(reply string) daemon.CommandResult {
	return daemon.CommandResult{Handled: true, Reply: reply}
}

func turns(n int) string {
	if n == 1 {
		return "1 turn"
	}
	return fmt.Sprintf("%d turns", n)
}

// startSession creates a session, binds the chat to it and records the
// chat as its owner. A child takes the current session's settings
// (model, research pointer with the chat's documents, tools, shortlist,
// memory extraction) and keeps the chat's inline overrides; a new session
// starts from the config and drops them.
func (r remoteCommands) startSession(ctx context.Context, st *store.Store, conv string, cur *store.Session, name string, child bool) (daemon.CommandResult, error) {
	s := &store.Session{Name: name}
	if name != "" {
		if err := clisession.ValidateName(name); err != nil {
			return daemon.CommandResult{}, err
		}
	} else {
		s.Defaults.PendingAutoName = true // named from its first question
	}
	if child {
		s.Model, s.MaxTurns, s.MemoryAutoExtract, s.ShortlistOverride = cur.Model, cur.MaxTurns, cur.MemoryAutoExtract, cur.ShortlistOverride
		d := cur.Defaults
		d.ToolOff = append([]string(nil), d.ToolOff...)
		if d.Research != nil {
			ptr := *d.Research
			d.Research = &ptr
		}
		d.PendingAutoName = s.Defaults.PendingAutoName
		s.Defaults = d
	}
	if err := st.CreateSession(ctx, s); err != nil {
		var taken *store.NameTakenError
		if errors.As(err, &taken) {
			return daemon.CommandResult{}, fmt.Errorf("%w; continue it with /session %s, or pick another name", err, name)
		}
		return daemon.CommandResult{}, err
	}
	if err := st.SetChatSessionOwner(ctx, conv, s.ID); err != nil {
		return daemon.CommandResult{}, err
	}
	if child {
		if err := st.CopyChatOverride(ctx, cur.ID, s.ID); err != nil {
			return daemon.CommandResult{}, err
		}
	}
	if err := st.BindChatSession(ctx, conv, s.ID); err != nil {
		return daemon.CommandResult{}, err
	}
	what, named := "", ""
	if child {
		what = " as a child of session " + sess.Label(cur) + ": same settings, documents and chat overrides, empty conversation"
	}
	if name == "" {
		named = " It is named from its first question."
	}
	reply := fmt.Sprintf("Started session %s%s. This chat continues it from now on; session %s is kept (/session %d returns to it).%s",
		sess.Label(s), what, sess.Label(cur), cur.ID, named)
	return daemon.CommandResult{Handled: true, Reply: reply, NewSession: !child}, nil
}

// clearSession asks before deleting the turns of the chat's session. Only
// the chat's own sessions may be cleared: its default one and those it
// started. A session it switched to (say the owner's shell session) is
// not the chat's to empty.
func (r remoteCommands) clearSession(ctx context.Context, st *store.Store, conv string, cur *store.Session) (daemon.CommandResult, error) {
	owner, err := st.ChatSessionOwner(ctx, cur.ID)
	if err != nil {
		return daemon.CommandResult{}, err
	}
	if cur.Name != conv && owner != conv {
		return daemon.CommandResult{}, fmt.Errorf("%w This chat continues session %s, which it did not start, so it cannot clear it; /session new starts an empty one", ErrRemotePolicy, sess.Label(cur))
	}
	if cur.Turns == 0 && cur.CompactedSummary == "" {
		return handled(fmt.Sprintf("Session %s is already empty.", sess.Label(cur))), nil
	}
	id, label := cur.ID, sess.Label(cur)
	return daemon.CommandResult{Handled: true,
		Reply: fmt.Sprintf("Clear session %s? Its %s will be deleted for good (its settings and linked documents stay). Reply yes to clear it, or no to keep it.", label, turns(cur.Turns)),
		Confirm: &daemon.Confirmation{What: "clearing session " + label, No: "Kept: session " + label + " was not cleared.",
			Yes: func(ctx context.Context, out daemon.ChatOutput) {
				n, err := st.ClearSessionTurns(ctx, id)
				if err != nil {
					out.Final(ctx, "Error: "+err.Error(), true)
					return
				}
				out.Final(ctx, fmt.Sprintf("Cleared session %s: %s deleted. This chat starts afresh in it.", label, turns(int(n))), false)
			}}}, nil
}

// switchSession binds the chat to the session sel names.
func (r remoteCommands) switchSession(ctx context.Context, st *store.Store, conv string, cur *store.Session, sel string) (daemon.CommandResult, error) {
	s, err := sess.Resolve(ctx, st, sel)
	var se *sess.SelectorError
	var nf *sess.NotFoundError
	switch {
	case errors.As(err, &nf):
		return daemon.CommandResult{}, fmt.Errorf("%w (send /session for the list)", err)
	case errors.As(err, &se):
		return daemon.CommandResult{}, fmt.Errorf("%w (%s)", err, se.Hint())
	case err != nil:
		return daemon.CommandResult{}, err
	case s.ID == cur.ID:
		return handled(fmt.Sprintf("This chat already continues session %s, %s.", sess.Label(s), turns(s.Turns))), nil
	}
	if err := st.BindChatSession(ctx, conv, s.ID); err != nil {
		return daemon.CommandResult{}, err
	}
	return daemon.CommandResult{Handled: true, NewSession: true,
		Reply: fmt.Sprintf("This chat now continues session %s, %s. /session %d returns to session %s.", sess.Label(s), turns(s.Turns), cur.ID, sess.Label(cur))}, nil
}
