package xmpp

import (
	"encoding/xml"
	"fmt"
	"slices"

	"mellium.im/xmlstream"
	"mellium.im/xmpp/stanza"
)

// maxNickTries bounds the nicknames tried when the configured one is
// taken in a room (asky, asky_, asky__).
const maxNickTries = 3

// inPresence is the part of an incoming presence asky reads: roster
// subscription requests and the rooms' answers to its joins.
type inPresence struct {
	stanza.Presence
	Err *stanza.Error `xml:"error"`
	MUC *struct {
		Status []struct {
			Code int `xml:"code,attr"`
		} `xml:"status"`
		Destroy *struct {
			Reason string `xml:"reason"`
		} `xml:"destroy"`
	} `xml:"http://jabber.org/protocol/muc#user x"`
}

func (p inPresence) status(code int) bool {
	return p.MUC != nil && slices.ContainsFunc(p.MUC.Status, func(s struct {
		Code int `xml:"code,attr"`
	}) bool {
		return s.Code == code
	})
}

// handlePresence answers subscription requests (allowed accounts may
// see the bot online; others are refused, so no request lingers in the
// bot's roster) and follows the bound rooms: a taken nick is retried
// with a suffix, a failed join is logged, a destroyed room or a ban
// unbinds the room.
func (t *Transport) handlePresence(r xmlstream.TokenReadEncoder, start *xml.StartElement) error {
	var p inPresence
	if err := xml.NewTokenDecoder(xmlstream.MultiReader(xmlstream.Token(*start), r)).Decode(&p); err != nil {
		return nil
	}
	room := p.From.Bare().String()
	switch {
	case p.Type == stanza.SubscribePresence:
		typ := stanza.SubscribedPresence
		if !t.allow.allowsAccount(p.From) {
			typ = stanza.UnsubscribedPresence
			fmt.Fprintf(t.o.Log, "xmpp: refused a presence subscription from %s (not in xmpp.allowed_jids)\n", p.From.Bare())
		}
		return r.Encode(stanza.Presence{XMLName: xml.Name{Local: "presence"}, To: p.From.Bare(), Type: typ})
	case !t.rooms.has(room):
		return nil
	case p.Type == stanza.ErrorPresence:
		t.joinFailed(room, p)
	case p.Type == stanza.UnavailablePresence && p.status(110):
		t.leftRoom(room, p)
	case p.Type == "" && p.status(110) && p.status(201):
		// The join created the room (it was gone, e.g. after a server
		// restart): accept the default configuration, or Prosody keeps
		// it locked and nobody else can enter (XEP-0045 §10.1.2).
		fmt.Fprintf(t.o.Log, "xmpp: %s did not exist; created it again\n", room)
		return r.Encode(struct {
			stanza.IQ
			Q instantRoom
		}{IQ: stanza.IQ{XMLName: xml.Name{Local: "iq"}, ID: newID(), To: p.From.Bare(), Type: stanza.SetIQ}, Q: submitForm})
	}
	return nil
}

var submitForm = func() instantRoom {
	var q instantRoom
	q.X.Type = "submit"
	return q
}()

// instantRoom submits an empty room configuration form.
type instantRoom struct {
	XMLName xml.Name `xml:"http://jabber.org/protocol/muc#owner query"`
	X       struct {
		XMLName xml.Name `xml:"jabber:x:data x"`
		Type    string   `xml:"type,attr"`
	}
}

// joinFailed handles a room refusing the bot's join.
func (t *Transport) joinFailed(room string, p inPresence) {
	t.dropHistory(room)
	cond := stanza.Condition("unknown error")
	if p.Err != nil {
		cond = p.Err.Condition
	}
	nick := t.rooms.nick(room, t.nick())
	if cond == stanza.Conflict && len(nick) < len(t.nick())+maxNickTries-1 {
		t.rooms.setNick(room, nick+"_")
		fmt.Fprintf(t.o.Log, "xmpp: nick %q is taken in %s; trying %q\n", nick, room, nick+"_")
		t.mu.Lock()
		s := t.sess
		t.mu.Unlock()
		if s != nil {
			go t.join(t.runCtx(), s, room)
		}
		return
	}
	hint := ""
	switch cond {
	case stanza.NotAuthorized:
		hint = " (wrong or missing room password: invite the bot again with the password)"
	case stanza.RegistrationRequired:
		hint = " (members-only room: make the bot's JID a member)"
	case stanza.Forbidden:
		hint = " (the bot is banned there)"
	}
	fmt.Fprintf(t.o.Log, "xmpp: cannot join %s as %q: %s%s; it is retried at the next reconnect\n", room, nick, cond, hint)
}

// leftRoom handles the bot's own unavailable presence from a room: a
// destroyed room or a ban unbinds it; a kick is logged and the room is
// rejoined at the next reconnect.
func (t *Transport) leftRoom(room string, p inPresence) {
	switch {
	case p.MUC.Destroy != nil || p.status(301):
		why := "was destroyed"
		if p.status(301) {
			why = "banned the bot"
		}
		if err := t.rooms.remove(room); err != nil {
			fmt.Fprintf(t.o.Log, "xmpp: could not save the room list: %v\n", err)
		}
		if err := t.seen.forget(room); err != nil {
			fmt.Fprintf(t.o.Log, "xmpp: could not save when rooms were seen: %v\n", err)
		}
		fmt.Fprintf(t.o.Log, "xmpp: room %s %s; unbound (invite the bot again to rebind)\n", room, why)
	case p.status(307):
		fmt.Fprintf(t.o.Log, "xmpp: kicked from %s; rejoining at the next reconnect\n", room)
	case p.status(332):
		// The MUC service is shutting down: the reconnect rejoins.
	default:
		fmt.Fprintf(t.o.Log, "xmpp: removed from %s; rejoining at the next reconnect\n", room)
	}
}
