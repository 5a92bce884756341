// Package tui is the history browser behind `asky history browse`: a list
// of sessions and one-shot turns with a rendered preview, in the shape of
// glow (list + pager). It holds no business logic: everything it reads or
// changes goes through Source, and every Source call runs in a tea.Cmd so
// Update never blocks on I/O.
package tui

import (
	"context"
	"fmt"
	"time"
)

// Item is one row: a session or a one-shot turn.
type Item struct {
	SessionID int64 // set for sessions
	TurnID    int64 // set for one-shot turns and search hits
	Title     string
	When      time.Time
	Turns     int
	// Snippet is the matching excerpt of a search hit.
	Snippet string
	// Status is "interrupted" or "error" for a turn (a session: its latest
	// turn) that did not complete; "" or "complete" otherwise.
	Status string
}

// Incomplete reports whether the row's turn (a session's latest) ended
// interrupted or with an error.
func (it Item) Incomplete() bool { return it.Status != "" && it.Status != "complete" }

// Key identifies the item across pages and caches.
func (it Item) Key() string {
	if it.SessionID != 0 && it.TurnID == 0 {
		return fmt.Sprintf("s%d", it.SessionID)
	}
	return fmt.Sprintf("t%d", it.TurnID)
}

// IsSession reports whether the row is a whole session.
func (it Item) IsSession() bool { return it.SessionID != 0 && it.TurnID == 0 }

// Source is what the browser needs from the rest of asky.
type Source interface {
	// Next returns the next page of items, newest first; done is true when
	// nothing is left.
	Next(ctx context.Context, limit int) (items []Item, done bool, err error)
	// Search runs a full-text search.
	Search(ctx context.Context, text string, limit int) ([]Item, error)
	// Document returns the item as markdown (a transcript for sessions).
	Document(ctx context.Context, it Item) (string, error)
	// Answer returns the answer to copy (a session's latest answer).
	Answer(ctx context.Context, it Item) (string, error)
	// Delete removes the item (a whole session, or one turn).
	Delete(ctx context.Context, it Item) error
	// Resume binds the calling shell to the item's session (converting a
	// one-shot turn into a session) and returns a message for the user.
	Resume(ctx context.Context, it Item) (string, error)
	// Copy puts text on the clipboard and says how.
	Copy(ctx context.Context, text string) (string, error)
	// Render turns markdown into terminal output of the given width.
	Render(md string, width int) (string, error)
}
