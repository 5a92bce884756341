// Package build holds values stamped in at link time.
package build

// Version is set with -ldflags "-X github.com/askygo/asky/internal/build.Version=…".
var Version = "dev"
