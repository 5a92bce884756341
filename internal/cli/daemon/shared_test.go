package daemon

import (
	"errors"
	"fmt"
	"testing"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
)

// TestRequestErrorBlamesTheRightSide checks that an unknown alias the
// client asked for is its error (400), while a wrong default in the
// daemon's own config is the daemon's (500).
func TestRequestErrorBlamesTheRightSide(t *testing.T) {
	var re *daemon.RequestError
	asked := fmt.Errorf("turn: %w", &config.UnknownAliasError{Alias: "gtp4", Aliases: []string{"gpt4"}})
	if !errors.As(requestError(asked), &re) {
		t.Fatalf("an alias the client asked for is not a request error: %v", requestError(asked))
	}
	configured := fmt.Errorf("turn: %w", &config.UnknownAliasError{Alias: "gone", Aliases: []string{"gpt4"}, From: "general.default_model"})
	if errors.As(requestError(configured), &re) {
		t.Fatalf("the daemon's own default_model is blamed on the client: %v", requestError(configured))
	}
}
