package session

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/askygo/asky/internal/store"
)

// Finder is what selector resolution needs from the store.
type Finder interface {
	GetSession(ctx context.Context, id int64) (*store.Session, error)
	SessionByName(ctx context.Context, name string) (*store.Session, error)
	FindSessions(ctx context.Context, sub string, limit int) ([]*store.Session, error)
}

// SelectorForms describes the accepted session selectors (for errors).
const SelectorForms = "a session id (12), S12, an exact name, or a unique part of a name"

// SelectorError is a selector that cannot be used; it is a usage error.
type SelectorError struct {
	Sel     string
	Reason  string
	Matches []*store.Session
}

func (e *SelectorError) Error() string {
	if len(e.Matches) > 0 {
		names := make([]string, 0, len(e.Matches))
		for _, m := range e.Matches {
			names = append(names, Label(m))
		}
		return fmt.Sprintf("session selector %q is ambiguous: matches %s", e.Sel, strings.Join(names, ", "))
	}
	return fmt.Sprintf("session selector %q: %s", e.Sel, e.Reason)
}

// Hint names the accepted forms.
func (e *SelectorError) Hint() string {
	if len(e.Matches) > 0 {
		return "use the id or the exact name, e.g. `S" + strconv.FormatInt(e.Matches[0].ID, 10) + "`"
	}
	return "use " + SelectorForms
}

// NotFoundError is a well-formed selector that matches no session.
type NotFoundError struct{ Sel string }

func (e *NotFoundError) Error() string { return fmt.Sprintf("no session matches %q", e.Sel) }

// Hint points at the list.
func (e *NotFoundError) Hint() string { return "see `asky session list`" }

var legacyID = regexp.MustCompile(`^[sS](\d+)$`)

// Resolve finds the session sel names: digits are an id only; S12 is the
// original's id form; then an exact name; then a case-insensitive part of a
// name among the 200 most recent sessions, which must be unique.
func Resolve(ctx context.Context, f Finder, sel string) (*store.Session, error) {
	sel = strings.TrimSpace(sel)
	if sel == "" {
		return nil, &SelectorError{Sel: sel, Reason: "empty"}
	}
	idText := ""
	if m := legacyID.FindStringSubmatch(sel); m != nil {
		idText = m[1]
	} else if isDigits(sel) {
		idText = sel
	}
	if idText != "" {
		id, err := strconv.ParseInt(idText, 10, 64)
		if err != nil || id <= 0 {
			return nil, &SelectorError{Sel: sel, Reason: "not a valid id"}
		}
		s, err := f.GetSession(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, &NotFoundError{Sel: sel}
		}
		return s, err
	}
	s, err := f.SessionByName(ctx, sel)
	if err == nil {
		return s, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	matches, err := f.FindSessions(ctx, sel, 200)
	if err != nil {
		return nil, err
	}
	switch len(matches) {
	case 0:
		return nil, &NotFoundError{Sel: sel}
	case 1:
		return matches[0], nil
	}
	if len(matches) > 10 {
		matches = matches[:10]
	}
	return nil, &SelectorError{Sel: sel, Matches: matches}
}

// Label is how a session is named in messages: "5 (trip)" or "5".
func Label(s *store.Session) string {
	if s.Name == "" {
		return strconv.FormatInt(s.ID, 10)
	}
	return fmt.Sprintf("%d (%s)", s.ID, s.Name)
}

// Turns is a turn count in words: "1 turn", "3 turns".
func Turns(n int) string {
	if n == 1 {
		return "1 turn"
	}
	return strconv.Itoa(n) + " turns"
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func itoa64(i int64) string { return strconv.FormatInt(i, 10) }
