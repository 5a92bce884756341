package research

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Pointer is a resolved `-r` value: local paths and/or the web.
type Pointer struct {
	Paths []string
	Web   bool
	// FromQuery is true when the pointer was the first word of the query
	// (`asky -r ~/papers what …` arrives that way), which the caller must
	// then drop from the question.
	FromQuery bool
}

// PointerError is an unresolvable pointer.
type PointerError struct{ Token, Why string }

func (e *PointerError) Error() string { return fmt.Sprintf("corpus pointer %q %s", e.Token, e.Why) }

// Hint says what to do.
func (e *PointerError) Hint() string {
	return "give an existing file or directory, a comma list of them, or web"
}

// ResolvePointer resolves a -r value. With an empty value, the first query
// word is taken as the pointer when it is `web`, an existing path or a
// comma list of those; a first word that looks like a path (or a comma
// list) but does not resolve is an error rather than question text. Paths
// typed on the CLI are trusted (trusted=true): an existing path is used
// as is, a relative name is also looked up under roots (as the original's
// local_document_roots). Paths from remote users must resolve inside one
// of roots, checked through os.Root so symlinks cannot escape.
func ResolvePointer(value string, words []string, roots []string, trusted bool, getenv func(string) string) (Pointer, error) {
	var p Pointer
	value = strings.TrimSpace(value)
	if value == "" && len(words) > 0 {
		switch {
		case pointerLike(words[0], roots, trusted, getenv):
			value, p.FromQuery = words[0], true
		case looksLikePath(words[0]):
			value = words[0] // resolved below, for its error
		}
	}
	if value == "" {
		return p, nil
	}
	for _, tok := range strings.Split(value, ",") {
		tok = strings.TrimSpace(tok)
		if tok == "" {
			continue
		}
		if strings.EqualFold(tok, "web") {
			p.Web = true
			continue
		}
		path, err := resolvePath(tok, roots, trusted, getenv)
		if err != nil {
			return Pointer{}, err
		}
		p.Paths = append(p.Paths, path)
	}
	return p, nil
}

func pointerLike(word string, roots []string, trusted bool, getenv func(string) string) bool {
	for _, tok := range strings.Split(word, ",") {
		tok = strings.TrimSpace(tok)
		if strings.EqualFold(tok, "web") {
			continue
		}
		if tok == "" {
			return false
		}
		if _, err := resolvePath(tok, roots, trusted, getenv); err != nil {
			return false
		}
	}
	return true
}

// looksLikePath reports whether a first query word was meant as a pointer
// even though it does not resolve: a comma list, or a path-like token.
func looksLikePath(w string) bool {
	if strings.Contains(w, ",") || strings.ContainsAny(w, `/\`) || strings.HasPrefix(w, "~") {
		return true
	}
	return len(w) >= 2 && w[1] == ':' && (w[0]|0x20 >= 'a' && w[0]|0x20 <= 'z')
}

func expandTilde(s string, getenv func(string) string) string {
	if s == "~" || strings.HasPrefix(s, "~/") {
		home := ""
		if getenv != nil {
			home = getenv("HOME")
		}
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		return filepath.Join(home, s[1:])
	}
	return s
}

func resolvePath(tok string, roots []string, trusted bool, getenv func(string) string) (string, error) {
	tok = expandTilde(tok, getenv)
	if trusted {
		abs, err := filepath.Abs(tok)
		if err != nil {
			return "", &PointerError{Token: tok, Why: err.Error()}
		}
		if _, err := os.Stat(abs); err == nil {
			return abs, nil
		}
		if !filepath.IsAbs(tok) {
			for _, r := range roots {
				root := expandTilde(r, getenv)
				if inRoot(root, tok) {
					return filepath.Join(root, tok), nil
				}
			}
		}
		return "", &PointerError{Token: tok, Why: "could not be resolved (no such file or directory, here or under research.local_document_roots)"}
	}
	if len(roots) == 0 {
		return "", &PointerError{Token: tok, Why: "is not allowed: research.local_document_roots is empty; configure it to allow local documents"}
	}
	for _, r := range roots {
		root := expandTilde(r, getenv)
		rel := tok
		if filepath.IsAbs(tok) {
			var err error
			if rel, err = filepath.Rel(root, tok); err != nil || strings.HasPrefix(rel, "..") {
				continue
			}
		}
		if inRoot(root, rel) {
			return filepath.Join(root, rel), nil
		}
	}
	return "", &PointerError{Token: tok, Why: "is outside the configured research.local_document_roots"}
}

// inRoot checks rel exists inside root without escaping it through "..",
// absolute paths or symlinks (os.Root resolves with openat).
func inRoot(root, rel string) bool {
	r, err := os.OpenRoot(root)
	if err != nil {
		return false
	}
	defer r.Close()
	_, err = r.Stat(rel)
	return err == nil
}
