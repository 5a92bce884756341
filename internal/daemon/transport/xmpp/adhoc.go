package xmpp

import (
	"encoding/xml"
	"fmt"
	"slices"
	"strings"

	"mellium.im/xmlstream"
	"mellium.im/xmpp/ping"
	"mellium.im/xmpp/stanza"
)

// Ad-hoc commands (XEP-0050) offered to allowed JIDs, under the
// original's node names (asky#status…): reading commands answer in the
// command's note, query takes a form and its answer arrives as chat.
const (
	nsCommands   = "http://jabber.org/protocol/commands"
	nsDiscoItems = "http://jabber.org/protocol/disco#items"
	nsData       = "jabber:x:data"
	nodePrefix   = "asky#"
)

// adhocNodes are the commands, without nodePrefix; text is the chat
// command a node runs (the nodes with forms build theirs).
var adhocNodes = []struct{ node, name, text string }{
	{"status", "Status", ""},
	{"list-sessions", "List Sessions", "session list"},
	{"list-history", "List History", "history list"},
	{"list-tools", "List Tools", "--list-tools"},
	{"list-memories", "List Memories", "memory list"},
	{"list-prompts", "List Prompts", "prompts list"},
	{"list-presets", "List Presets", `\presets`},
	{"query", "Run Query", ""},
	{"new-session", "New Session", "/session new"},
	{"switch-session", "Switch Session", ""},
	{"clear-session", "Clear Session", ""},
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
	nsXHTMLIM, // headings of one-message answers
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
			}{me, nodePrefix + n.node, n.name})
		}
		return r.Encode(struct {
			stanza.IQ
			Q itemsOut
		}{reply, out})
	case iq.Type == stanza.SetIQ && iq.Command != nil:
		out, known := t.runCommand(iq)
		if !known {
			reply.Type = stanza.ErrorIQ
			return r.Encode(struct {
				stanza.IQ
				E stanza.Error
			}{reply, errUnknownNode})
		}
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

// errUnknownNode answers a command node asky does not have: XEP-0050
// says item-not-found.
var errUnknownNode = stanza.Error{Type: stanza.Cancel, Condition: stanza.ItemNotFound}

// runCommand executes one command step; false means the node is unknown.
func (t *Transport) runCommand(iq iqIn) (commandOut, bool) {
	c := iq.Command
	name := strings.TrimPrefix(c.Node, nodePrefix)
	out := commandOut{Node: c.Node, SessionID: c.SessionID, Status: "completed"}
	if out.SessionID == "" {
		out.SessionID = newID()
	}
	done := func(typ, text string) (commandOut, bool) {
		out.Note = &note{Type: typ, Text: text}
		return out, true
	}
	reply := func(text string, failed bool) (commandOut, bool) {
		if failed {
			return done("error", strings.TrimPrefix(text, "Error: "))
		}
		return done("info", text)
	}
	ask := func(title string, fields ...field) (commandOut, bool) {
		out.Status = "executing"
		out.Form = &form{Type: "form", Title: title, Fields: fields}
		return out, true
	}
	if c.Action == "cancel" {
		out.Status = "canceled"
		return out, true
	}
	values := map[string]string{}
	if c.Form != nil {
		for _, f := range c.Form.Fields {
			values[f.Var] = strings.TrimSpace(f.Value)
		}
	}
	conv := "xmpp:" + iq.From.Bare().String()
	ctx := t.runCtx()
	switch name {
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
	case "query":
		question := values["query"]
		if question == "" {
			question = values["question"] // this port's first field name
		}
		if question == "" {
			return ask("Ask asky",
				field{Var: "query", Type: "text-single", Label: "Query", Required: &struct{}{}},
				field{Var: "model", Type: "text-single", Label: "Model alias (optional)"},
				field{Var: "lean", Type: "boolean", Label: "Lean: no tools", Value: "false"})
		}
		lean := values["lean"] == "1" || values["lean"] == "true"
		o := &output{t: t, to: iq.From, typ: stanza.ChatMessage}
		if !t.disp.Go(conv, func() { t.o.Chat.AskQuestion(ctx, conv, question, values["model"], lean, o) }) {
			return done("error", "earlier questions in this conversation are still waiting; ask again when they are answered")
		}
		return done("info", "Asked; the answer arrives as a chat message.")
	case "switch-session":
		sel := values["selector"]
		if sel == "" {
			return ask("Switch session", field{Var: "selector", Type: "text-single", Label: "Session ID or name", Required: &struct{}{}})
		}
		// The selector goes on as "/session SEL": one that starts with a
		// verb of /session would run the verb ("clear" empties the session
		// without the confirmation clear-session asks).
		if f := strings.Fields(strings.ToLower(sel)); len(f) > 0 && slices.Contains([]string{"new", "child", "clear"}, f[0]) {
			return done("error", "\""+f[0]+"\" is a /session command, not a session: give the session's id")
		}
		return reply(t.o.Chat.Command(ctx, conv, "/session "+sel, false))
	case "clear-session":
		v, answered := values["confirm"]
		switch {
		case !answered:
			return ask("Clear session", field{Var: "confirm", Type: "boolean", Label: "Delete the messages of this chat's session?", Value: "false"})
		case v != "1" && v != "true":
			return done("info", "Nothing was cleared.")
		}
		return reply(t.o.Chat.Command(ctx, conv, "/session clear", true))
	}
	for _, n := range adhocNodes {
		if n.node == name && n.text != "" {
			return reply(t.o.Chat.Command(ctx, conv, n.text, false))
		}
	}
	return out, false
}
