package xmpp

import (
	"encoding/xml"
	"fmt"
	"strings"

	"mellium.im/xmlstream"
	"mellium.im/xmpp/ping"
	"mellium.im/xmpp/stanza"
)

// Ad-hoc commands (XEP-0050) offered to allowed JIDs: status,
// list-sessions and query (a one-field form; the answer arrives as chat).
const (
	nsCommands   = "http://jabber.org/protocol/commands"
	nsDiscoItems = "http://jabber.org/protocol/disco#items"
	nsData       = "jabber:x:data"
)

var adhocNodes = []struct{ node, name string }{
	{"status", "Status"},
	{"list-sessions", "List sessions"},
	{"query", "Ask a question"},
}

// iqIn is the part of an incoming IQ the ad-hoc commands read.
type iqIn struct {
	stanza.IQ
	Command *struct {
		Node      string `xml:"node,attr"`
		Action    string `xml:"action,attr"`
		SessionID string `xml:"sessionid,attr"`
		Form      *form  `xml:"jabber:x:data x"`
	} `xml:"http://jabber.org/protocol/commands command"`
	Items *struct {
		Node string `xml:"node,attr"`
	} `xml:"http://jabber.org/protocol/disco#items query"`
	Info *struct {
		Node string `xml:"node,attr"`
	} `xml:"http://jabber.org/protocol/disco#info query"`
	Ping *struct{} `xml:"urn:xmpp:ping ping"`
}

// infoOut is the disco#info answer: clients look for the commands
// feature there before they offer "Execute command".
type infoOut struct {
	XMLName  xml.Name `xml:"http://jabber.org/protocol/disco#info query"`
	Identity struct {
		Category string `xml:"category,attr"`
		Type     string `xml:"type,attr"`
		Name     string `xml:"name,attr"`
	} `xml:"identity"`
	Features []struct {
		Var string `xml:"var,attr"`
	} `xml:"feature"`
}

// discoFeatures are what the bot understands.
var discoFeatures = []string{
	"http://jabber.org/protocol/disco#info",
	"http://jabber.org/protocol/disco#items",
	nsCommands,
	nsConf,    // direct invitations
	nsOOB,     // shared files
	nsCorrect, // status corrections
	"urn:xmpp:styling:0",
	"urn:xmpp:receipts",
	ping.NS,
}

type form struct {
	XMLName xml.Name `xml:"jabber:x:data x"`
	Type    string   `xml:"type,attr"`
	Title   string   `xml:"title,omitempty"`
	Fields  []field  `xml:"field"`
}

type field struct {
	Var      string    `xml:"var,attr"`
	Type     string    `xml:"type,attr,omitempty"`
	Label    string    `xml:"label,attr,omitempty"`
	Required *struct{} `xml:"required"`
	Value    string    `xml:"value,omitempty"`
}

type commandOut struct {
	XMLName   xml.Name `xml:"http://jabber.org/protocol/commands command"`
	Node      string   `xml:"node,attr"`
	SessionID string   `xml:"sessionid,attr"`
	Status    string   `xml:"status,attr"`
	Actions   *struct {
		Execute string `xml:"execute,attr"`
		Next    struct {
			XMLName xml.Name `xml:"next"`
		}
	} `xml:"actions"`
	Form *form `xml:"jabber:x:data x"`
	Note *note `xml:"note"`
}

type note struct {
	Type string `xml:"type,attr"`
	Text string `xml:",chardata"`
}

type itemsOut struct {
	XMLName xml.Name `xml:"http://jabber.org/protocol/disco#items query"`
	Node    string   `xml:"node,attr"`
	Items   []struct {
		JID  string `xml:"jid,attr"`
		Node string `xml:"node,attr"`
		Name string `xml:"name,attr"`
	} `xml:"item"`
}

