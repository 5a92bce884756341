package research

// This file matches paths against .gitignore files, so that ingesting a
// repository or a notes folder leaves out build output, caches and
// generated files the way git does. It is written here rather than taken
// from a library because ingest needs only the pattern language of
// gitignore(5), relative to the directory being walked: no repository
// discovery, no .git/info/exclude, no core.excludesFile, and no new
// dependency. path.Match does the matching within one path segment; "**"
// and anchoring are handled here.

import (
	"path"
	"strings"
)

// gitPattern is one line of a .gitignore file.
type gitPattern struct {
	// segs is the pattern split on "/" when anchored, else one segment
	// matched against the last element of the path.
	segs     []string
	anchored bool // contains a "/" before its end: relative to the file's directory
	negate   bool // "!pattern" re-includes
	dirOnly  bool // "pattern/" matches directories only
}

// gitignore is the patterns of one .gitignore file. dir is the file's
// directory relative to the walk root, slash-separated, "" for the root.
type gitignore struct {
	dir      string
	patterns []gitPattern
}

// parseGitignore reads the contents of the .gitignore in dir. Blank lines,
// comments and malformed patterns are dropped.
func parseGitignore(dir, data string) *gitignore {
	g := &gitignore{dir: dir}
	for line := range strings.Lines(strings.TrimPrefix(data, "\ufeff")) {
		if p, ok := parseGitPattern(line); ok {
			g.patterns = append(g.patterns, p)
		}
	}
	return g
}

func parseGitPattern(line string) (gitPattern, bool) {
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	var p gitPattern
	if strings.HasPrefix(line, "#") {
		return p, false
	}
	line = trimTrailingSpaces(line)
	if strings.HasPrefix(line, "!") {
		p.negate, line = true, line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly, line = true, line[:len(line)-1]
	}
	if strings.Contains(line, "/") {
		p.anchored, line = true, strings.TrimPrefix(line, "/")
	}
	if line == "" {
		return p, false
	}
	for _, s := range strings.Split(line, "/") {
		if s == "**" && len(p.segs) > 0 && p.segs[len(p.segs)-1] == "**" {
			continue // "a/**/**/b" is "a/**/b", without the exponential search
		}
		s = fnmatchClasses(s)
		if _, err := path.Match(s, ""); err != nil {
			return p, false // never matches, as in git
		}
		p.segs = append(p.segs, s)
	}
	return p, true
}

// trimTrailingSpaces drops trailing spaces unless escaped with a backslash.
func trimTrailingSpaces(s string) string {
	end := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			continue
		case '\\':
			i++
		}
		end = min(i+1, len(s))
	}
	return s[:end]
}

// fnmatchClasses rewrites bracket expressions for path.Match: "[!...]"
// is negated like "[^...]", and a "]" right after the opening is a member.
func fnmatchClasses(s string) string {
	if !strings.Contains(s, "[") {
		return s
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2])
			i++
		case c == '[' && !inClass:
			b.WriteByte('[')
			inClass = true
			if i+1 < len(s) && (s[i+1] == '!' || s[i+1] == '^') {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(s) && s[i+1] == ']' {
				b.WriteString(`\]`)
				i++
			}
		default:
			inClass = inClass && c != ']'
			b.WriteByte(c)
		}
	}
	return b.String()
}

// match reports whether the pattern matches rel, a slash-separated path
// relative to the .gitignore's directory.
func (p gitPattern) match(rel string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if !p.anchored {
		ok, _ := path.Match(p.segs[0], path.Base(rel))
		return ok
	}
	return matchSegs(p.segs, strings.Split(rel, "/"))
}

func matchSegs(pat, name []string) bool {
	for ; len(pat) > 0; pat, name = pat[1:], name[1:] {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return len(name) > 0 // "a/**" matches what is inside a, not a
			}
			for i := range len(name) + 1 {
				if matchSegs(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
	}
	return len(name) == 0
}

// gitignores are the .gitignore files of the directories around a path,
// outermost first.
type gitignores []*gitignore

// within drops the files of directories that do not contain rel, as the
// walk leaves them.
func (gs gitignores) within(rel string) gitignores {
	for len(gs) > 0 {
		if d := gs[len(gs)-1].dir; d == "" || strings.HasPrefix(rel, d+"/") {
			break
		}
		gs = gs[:len(gs)-1]
	}
	return gs
}

// ignored reports whether rel (slash-separated, relative to the walk root)
// is excluded: the deepest file decides, and within a file the last
// matching pattern. It looks at rel alone; a file in an excluded directory
// cannot be re-included because the walk never enters that directory.
func (gs gitignores) ignored(rel string, isDir bool) bool {
	for i := len(gs) - 1; i >= 0; i-- {
		g := gs[i]
		sub := rel
		if g.dir != "" {
			sub = strings.TrimPrefix(rel, g.dir+"/")
		}
		for j := len(g.patterns) - 1; j >= 0; j-- {
			if p := g.patterns[j]; p.match(sub, isDir) {
				return !p.negate
			}
		}
	}
	return false
}
