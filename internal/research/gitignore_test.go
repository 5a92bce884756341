package research

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// ignoredInTree decides a path the way walk does: the .gitignore files of
// the directories around it apply, and a path inside an excluded
// directory is excluded because the walk never enters it. files maps a
// directory ("" for the root) to its .gitignore; a trailing "/" marks p as
// a directory.
func ignoredInTree(files map[string]string, p string) bool {
	isDir := strings.HasSuffix(p, "/")
	parts := strings.Split(strings.TrimSuffix(p, "/"), "/")
	var gs gitignores
	if data, ok := files[""]; ok {
		gs = append(gs, parseGitignore("", data))
	}
	for i := range parts {
		rel := strings.Join(parts[:i+1], "/")
		last := i == len(parts)-1
		if gs.ignored(rel, !last || isDir) {
			return true
		}
		if data, ok := files[rel]; ok && !last {
			gs = append(gs, parseGitignore(rel, data))
		}
	}
	return false
}

func TestGitignoreMatch(t *testing.T) {
	root := func(lines ...string) map[string]string {
		return map[string]string{"": strings.Join(lines, "\n") + "\n"}
	}
	tests := []struct {
		name  string
		files map[string]string
		path  string
		want  bool
	}{
		{"no rules", nil, "a.md", false},
		{"name", root("a.md"), "a.md", true},
		{"name at depth", root("a.md"), "x/y/a.md", true},
		{"other name", root("a.md"), "b.md", false},
		{"star", root("*.log"), "x/debug.log", true},
		{"star stays in a segment", root("x*y"), "x/y", false},
		{"question mark", root("?.md"), "a.md", true},
		{"question mark is one char", root("?.md"), "ab.md", false},
		{"class", root("[ab].md"), "b.md", true},
		{"class miss", root("[ab].md"), "c.md", false},
		{"range", root("v[0-9].md"), "v7.md", true},
		{"bang class", root("*.[!m]d"), "a.xd", true},
		{"bang class miss", root("*.[!m]d"), "a.md", false},
		{"caret class", root("*.[^m]d"), "a.md", false},
		{"bracket first in class", root("[]a].md"), "].md", true},
		{"unclosed class never matches", root("[ab"), "[ab", false},
		{"dir only matches a dir", root("build/"), "build/", true},
		{"dir only not a file", root("build/"), "build", false},
		{"dir only at depth", root("build/"), "x/build/", true},
		{"dir only excludes contents", root("build/"), "build/out.md", true},
		{"plain name matches a dir too", root("build"), "x/build/", true},
		{"leading slash anchors", root("/a.md"), "a.md", true},
		{"leading slash not deeper", root("/a.md"), "x/a.md", false},
		{"middle slash anchors", root("doc/a.md"), "doc/a.md", true},
		{"middle slash not deeper", root("doc/a.md"), "x/doc/a.md", false},
		{"anchored dir", root("/out/"), "out/", true},
		{"anchored dir not deeper", root("/out/"), "x/out/", false},
		{"anchored star", root("doc/*.md"), "doc/a.md", true},
		{"anchored star one segment", root("doc/*.md"), "doc/x/a.md", false},
		{"leading **", root("**/gen"), "a/b/gen", true},
		{"leading ** at top", root("**/gen"), "gen", true},
		{"leading ** with path", root("**/gen/a.md"), "x/gen/a.md", true},
		{"leading ** with path miss", root("**/gen/a.md"), "gen/x/a.md", false},
		{"trailing **", root("gen/**"), "gen/x/y.md", true},
		{"trailing ** not the dir itself", root("gen/**"), "gen/", false},
		{"trailing ** anchored", root("gen/**"), "x/gen/y.md", false},
		{"middle **", root("a/**/b.md"), "a/x/y/b.md", true},
		{"middle ** zero dirs", root("a/**/b.md"), "a/b.md", true},
		{"middle ** miss", root("a/**/b.md"), "a/x/c.md", false},
		{"repeated **", root("a/**/**/b.md"), "a/b.md", true},
		{"** inside a segment is *", root("a**z"), "abcz", true},
		{"lone **", root("**"), "x/y.md", true},
		{"negation", root("*.md", "!keep.md"), "keep.md", false},
		{"negation keeps others out", root("*.md", "!keep.md"), "other.md", true},
		{"last match wins", root("!keep.md", "*.md"), "keep.md", true},
		{"parent excluded cannot be re-included", root("build/", "!build/keep.md"), "build/keep.md", true},
		{"contents excluded can be re-included", root("build/*", "!build/keep.md"), "build/keep.md", false},
		{"trailing ** can be re-included", root("gen/**", "!gen/api.md"), "gen/api.md", false},
		{"comment", root("#a.md"), "#a.md", false},
		{"escaped hash", root(`\#a.md`), "#a.md", true},
		{"escaped bang", root(`\!a.md`), "!a.md", true},
		{"escaped bang is not negation", root("*.md", `\!a.md`), "a.md", true},
		{"blank lines", root("", "   ", "a.md"), "a.md", true},
		{"trailing spaces trimmed", root("a.md   "), "a.md", true},
		{"line of spaces is blank", root("   "), "   ", false},
		{"trailing tab kept", root("a.md\t"), "a.md", false},
		{"escaped trailing space kept", root(`a\ `), "a ", true},
		{"escaped trailing space not trimmed away", root(`a\ `), "a", false},
		{"escaped star", root(`\*.md`), "x.md", false},
		{"escaped star literal", root(`\*.md`), "*.md", true},
		{"leading spaces kept", root(" a.md"), "a.md", false},
		{"CRLF", map[string]string{"": "a.md\r\nb.md\r\n"}, "b.md", true},
		{"no final newline", map[string]string{"": "a.md"}, "a.md", true},
		{"BOM", map[string]string{"": "\ufeffa.md\n"}, "a.md", true},
		{"lone slash", root("/"), "a.md", false},
		{"lone bang", root("!"), "!", false},
		{"trailing backslash never matches", root(`a\`), `a\`, false},
		{"nested applies below", map[string]string{"sub": "*.md"}, "sub/a.md", true},
		{"nested does not apply beside", map[string]string{"sub": "*.md"}, "a.md", false},
		{"nested anchored to its dir", map[string]string{"sub": "/a.md"}, "sub/a.md", true},
		{"nested anchored not deeper", map[string]string{"sub": "/a.md"}, "sub/x/a.md", false},
		{"nested middle slash", map[string]string{"sub": "x/a.md"}, "sub/x/a.md", true},
		{"nested re-includes", map[string]string{"": "*.md", "sub": "!keep.md"}, "sub/keep.md", false},
		{"nested re-include is local", map[string]string{"": "*.md", "sub": "!keep.md"}, "keep.md", true},
		{"nested excludes", map[string]string{"": "!a.md", "sub": "a.md"}, "sub/a.md", true},
		{"deeper wins over later", map[string]string{"": "*.md\n!*.md", "a/b": "x.md"}, "a/b/x.md", true},
		{"deeper undecided falls back", map[string]string{"": "*.md", "sub": "*.txt"}, "sub/a.md", true},
		{"nested cannot re-include an excluded dir", map[string]string{"": "sub/", "sub": "!*"}, "sub/a.md", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ignoredInTree(tt.files, tt.path); got != tt.want {
				t.Errorf("%q with %q: ignored %v, want %v", tt.path, tt.files, got, tt.want)
			}
		})
	}
}

func FuzzGitignorePattern(f *testing.F) {
	for _, s := range []string{"*.md", "/a", "a/", "!a", `\!a`, `\#a`, "a/**/b", "**/a", "a/**", "**", "[a-", "[!a]", "[]]", `a\`, `a\ `, "/", "//", "***/a", "a/**/**/**/b", "\r", "[[:alpha:]]"} {
		f.Add(s, "a/b/c.md")
	}
	f.Fuzz(func(t *testing.T, pattern, rel string) {
		g := parseGitignore("", pattern)
		for _, isDir := range []bool{false, true} {
			gitignores{g}.ignored(rel, isDir)
		}
		// A negation alone never excludes anything.
		if !strings.ContainsAny(pattern, "\r\n") {
			if (gitignores{parseGitignore("", "!"+pattern)}).ignored(rel, false) {
				t.Fatalf("!%q excludes %q", pattern, rel)
			}
		}
	})
}

func TestCollectHonoursGitignore(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		".gitignore":              "# build output\nbuild/\n/out.md\n*.txt\ngen/**\n!gen/api.md\ncache/\n",
		"a.md":                    "a",
		"out.md":                  "generated",
		"cache":                   "a file, not a directory",
		"cache2/cache/x.md":       "cached",
		"build/b.md":              "built",
		"build/.gitignore":        "!b.md\n",
		"gen/api.md":              "api",
		"gen/other.md":            "other",
		"notes.txt":               "notes",
		"sub/out.md":              "not anchored here",
		"sub/keep.txt":            "kept",
		"sub/drop.txt":            "dropped",
		"sub/.gitignore":          "!keep.txt\n",
		"sub/deep/.gitignore":     "*.md\n",
		"sub/deep/x.md":           "x",
		"sub/deep/keep.txt":       "still kept",
		"sub2/keep.txt":           "sub's rule does not reach here",
		"sub2/y.md":               "y",
		"vendor/.gitignore":       "",
		"docs/gen/.gitignore":     "*\n!.gitignore\n!*.md\n",
		"docs/gen/ref.md":         "ref",
		"docs/gen/ref.html":       "<p>ref</p>",
		"docs/gen/nested/more.md": "a directory excluded by * is not entered",
	} {
		write(t, filepath.Join(dir, filepath.FromSlash(name)), body)
	}
	in := &Ingester{}
	collect := func(args ...string) []string {
		t.Helper()
		targets, failed := in.Collect(args)
		if len(failed) > 0 {
			t.Fatalf("failed: %+v", failed)
		}
		var got []string
		for _, tg := range targets {
			rel, _ := filepath.Rel(dir, tg.Path)
			got = append(got, filepath.ToSlash(rel))
		}
		sort.Strings(got)
		return got
	}
	want := "a.md cache docs/gen/ref.md gen/api.md sub/deep/keep.txt sub/keep.txt sub/out.md sub2/y.md"
	if got := strings.Join(collect(dir), " "); got != want {
		t.Errorf("walk:\n got %s\nwant %s", got, want)
	}
	// Explicit files are never excluded, and the walk root's parents'
	// .gitignore files do not apply.
	if got := strings.Join(collect(filepath.Join(dir, "out.md"), filepath.Join(dir, "notes.txt")), " "); got != "notes.txt out.md" {
		t.Errorf("explicit files: %s", got)
	}
	if got := strings.Join(collect(filepath.Join(dir, "sub2")), " "); got != "sub2/keep.txt sub2/y.md" {
		t.Errorf("walk of a subdirectory: %s", got)
	}
}
