package config

import (
	"os"
	"path/filepath"
)

// ResolvePaths decides where config, data, cache and state live:
// $ASKY_HOME for all of them when set, else the XDG base directories.
// getenv is injected so tests never depend on the real environment.
func ResolvePaths(getenv func(string) string) Paths {
	if h := getenv("ASKY_HOME"); h != "" {
		h = expandHome(h, getenv)
		return Paths{ConfigDir: h, DataDir: h, CacheDir: filepath.Join(h, "cache"), StateDir: h, DB: filepath.Join(h, "asky.db")}
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	xdg := func(env, fallback string) string {
		if v := getenv(env); v != "" && filepath.IsAbs(v) {
			return v
		}
		return filepath.Join(home, fallback)
	}
	p := Paths{
		ConfigDir: filepath.Join(xdg("XDG_CONFIG_HOME", ".config"), "asky"),
		DataDir:   filepath.Join(xdg("XDG_DATA_HOME", ".local/share"), "asky"),
		CacheDir:  filepath.Join(xdg("XDG_CACHE_HOME", ".cache"), "asky"),
		StateDir:  filepath.Join(xdg("XDG_STATE_HOME", ".local/state"), "asky"),
	}
	p.DB = filepath.Join(p.DataDir, "asky.db")
	return p
}

func expandHome(p string, getenv func(string) string) string {
	if p == "~" || len(p) > 1 && p[:2] == "~/" {
		home := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		return filepath.Join(home, p[1:])
	}
	return p
}

// DocumentRoots is [research] local_document_roots with a leading ~
// expanded (the values stay as written for `config get`): what the remote
// policy and chat uploads compare resolved paths against.
func (c *Config) DocumentRoots(getenv func(string) string) []string {
	roots := make([]string, 0, len(c.Research.LocalDocumentRoots))
	for _, r := range c.Research.LocalDocumentRoots {
		roots = append(roots, expandHome(r, getenv))
	}
	return roots
}

// ReportArchiveDir is where -o without a path writes HTML reports:
// [general] archive_dir with a leading ~ expanded, else <data dir>/archive.
func (c *Config) ReportArchiveDir(getenv func(string) string) string {
	if c.General.ArchiveDir != "" {
		return expandHome(c.General.ArchiveDir, getenv)
	}
	return filepath.Join(c.Paths.DataDir, "archive")
}
