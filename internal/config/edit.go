package config

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// A minimal in-place TOML editor. Re-encoding a whole file would drop the
// user's comments and reorder their tables, so `config set` and `config
// model add|edit` change only the line that holds the key (or insert one
// line into the right table, or append a new table). The caller verifies
// the edit by parsing the result; when a file is too unusual for this
// editor (inline tables, dotted keys defining the table elsewhere) the
// caller falls back to re-encoding.

// lexState tracks what spans lines: multi-line strings and open brackets.
type lexState struct {
	ml    string // `"""` or `'''` while inside a multi-line string
	depth int    // open [ and { outside strings
}

func (s lexState) clean() bool { return s.ml == "" && s.depth <= 0 }

// scanLine advances st over one line and returns the byte offset of a
// comment (#) outside strings, or -1.
func scanLine(line string, st *lexState) int {
	i := 0
	for i < len(line) {
		if st.ml != "" {
			j := strings.Index(line[i:], st.ml)
			if j < 0 {
				return -1
			}
			// In basic multi-line strings a backslash escapes the quote.
			if st.ml == `"""` && j > 0 && escaped(line[i:i+j]) {
				i += j + 1
				continue
			}
			i += j + 3
			for i < len(line) && line[i] == st.ml[0] { // up to two extra quotes belong to the string
				i++
			}
			st.ml = ""
			continue
		}
		switch c := line[i]; c {
		case '#':
			return i
		case '"', '\'':
			if strings.HasPrefix(line[i:], strings.Repeat(string(c), 3)) {
				st.ml = strings.Repeat(string(c), 3)
				i += 3
				continue
			}
			i++
			for i < len(line) && line[i] != c {
				if c == '"' && line[i] == '\\' {
					i++
				}
				i++
			}
			i++
		case '[', '{':
			st.depth++
			i++
		case ']', '}':
			st.depth--
			i++
		default:
			i++
		}
	}
	return -1
}

// escaped reports whether s ends in an odd number of backslashes.
func escaped(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// parseKeyPath parses a dotted TOML key with bare and quoted segments.
func parseKeyPath(s string) ([]string, bool) {
	var out []string
	s = strings.TrimSpace(s)
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return nil, false
		}
		var seg string
		switch s[0] {
		case '"':
			end := 1
			for end < len(s) && s[end] != '"' {
				if s[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(s) {
				return nil, false
			}
			u, err := strconv.Unquote(s[:end+1])
			if err != nil {
				return nil, false
			}
			seg, s = u, s[end+1:]
		case '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, false
			}
			seg, s = s[1:end+1], s[end+2:]
		default:
			end := 0
			for end < len(s) && isBareKeyChar(s[end]) {
				end++
			}
			if end == 0 {
				return nil, false
			}
			seg, s = s[:end], s[end:]
		}
		out = append(out, seg)
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out, true
		}
		if s[0] != '.' {
			return nil, false
		}
		s = s[1:]
	}
}

func isBareKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// formatKey writes a dotted key, quoting segments that are not bare.
func formatKey(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		bare := p != ""
		for j := 0; j < len(p); j++ {
			if !isBareKeyChar(p[j]) {
				bare = false
				break
			}
		}
		if bare {
			parts[i] = p
		} else {
			parts[i] = strconv.Quote(p)
		}
	}
	return strings.Join(parts, ".")
}

// tomlLiteral renders v as a TOML value.
func tomlLiteral(v any) (string, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(map[string]any{"v": v}); err != nil {
		return "", err
	}
	return strings.TrimSpace(strings.TrimPrefix(buf.String(), "v = ")), nil
}

type stmtKind int

const (
	stmtOther stmtKind = iota
	stmtTable
	stmtArrayTable
	stmtKeyVal
)

type stmt struct {
	kind       stmtKind
	path       []string // table path, or the full path of a key
	start, end int      // line indices, inclusive
	eq         int      // offset of '=' in the start line
	comment    int      // offset of a trailing comment in the end line, or -1
}

func scanStatements(lines []string) []stmt {
	var out []stmt
	var table []string
	inArray := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trim := strings.TrimSpace(line)
		switch {
		case trim == "" || trim[0] == '#':
			out = append(out, stmt{kind: stmtOther, start: i, end: i})
		case strings.HasPrefix(trim, "[["):
			end := strings.Index(trim, "]]")
			p, _ := parseKeyPath(trim[2:max(end, 2)])
			table, inArray = p, true
			out = append(out, stmt{kind: stmtArrayTable, path: p, start: i, end: i})
		case trim[0] == '[':
			end := strings.LastIndexByte(strings.SplitN(trim, "#", 2)[0], ']')
			p, ok := parseKeyPath(trim[1:max(end, 1)])
			// Keys under a header we cannot read are never edited.
			table, inArray = p, !ok
			out = append(out, stmt{kind: stmtTable, path: p, start: i, end: i})
		default:
			eq := keyEq(line)
			s := stmt{kind: stmtKeyVal, start: i, eq: eq, comment: -1}
			if eq > 0 && !inArray {
				if k, ok := parseKeyPath(line[:eq]); ok {
					s.path = append(append([]string{}, table...), k...)
				}
			}
			var st lexState
			if eq >= 0 {
				s.comment = scanLine(line[eq+1:], &st)
				if s.comment >= 0 {
					s.comment += eq + 1
				}
			}
			for !st.clean() && i+1 < len(lines) {
				i++
				s.comment = scanLine(lines[i], &st)
			}
			s.end = i
			if s.path == nil {
				s.kind = stmtOther
			}
			out = append(out, s)
		}
	}
	return out
}

// keyEq finds the '=' that ends the key part of a key/value line.
func keyEq(line string) int {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '=':
			return i
		case '"', '\'':
			q := line[i]
			i++
			for i < len(line) && line[i] != q {
				if q == '"' && line[i] == '\\' {
					i++
				}
				i++
			}
		}
	}
	return -1
}

func equalPath(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// insertInTable inserts `rest = lit` after the last key of the [table]
// section, reporting false when there is no such header.
func insertInTable(lines []string, stmts []stmt, table, rest []string, lit string) ([]string, bool) {
	for i, s := range stmts {
		if s.kind != stmtTable || !equalPath(s.path, table) {
			continue
		}
		at := s.end
		for _, n := range stmts[i+1:] {
			if n.kind == stmtTable || n.kind == stmtArrayTable {
				break
			}
			if n.kind == stmtKeyVal || strings.TrimSpace(lines[n.start]) != "" && !strings.HasPrefix(strings.TrimSpace(lines[n.start]), "#") {
				at = n.end
			}
		}
		out := append([]string{}, lines[:at+1]...)
		out = append(out, formatKey(rest)+" = "+lit)
		return append(out, lines[at+1:]...), true
	}
	return nil, false
}

// editTOML returns src with the key at path set to the TOML literal lit:
// the value is replaced in place when the key exists, inserted at the end
// of its table when the table exists, else a new table is appended.
func editTOML(src []byte, path []string, lit string) []byte {
	nl := "\n"
	if bytes.Contains(src, []byte("\r\n")) {
		nl = "\r\n"
	}
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	text = strings.TrimSuffix(text, "\n")
	var lines []string
	if text != "" {
		lines = strings.Split(text, "\n")
	}
	stmts := scanStatements(lines)
	join := func(ls []string) []byte {
		return []byte(strings.Join(ls, nl) + nl)
	}

	// 1. The key exists: replace its value, keeping a trailing comment.
	for _, s := range stmts {
		if s.kind == stmtKeyVal && equalPath(s.path, path) {
			newLine := strings.TrimRight(lines[s.start][:s.eq], " \t") + " = " + lit
			if s.comment >= 0 {
				newLine += " " + lines[s.end][s.comment:]
			}
			out := append([]string{}, lines[:s.start]...)
			out = append(out, newLine)
			out = append(out, lines[s.end+1:]...)
			return join(out)
		}
	}
	// 2. The parent table exists as a [header]: insert after its last key.
	// 2b. Else a deeper-than-top-level ancestor does ([models.a] for
	//     models.a.parameters.temperature): insert a dotted key there, so a
	//     model's settings stay together.
	parent, leaf := path[:len(path)-1], path[len(path)-1:]
	for cut := len(parent); cut >= 1; cut-- {
		if cut < len(parent) && cut < 2 {
			break // a top-level table like [models] gets a new [models.x] instead
		}
		if out, ok := insertInTable(lines, stmts, path[:cut], path[cut:], lit); ok {
			return join(out)
		}
	}
	// 3. Append a new table.
	out := append([]string{}, lines...)
	if len(parent) == 0 {
		// A top-level key must come before the first table.
		first := len(lines)
		for _, s := range stmts {
			if s.kind == stmtTable || s.kind == stmtArrayTable {
				first = s.start
				break
			}
		}
		out = append(append(append([]string{}, lines[:first]...), formatKey(leaf)+" = "+lit), lines[first:]...)
		return join(out)
	}
	if len(out) > 0 && strings.TrimSpace(out[len(out)-1]) != "" {
		out = append(out, "")
	}
	out = append(out, "["+formatKey(parent)+"]", formatKey(leaf)+" = "+lit)
	return join(out)
}
