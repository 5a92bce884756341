package xmpp

import (
	"context"
	"encoding/xml"
	"fmt"
	"sync/atomic"
	"time"

	"mellium.im/xmlstream"
	"mellium.im/xmpp"
	"mellium.im/xmpp/stanza"
)

// nsSM is stream management (XEP-0198).
const nsSM = "urn:xmpp:sm:3"

// smState is a connection's stream management, without resumption: the
// bot acknowledges the stanzas it received, so when a connection dies
// the server knows which messages never arrived and stores them offline
// (they are answered at the next login) or bounces them, instead of
// losing them in the dead socket.
type smState struct {
	on atomic.Bool
	h  atomic.Uint32 // stanzas received since the server enabled it
}

// count counts a received stanza.
func (m *smState) count(start *xml.StartElement) {
	if !m.on.Load() {
		return
	}
	switch start.Name.Local {
	case "message", "presence", "iq":
		if start.Name.Space == "" || start.Name.Space == stanza.NSClient {
			m.h.Add(1)
		}
	}
}

type smAck struct {
	XMLName xml.Name `xml:"urn:xmpp:sm:3 a"`
	H       uint32   `xml:"h,attr"`
}

// handle answers the server's stream management elements.
func (m *smState) handle(t *Transport, r xmlstream.Encoder, start *xml.StartElement) error {
	switch start.Name.Local {
	case "enabled":
		m.on.Store(true)
	case "failed":
		fmt.Fprintf(t.o.Log, "xmpp: the server refused stream management (XEP-0198); messages sent to the bot while a connection dies can be lost\n")
	case "r":
		if m.on.Load() {
			return r.Encode(smAck{H: m.h.Load()})
		}
	}
	return nil
}

// ackNow acknowledges everything received, before the bot closes the
// stream: the server would otherwise store the unacknowledged messages
// again and they would be asked twice.
func (m *smState) ackNow(s *xmpp.Session) {
	if !m.on.Load() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = s.Encode(writeCtx(ctx), smAck{H: m.h.Load()})
}

// enableSM asks for stream management when the server offers it.
func enableSM(ctx context.Context, s *xmpp.Session) error {
	if _, ok := s.Feature(nsSM); !ok {
		return nil
	}
	return s.Send(ctx, xmlstream.Wrap(nil, xml.StartElement{Name: xml.Name{Space: nsSM, Local: "enable"}}))
}

// writeCtx is ctx without its cancellation, for the session's writes.
// mellium's Encode and Send start a goroutine that sets the connection's
// write deadline to the past when their context is done; it may run only
// after the write returned, when another goroutine is writing, whose
// write then fails half way ("i/o timeout") and breaks the stream — seen
// when a context was cancelled right after a write. A stuck write ends
// when the socket is closed: by the keepalive when pings go unanswered,
// by the login deadline, or at stop.
func writeCtx(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }
