package research

// This file turns the paths given to `corpus ingest` into targets:
// explicit files, globs and directory walks. The walk is where the
// safety rules live: hidden and vendor directories and what .gitignore
// excludes are left out, directory symlinks are never followed, and a
// file symlink that leads out of the tree is skipped, so a cloned
// repository cannot send files from elsewhere on the disk to the model.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// skipDirs are never descended into (besides hidden directories).
var skipDirs = map[string]bool{"vendor": true, "node_modules": true, "__pycache__": true, "venv": true}

// Target is a file to ingest, with its size for progress.
type Target struct {
	Path string
	Size int64
}

// Collect expands paths, directories (recursively, skipping hidden and
// vendor directories and what their .gitignore files exclude, never
// following directory symlinks, so loops are impossible) and globs into
// absolute file targets. Files named explicitly are never excluded.
// Problems become failed results.
func (in *Ingester) Collect(args []string) ([]Target, []FileResult) {
	var targets []Target
	var failed []FileResult
	seen := map[string]bool{}
	add := func(p string, explicit bool) {
		abs, err := filepath.Abs(p)
		if err != nil {
			failed = append(failed, FileResult{Path: p, Status: StatusFailed, Reason: err.Error()})
			return
		}
		if seen[abs] {
			return
		}
		if !in.allowed(abs) {
			if explicit {
				failed = append(failed, FileResult{Path: p, Status: StatusFailed, Reason: fmt.Sprintf("unsupported file type %q", filepath.Ext(p))})
			}
			return
		}
		fi, err := os.Stat(abs)
		if err != nil {
			failed = append(failed, FileResult{Path: p, Status: StatusFailed, Reason: statReason(err)})
			return
		}
		if !fi.Mode().IsRegular() {
			failed = append(failed, FileResult{Path: p, Status: StatusFailed, Reason: "not a regular file"})
			return
		}
		seen[abs] = true
		targets = append(targets, Target{Path: abs, Size: fi.Size()})
	}
	for _, arg := range args {
		fi, err := os.Stat(arg)
		if err != nil {
			if matches, gerr := filepath.Glob(arg); gerr == nil && len(matches) > 0 && strings.ContainsAny(arg, "*?[") {
				for _, m := range matches {
					if st, err := os.Stat(m); err == nil && st.IsDir() {
						in.walk(m, add, &failed)
					} else if reason := escapesRoot(filepath.Dir(m), m); reason != "" {
						failed = append(failed, FileResult{Path: m, Status: StatusSkipped, Reason: reason})
					} else {
						add(m, false)
					}
				}
				continue
			}
			failed = append(failed, FileResult{Path: arg, Status: StatusFailed, Reason: statReason(err)})
			continue
		}
		if fi.IsDir() {
			in.walk(arg, add, &failed)
			continue
		}
		add(arg, true)
	}
	return targets, failed
}

func statReason(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// walk adds the files below root, leaving out what the .gitignore files
// at or below root exclude.
func (in *Ingester) walk(root string, add func(string, bool), failed *[]FileResult) {
	var ignores gitignores
	walkRoot := root
	if fi, err := os.Lstat(root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// A root that is a link to a directory is walked through the link
		// (a trailing separator makes WalkDir follow it); links met inside
		// are still never followed.
		walkRoot = root + string(filepath.Separator)
	}
	_ = filepath.WalkDir(walkRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			*failed = append(*failed, FileResult{Path: p, Status: StatusFailed, Reason: statReason(err)})
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		name := d.Name()
		rel, _ := filepath.Rel(root, p)
		if rel = filepath.ToSlash(rel); rel == "." {
			rel = ""
		}
		ignores = ignores.within(rel)
		if d.IsDir() {
			if p != walkRoot && (strings.HasPrefix(name, ".") || skipDirs[name] || ignores.ignored(rel, true)) {
				return fs.SkipDir
			}
			if data, err := os.ReadFile(filepath.Join(p, ".gitignore")); err == nil {
				ignores = append(ignores, parseGitignore(rel, string(data)))
			}
			return nil
		}
		if strings.HasPrefix(name, ".") || ignores.ignored(rel, false) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// Follow links to files inside the tree; links to directories
			// are not walked. A link out of the tree is never read: a
			// cloned repository must not be able to send ~/.ssh/id_ed25519
			// to the model through docs/notes.md -> ~/.ssh/id_ed25519.
			if reason := escapesRoot(root, p); reason != "" {
				*failed = append(*failed, FileResult{Path: p, Status: StatusSkipped, Reason: reason})
				return nil
			}
			if st, err := os.Stat(p); err != nil || st.IsDir() {
				return nil
			}
		}
		if plainName(p) && !sniffFile(p) {
			return nil // an extensionless binary, not a document
		}
		add(p, false)
		return nil
	})
}

// escapesRoot says why the symlink p must not be followed from a walk of
// root: it resolves (through every link on the way) to a place outside
// root, or cannot be resolved at all. "" means p stays inside root.
func escapesRoot(root, p string) string {
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return ""
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err == nil {
		realRoot, err = filepath.Abs(realRoot)
	}
	if err != nil {
		return "symlink not followed: " + statReason(err)
	}
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "" // a dangling link: nothing to read, ingest reports it if named
	}
	if target, err = filepath.Abs(target); err != nil {
		return "symlink not followed: " + statReason(err)
	}
	if rel, err := filepath.Rel(realRoot, target); err != nil || !filepath.IsLocal(rel) {
		return "symlink leads outside " + root + " (to " + target + "); name the file explicitly to ingest it"
	}
	return ""
}

func sniffFile(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return true // let ingest report the error
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	return SniffText(head[:n])
}

func (in *Ingester) allowed(p string) bool {
	if FormatOf(p) == "" {
		return false
	}
	if len(in.Allowed) == 0 {
		return true
	}
	ext := strings.ToLower(filepath.Ext(p))
	for _, a := range in.Allowed {
		if strings.EqualFold(strings.TrimPrefix(a, "."), strings.TrimPrefix(ext, ".")) {
			return true
		}
	}
	return false
}
