package xmpp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"sync"

	"mellium.im/xmpp/jid"
	"mellium.im/xmpp/stanza"

	"github.com/askygo/asky/internal/daemon"
)

// minChunk keeps chunks from shrinking to a few characters when the only
// newline is near the start (the original's minimum).
const minChunk = 64

// outMessage is an outgoing chat message, optionally correcting an
// earlier one (XEP-0308).
type outMessage struct {
	stanza.Message
	Body    string   `xml:"body"`
	Replace *replace `xml:"urn:xmpp:message-correct:0 replace,omitempty"`
}

type replace struct {
	ID string `xml:"id,attr"`
}

// output sends one answer: a status message corrected in place, then the
// answer in chunks. It implements daemon.ChatOutput.
type output struct {
	t   *Transport
	to  jid.JID
	typ stanza.MessageType

	mu       sync.Mutex
	statusID string
}

var _ daemon.ChatOutput = (*output)(nil)

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func (o *output) message(body string) outMessage {
	return outMessage{Message: stanza.Message{XMLName: xml.Name{Local: "message"}, ID: newID(), To: o.to, Type: o.typ}, Body: body}
}

// Status sends the first status line, then corrects it. A status that
// cannot go out now is skipped: the answer matters, not the progress.
func (o *output) Status(ctx context.Context, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	m := o.message(text)
	if o.statusID != "" {
		m.Replace = &replace{ID: o.statusID}
	}
	if err := o.t.send(ctx, m, false); err != nil {
		return
	}
	if o.statusID == "" {
		o.statusID = m.ID
	}
}

// Final closes the status line and sends the answer, chunked at
// response_chunk_chars on line boundaries, waiting for a reconnect if the
// connection is down.
func (o *output) Final(ctx context.Context, text string, failed bool) {
	o.mu.Lock()
	sid := o.statusID
	o.mu.Unlock()
	if sid != "" {
		done := "✓ Done"
		if failed {
			done = "✗ Failed"
		}
		m := o.message(done)
		m.Replace = &replace{ID: sid}
		_ = o.t.send(ctx, m, false)
	}
	if !failed {
		text = Styled(text)
	}
	limit := o.t.o.Config.ResponseChunkChars
	for i, part := range daemon.Split(text, limit, minChunk) {
		if err := o.t.send(ctx, o.message(part), true); err != nil {
			fmt.Fprintf(o.t.o.Log, "xmpp: answer to %s (part %d) not delivered: %v\n", o.to, i+1, err)
			return
		}
	}
}
