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

// maxBody bounds one message body in bytes whatever response_chunk_chars
// says (0 means no splitting): Prosody closes the stream on a stanza
// over c2s_stanza_size_limit (256 KiB by default), and escaping can grow
// a body fivefold (" becomes &#34;).
const maxBody = 48 << 10

// outMessage is an outgoing chat message, optionally correcting an
// earlier one (XEP-0308).
type outMessage struct {
	stanza.Message
	Body    string   `xml:"body"`
	Replace *replace `xml:"urn:xmpp:message-correct:0 replace,omitempty"`
	HTML    *xhtmlIM `xml:",omitempty"`
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

// again is a new output to the same chat, for a second answer to one
// message (its question after its files' acknowledgement).
func (o *output) again() *output { return &output{t: o.t, to: o.to, typ: o.typ} }

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
	var html *xhtmlIM
	if !failed {
		text, html = Styled(text), xhtml(text)
	}
	if err := o.chunks(ctx, text, html); err != nil {
		fmt.Fprintf(o.t.o.Log, "xmpp: answer to %s %v\n", o.to, err)
	}
}

// chunks sends text in response_chunk_chars pieces on line boundaries,
// each waiting for a reconnect if the connection is down; it stops at the
// first piece that cannot go out. html goes with a text sent whole.
func (o *output) chunks(ctx context.Context, text string, html *xhtmlIM) error {
	parts := daemon.Split(text, o.t.o.Config.ResponseChunkChars, maxBody, minChunk)
	for i, part := range parts {
		m := o.message(part)
		if len(parts) == 1 && len(part) <= maxBody/2 { // both under the stanza limit
			m.HTML = html
		}
		if err := o.t.send(ctx, m, true); err != nil {
			return fmt.Errorf("(part %d of %d) not delivered: %w", i+1, len(parts), err)
		}
	}
	return nil
}

// Deliver sends markdown text unprompted (a scheduled job's answer) as a
// chat message to a JID that allowed_jids admits, styled and chunked as
// an answer. While the connection is down it waits up to DeliveryWait for
// a reconnect, then fails: the caller records the failure.
func (t *Transport) Deliver(ctx context.Context, to, text string) error {
	j, err := jid.Parse(to)
	if err != nil || j.Localpart() == "" {
		return fmt.Errorf("xmpp:%s is not a user@domain address", to)
	}
	if !t.allow.allows(j) {
		return fmt.Errorf("refused to deliver to xmpp:%s: not in [xmpp] allowed_jids", j)
	}
	o := &output{t: t, to: j, typ: stanza.ChatMessage}
	if err := o.chunks(ctx, Styled(text), xhtml(text)); err != nil {
		return fmt.Errorf("xmpp:%s %w", j, err)
	}
	return nil
}