// handleIQ answers pings (XEP-0199) from the server and allowed JIDs,
// and the ad-hoc command IQs of allowed JIDs; anything else is left
// unanswered, and the session replies service-unavailable.
func (t *Transport) handleIQ(r xmlstream.TokenReadEncoder, start *xml.StartElement) error {
	var iq iqIn
	if err := xml.NewTokenDecoder(xmlstream.MultiReader(xmlstream.Token(*start), r)).Decode(&iq); err != nil {
		return nil
	}
	if t.answersPing(iq) {
		_, err := xmlstream.Copy(r, iq.Result(nil))
		return err
	}
	if !t.allow.allows(iq.From) {
		return nil
	}
	reply := stanza.IQ{XMLName: xml.Name{Local: "iq"}, ID: iq.ID, To: iq.From, Type: stanza.ResultIQ}
	switch {
	case iq.Type == stanza.GetIQ && iq.Info != nil && iq.Info.Node == "":
		out := infoOut{}
		out.Identity.Category, out.Identity.Type, out.Identity.Name = "client", "bot", "asky"
		for _, f := range discoFeatures {
			out.Features = append(out.Features, struct {
				Var string `xml:"var,attr"`
			}{f})
		}
		return r.Encode(struct {
			stanza.IQ
			Q infoOut
		}{reply, out})
	case iq.Type == stanza.GetIQ && iq.Items != nil && iq.Items.Node == nsCommands:
		out := itemsOut{Node: nsCommands}
		me := t.currentAddr()
		for _, n := range adhocNodes {
			out.Items = append(out.Items, struct {
				JID  string `xml:"jid,attr"`
				Node string `xml:"node,attr"`
				Name string `xml:"name,attr"`
			}{me, n.node, n.name})
		}
		return r.Encode(struct {
			stanza.IQ
			Q itemsOut
		}{reply, out})
	case iq.Type == stanza.SetIQ && iq.Command != nil:
		out := t.runCommand(iq)
		return r.Encode(struct {
			stanza.IQ
			C commandOut
		}{reply, out})
	}
	return nil
}

func (t *Transport) currentAddr() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sess != nil {
		return t.sess.LocalAddr().String()
	}
	return t.me.String()
}

// runCommand executes one command step.
func (t *Transport) runCommand(iq iqIn) commandOut {
	c := iq.Command
	out := commandOut{Node: c.Node, SessionID: c.SessionID, Status: "completed"}
	if out.SessionID == "" {
		out.SessionID = newID()
	}
	done := func(typ, text string) commandOut {
		out.Note = &note{Type: typ, Text: text}
		return out
	}
	conv := "xmpp:" + iq.From.Bare().String()
	switch c.Node {
	case "status":
		var lines []string
		if t.o.Board != nil {
			for _, s := range t.o.Board.Snapshot(t.o.Chat.Service) {
				line := fmt.Sprintf("%s: %s, queue %d", s.Name, s.State, s.QueueDepth)
				if s.LastError != "" {
					line += ", last error: " + s.LastError
				}
				lines = append(lines, line)
			}
		}
		lines = append(lines, fmt.Sprintf("this chat (%s): %d question(s) running or waiting", conv, t.o.Chat.Service.Waiting(conv)))
		return done("info", strings.Join(lines, "\n"))
	case "list-sessions":
		if t.o.Chat.Commands == nil {
			return done("error", "sessions cannot be listed by this daemon")
		}
		res, err := t.o.Chat.Commands.Command(t.runCtx(), conv, "session list")
		if err != nil {
			return done("error", err.Error())
		}
		return done("info", res.Reply)
	case "query":
		if c.Action == "cancel" {
			out.Status = "canceled"
			return out
		}
		var question string
		if c.Form != nil {
			for _, f := range c.Form.Fields {
				if f.Var == "question" {
					question = strings.TrimSpace(f.Value)
				}
			}
		}
		if question == "" {
			out.Status = "executing"
			out.Form = &form{Type: "form", Title: "Ask asky", Fields: []field{{Var: "question", Type: "text-single", Label: "Question", Required: &struct{}{}}}}
			return out
		}
		o := &output{t: t, to: iq.From, typ: stanza.ChatMessage}
		t.dispatch(conv, inMessage{Body: question}, o)
		return done("info", "Asked; the answer arrives as a chat message.")
	}
	return done("error", fmt.Sprintf("unknown command %q (known: status, list-sessions, query)", c.Node))
}
