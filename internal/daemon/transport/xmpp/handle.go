package xmpp

import (
	"encoding/xml"
	"fmt"
	"slices"
	"strings"
	"time"

	"mellium.im/xmlstream"
	"mellium.im/xmpp/jid"
	"mellium.im/xmpp/stanza"

	"github.com/askygo/asky/internal/daemon"
)

// Namespaces of the payloads read here.
const (
	nsOOB       = "jabber:x:oob"
	nsDelay     = "urn:xmpp:delay"
	nsMUCUser   = "http://jabber.org/protocol/muc#user"
	nsConf      = "jabber:x:conference"
	nsCorrect   = "urn:xmpp:message-correct:0"
	nsMUC       = "http://jabber.org/protocol/muc"
	dropLogEach = time.Hour
)

// inMessage is the part of an incoming message stanza asky reads.
type inMessage struct {
	stanza.Message
	Body string `xml:"body"`
	OOB  []struct {
		URL string `xml:"url"`
	} `xml:"jabber:x:oob x"`
	// Delay marks a message stored while the bot was away (offline
	// storage, room history), stamped when it was sent (XEP-0203).
	Delay *struct {
		Stamp string `xml:"stamp,attr"`
	} `xml:"urn:xmpp:delay delay"`
	// Subject, even empty, ends the history a room sends at a join.
	Subject *struct {
		Text string `xml:",chardata"`
	} `xml:"subject"`
	// OriginID is the sender's stable id (XEP-0359), kept in room history.
	OriginID *struct {
		ID string `xml:"id,attr"`
	} `xml:"urn:xmpp:sid:0 origin-id"`
	// Receipt is a delivery receipt request (XEP-0184).
	Receipt *struct{} `xml:"urn:xmpp:receipts request"`
	// Direct (XEP-0249) and mediated (XEP-0045) invitations.
	Direct *struct {
		JID      string `xml:"jid,attr"`
		Password string `xml:"password,attr"`
	} `xml:"jabber:x:conference x"`
	Mediated *struct {
		Invite *struct {
			From string `xml:"from,attr"`
		} `xml:"invite"`
		Password string `xml:"password"`
	} `xml:"http://jabber.org/protocol/muc#user x"`
}

// receipt is a delivery receipt (XEP-0184).
type receipt struct {
	stanza.Message
	Received receiptID `xml:"urn:xmpp:receipts received"`
}

type receiptID struct {
	ID string `xml:"id,attr"`
}

// handle is the session's stanza handler. It must not block: answers run
// on their own goroutines.
func (t *Transport) handle(r xmlstream.TokenReadEncoder, start *xml.StartElement) error {
	if start.Name.Local == "iq" {
		return t.handleIQ(r, start)
	}
	if start.Name.Local == "presence" {
		return t.handlePresence(r, start)
	}
	if start.Name.Local != "message" {
		return nil
	}
	var m inMessage
	if err := xml.NewTokenDecoder(xmlstream.MultiReader(xmlstream.Token(*start), r)).Decode(&m); err != nil {
		fmt.Fprintf(t.o.Log, "xmpp: malformed message stanza ignored: %v\n", err)
		return nil
	}
	switch {
	// Mediated first: Prosody adds a jabber:x:conference element to the
	// invitations it forwards, from the room, not the inviter.
	case m.Mediated != nil && m.Mediated.Invite != nil:
		from := mustParse(m.Mediated.Invite.From)
		if from.Bare().Equal(m.From.Bare()) {
			// A semi-anonymous room names the inviter by nick only:
			// nothing to check against allowed_jids.
			fmt.Fprintf(t.o.Log, "xmpp: invitation to %s from %q ignored: the room hides the inviter's JID; send a direct invitation (XEP-0249) or make the room non-anonymous\n", m.From.Bare(), from.Resourcepart())
			return nil
		}
		t.invited(from, m.From.Bare().String(), m.Mediated.Password)
	case m.Direct != nil:
		t.invited(m.From, m.Direct.JID, m.Direct.Password)
	case m.Type == stanza.GroupChatMessage:
		t.groupMessage(m)
	case m.Type == stanza.ChatMessage || m.Type == stanza.NormalMessage:
		return t.directMessage(r, m)
	}
	return nil
}

func mustParse(s string) jid.JID {
	j, _ := jid.Parse(s)
	return j
}

// authorized reports whether from may chat; refused senders are logged
// once per hour each so a flood does not flood the log.
func (t *Transport) authorized(from jid.JID) bool {
	if t.allow.allows(from) {
		return true
	}
	key := from.String()
	now := t.o.Now()
	t.mu.Lock()
	last, seen := t.dropped[key]
	if !seen || now.Sub(last) >= dropLogEach {
		t.dropped[key] = now
	}
	t.mu.Unlock()
	if !seen || now.Sub(last) >= dropLogEach {
		fmt.Fprintf(t.o.Log, "xmpp: dropped a message from %s (not in xmpp.allowed_jids)\n", key)
	}
	return false
}

func (t *Transport) directMessage(r xmlstream.Encoder, m inMessage) error {
	if m.Body == "" && len(m.OOB) == 0 {
		return nil // chat states, receipts…
	}
	// A delayed direct message comes from the server's offline storage:
	// it arrived while the bot was away and was never answered, so it is
	// asked now (group chat history goes through missed).
	if !t.authorized(m.From) {
		return nil
	}
	if m.Receipt != nil && m.ID != "" {
		// Acknowledge delivery before answering (the client shows the
		// question as received); only to allowed senders.
		if err := r.Encode(receipt{Message: stanza.Message{XMLName: xml.Name{Local: "message"}, ID: newID(), To: m.From, Type: m.Type},
			Received: receiptID{ID: m.ID}}); err != nil {
			return err
		}
	}
	conv := "xmpp:" + m.From.Bare().String()
	out := &output{t: t, to: m.From, typ: stanza.ChatMessage}
	t.dispatch(conv, m, out)
	return nil
}

// groupMessage answers a room message. Every live message from another
// occupant of a bound room is a question (a leading mention of the bot is
// dropped from it); history sent at a join goes to missed, and the
// room's subject, which ends that history, to historyDone.
func (t *Transport) groupMessage(m inMessage) {
	room := m.From.Bare().String()
	if !t.rooms.has(room) {
		return
	}
	switch {
	case m.Delay != nil:
		t.missed(room, m)
		return
	case m.Subject != nil && m.Body == "":
		t.historyDone(room, true)
		return
	}
	now := t.o.Now()
	if err := t.seen.saw(room, now); err != nil {
		fmt.Fprintf(t.o.Log, "xmpp: could not save when %s was seen: %v\n", room, err)
	}
	nick := t.rooms.nick(room, t.nick())
	if m.Body == "" || !fromOther(m, nick) {
		return
	}
	text, addressed := addressedText(m.Body, t.o.Config.CommandPrefix, nick)
	if addressed {
		// The same question may come back in the history of a rejoin
		// soon after (the request reaches back lateSkew): answered.
		if err := t.seen.markAnswered(room, map[string]time.Time{messageKey(m): now}); err != nil {
			fmt.Fprintf(t.o.Log, "xmpp: could not save the answered questions of %s: %v\n", room, err)
		}
	}
	if text == "" {
		return // only the bot's name
	}
	m.Body = text
	out := &output{t: t, to: m.From.Bare(), typ: stanza.GroupChatMessage}
	t.dispatch("xmpp-room:"+room, m, out)
}

// fromOther reports whether a room message comes from an occupant who
// is not the bot (own lists its nicks), nor the room itself (subject,
// notices).
func fromOther(m inMessage, own ...string) bool {
	n := m.From.Resourcepart()
	return n != "" && !slices.Contains(own, n)
}

// dispatch answers m on its own goroutine; the service's queue keeps one
// conversation's questions in order.
func (t *Transport) dispatch(conv string, m inMessage, out daemon.ChatOutput) {
	ctx := t.runCtx()
	ok := t.disp.Go(conv, func() {
		if len(m.OOB) > 0 {
			var urls []string
			for _, o := range m.OOB {
				urls = append(urls, strings.TrimSpace(o.URL))
			}
			// The body of an upload is usually the URL again; anything
			// more is a question about the files (an image's caption),
			// asked once they are in.
			q := daemon.TextBesides(m.Body, urls)
			kind := ""
			if len(urls) == 1 {
				kind = daemon.MediaKind(urls[0])
			}
			if kind == "image" {
				t.o.Chat.Image(ctx, conv, urls[0], q, out)
				return
			}
			in := t.o.Chat.Upload(ctx, conv, urls, out)
			if o, ok := out.(*output); ok && in && q != "" && kind != "voice" {
				t.o.Chat.Handle(ctx, daemon.ChatMessage{Conversation: conv, Text: q}, o.again())
			}
			return
		}
		t.o.Chat.Handle(ctx, daemon.ChatMessage{Conversation: conv, Text: m.Body}, out)
	})
	if !ok {
		go out.Final(ctx, "Busy: earlier questions in this conversation are still waiting; ask again when they are answered.", true)
	}
}

// nick is the bot's nickname in rooms.
func (t *Transport) nick() string {
	if r := t.o.Config.Resource; r != "" {
		return r
	}
	return t.me.Localpart()
}

// allowlist holds allowed_jids: bare entries admit every resource.
type allowlist struct {
	bare map[string]bool
	full map[string]bool
}

func parseAllowlist(list []string) (allowlist, error) {
	a := allowlist{bare: map[string]bool{}, full: map[string]bool{}}
	for _, s := range list {
		j, err := jid.Parse(strings.TrimSpace(s))
		if err != nil {
			return a, fmt.Errorf("xmpp.allowed_jids: %q is not a JID: %w", s, err)
		}
		if j.Resourcepart() == "" {
			a.bare[j.String()] = true
		} else {
			a.full[j.String()] = true
		}
	}
	return a, nil
}

func (a allowlist) allows(from jid.JID) bool {
	return a.bare[from.Bare().String()] || a.full[from.String()]
}

// allowsAccount reports whether any resource of bare's account is
// allowed: presence subscriptions are between accounts, not resources.
func (a allowlist) allowsAccount(bare jid.JID) bool {
	b := bare.Bare().String()
	if a.bare[b] {
		return true
	}
	for f := range a.full {
		if j, err := jid.Parse(f); err == nil && j.Bare().String() == b {
			return true
		}
	}
	return false
}
