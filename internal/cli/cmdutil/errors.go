// Package cmdutil holds what every command shares: the Factory, typed
// errors with hints, and exit codes.
package cmdutil

import (
	"errors"
	"fmt"
)

// Exit codes (DESIGN.md).
const (
	ExitOK          = 0
	ExitError       = 1
	ExitUsage       = 2
	ExitNoModel     = 3
	ExitInterrupted = 130
)

// Error is a user-facing error with an exit code and a next step.
type Error struct {
	Code int
	Err  error
	Hint string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an exit-1 error with a hint.
func Errorf(hint, format string, args ...any) error {
	return &Error{Code: ExitError, Err: fmt.Errorf(format, args...), Hint: hint}
}

// WithHint wraps err with a hint, keeping its code.
func WithHint(err error, hint string) error {
	var e *Error
	if errors.As(err, &e) {
		return &Error{Code: e.Code, Err: e.Err, Hint: hint}
	}
	return &Error{Code: ExitError, Err: err, Hint: hint}
}

// FlagError is a usage error (exit 2); the command's usage is shown.
type FlagError struct {
	Err  error
	Hint string
}

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// FlagErrorf builds a usage error.
func FlagErrorf(format string, args ...any) error {
	return &FlagError{Err: fmt.Errorf(format, args...)}
}

// UsageError is a usage error whose message already says what to do; the
// usage text is not repeated.
func UsageError(hint, format string, args ...any) error {
	return &Error{Code: ExitUsage, Err: fmt.Errorf(format, args...), Hint: hint}
}

// ErrSilent exits 1 without printing (the command already explained).
var ErrSilent = errors.New("silent")

// Hinter is implemented by errors from other packages that know the next
// step (e.g. store.CorruptError).
type Hinter interface{ Hint() string }
