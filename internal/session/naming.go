package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/askygo/asky/internal/store"
)

// stopwords are skipped when naming a session; read-only after start.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but of to in on at for with by from about as into is are was
		were be been being do does did how what why when where which who whom whose can could should would will
		shall may might must i me my we our you your it its this that these those please tell explain give show
		write make let lets get vs versus than then there their them they he she his her not no yes`) {
		m[w] = true
	}
	return m
}()

// AutoName derives a session name from a question without calling a model,
// so naming never delays the answer: the first three meaningful words,
// lowercased and joined by dashes ("paris-weekend-trip").
func AutoName(query string) string {
	words := strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
	var keep []string
	for _, w := range words {
		if stopwords[w] || len(w) < 2 {
			continue
		}
		keep = append(keep, w)
		if len(keep) == 3 {
			break
		}
	}
	name := strings.Join(keep, "-")
	if len(name) > 40 {
		name = strings.TrimRight(name[:40], "-")
	}
	switch {
	case name == "":
		name = "session"
	case IsHistorySelector(name) || legacyID.MatchString(name):
		// "42" or "s3" would read as an id in a selector.
		name = "session-" + name
	}
	return name
}

// IsNameControl reports whether r may not appear in a session name: a
// control character (C0, DEL, C1, which covers ESC and so terminal escape
// sequences) or a line or paragraph separator. Names are printed in
// prompts, tables and hints, and are typed back as selectors; one that
// carries a line break or an escape sequence could do neither safely.
func IsNameControl(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}

// maxNameTries bounds the _N suffixes tried for one name.
const maxNameTries = 1000

func suffixed(base string, i int) string { return fmt.Sprintf("%s_%d", base, i) }

// SessionCreator is what CreateUnique needs.
type SessionCreator interface {
	CreateSession(ctx context.Context, s *store.Session) error
}

// CreateUnique creates s under s.Name, or s.Name_2, s.Name_3… when the name
// is taken, and leaves the name it got in s.Name. The store's unique index
// decides, so two processes naming at once never collide.
func CreateUnique(ctx context.Context, st SessionCreator, s *store.Session) error {
	base := s.Name
	for i := 2; ; i++ {
		err := st.CreateSession(ctx, s)
		var taken *store.NameTakenError
		if base == "" || i >= maxNameTries || !errors.As(err, &taken) {
			if err != nil {
				s.Name = base
			}
			return err
		}
		s.Name = suffixed(base, i)
	}
}

// SessionRenamer is what RenameUnique needs.
type SessionRenamer interface {
	RenameSession(ctx context.Context, id int64, name string) error
}

// RenameUnique renames session id to name, or name_2, name_3… when taken,
// and returns the name it got.
func RenameUnique(ctx context.Context, st SessionRenamer, id int64, name string) (string, error) {
	got := name
	for i := 2; ; i++ {
		err := st.RenameSession(ctx, id, got)
		var taken *store.NameTakenError
		if err == nil {
			return got, nil
		}
		if i >= maxNameTries || !errors.As(err, &taken) {
			return "", err
		}
		got = suffixed(name, i)
	}
}
