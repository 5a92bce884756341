package tools

// RemotePathsRefused is the notice for a remote question whose research
// pointer (a session default, or its first word) names local paths.
const RemotePathsRefused = "local paths are not read for questions that come through the daemon (remote policy); ingest them with `asky corpus ingest` and ask about the corpus instead"

// Remote is the policy for questions from a remote client (the daemon's
// transports): such a question never gets local-file or shell-ish
// abilities. It cannot make asky read paths on this machine, and tools
// marked Local (they read files by path or run local programs) are not
// offered. The corpus, the web and memory stay available. This is the
// one hook the transports' finer rules build on.
type Remote struct{}

// AllowsTool reports whether a remote question may use t.
func (Remote) AllowsTool(t *Tool) bool { return !t.Local }

// AllowsLocalPaths reports whether a remote question may read paths on
// this machine (a research pointer): never.
func (Remote) AllowsLocalPaths() bool { return false }

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
