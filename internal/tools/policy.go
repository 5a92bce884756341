package tools

import (
	"path/filepath"
)

// Remote is the policy for questions from a remote client (the daemon's
// transports): such a question never gets local-file or shell-ish
// abilities beyond what the user opened to it. Tools marked Local (they
// read files by path or run local programs) are not offered, and a
// research pointer may only name paths inside the configured document
// roots ([research] local_document_roots), checked after every symlink is
// resolved. The corpus, the web and memory stay available. This is the
// one hook the transports' finer rules build on.
type Remote struct {
	// Roots are the document roots remote questions may read below.
	Roots []string
}

// AllowsTool reports whether a remote question may use t.
func (Remote) AllowsTool(t *Tool) bool { return !t.Local }

// AllowsPath reports whether a remote question may read path: only when
// it resolves (symlinks followed) to a place inside one of the roots.
func (p Remote) AllowsPath(path string) bool {
	real, err := resolvePath(path)
	if err != nil {
		return false
	}
	for _, r := range p.Roots {
		root, err := resolvePath(r)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(root, real); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

func resolvePath(p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	return filepath.Abs(real)
}

// FilterPaths splits paths into those a remote question may read and the
// refused ones.
func (p Remote) FilterPaths(paths []string) (allowed, refused []string) {
	for _, path := range paths {
		if p.AllowsPath(path) {
			allowed = append(allowed, path)
		} else {
			refused = append(refused, path)
		}
	}
	return allowed, refused
}

// RefusedNotice is the notice for pointer paths a remote question may not
// read; it counts them and never echoes the paths to the remote client.
func (Remote) RefusedNotice(n int) string {
	what := "a local path"
	if n > 1 {
		what = "local paths"
	}
	return "not reading " + what + " for a question that came through the daemon: only [research] local_document_roots are open to remote questions"
}

// Apply removes from reg the tools a remote question may not use and
// returns their names.
func (p Remote) Apply(reg *Registry) []string {
	var removed []string
	for _, t := range reg.Tools() {
		if !p.AllowsTool(t) {
			removed = append(removed, t.Name)
		}
	}
	reg.Remove(removed...)
	return removed
}
