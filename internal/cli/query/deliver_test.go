package query

import (
	"context"
	"strings"
	"testing"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/deliver/delivertest"
	"github.com/askygo/asky/internal/iostreams"
	"github.com/askygo/asky/internal/turn"
)

// TestDeliveryBlockedForRemote: a daemon question never mails or pushes,
// even with the options set.
func TestDeliveryBlockedForRemote(t *testing.T) {
	s, err := delivertest.NewSMTPSink()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cfg := config.Defaults()
	cfg.Email = config.Email{SMTPHost: "127.0.0.1", SMTPPort: s.Port(), FromAddress: "a@example.org", SMTPUseTLS: true, InsecureSkipVerify: true}
	ios, _, _, errOut := iostreams.Test()
	opts := &Options{IO: ios, Remote: true, SendMail: "b@example.org", PushData: "hook"}
	if err := checkDelivery(opts, cfg); err == nil || !strings.Contains(err.Error(), "remote") {
		t.Errorf("check: %v", err)
	}
	sx := &sessionTurn{opts: opts, cfg: cfg}
	sx.deliverAnswer(context.Background(), &turn.Result{Answer: "secret answer"})
	if len(s.Mails()) != 0 || !strings.Contains(errOut.String(), "not available to remote questions") {
		t.Errorf("mails %d, stderr %q", len(s.Mails()), errOut)
	}
}
