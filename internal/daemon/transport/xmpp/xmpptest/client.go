package xmpptest

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/xml"
	"errors"
	"net"
	"os"
	"strings"
	"time"

	"mellium.im/sasl"
	"mellium.im/xmlstream"
	"mellium.im/xmpp"
	"mellium.im/xmpp/jid"
	"mellium.im/xmpp/stanza"

	"github.com/askygo/asky/internal/daemon/transport/xmpp/bind"
)

// Msg is a message the test client received.
type Msg struct {
	From, ID, Type, Body string
	// Replace is the id a correction (XEP-0308) replaces.
	Replace string
	// Receipt is the id a delivery receipt (XEP-0184) acknowledges;
	// receipts have no body.
	Receipt string
	// HTML is the inner XML of an XHTML-IM payload (XEP-0071), if any.
	HTML string
}

// Pres is a presence the test client received.
type Pres struct {
	From, Type string
	// Condition is the error condition of a type="error" presence.
	Condition string
}

// Client is a logged-in test user.
type Client struct {
	JID  jid.JID
	Msgs chan Msg
	// Presences are the presences received (subscription answers, room
	// occupants).
	Presences chan Pres
	s         *xmpp.Session
	t         T
}

type msgIn struct {
	stanza.Message
	Body    string `xml:"body"`
	Replace struct {
		ID string `xml:"id,attr"`
	} `xml:"urn:xmpp:message-correct:0 replace"`
	Received struct {
		ID string `xml:"id,attr"`
	} `xml:"urn:xmpp:receipts received"`
	HTML innerXML `xml:"http://jabber.org/protocol/xhtml-im html"`
}

// innerXML renders an element's content with local names only
// ("<p><strong>a</strong></p>"): a token decoder has no raw innerxml.
type innerXML struct{ s string }

func (x *innerXML) UnmarshalXML(d *xml.Decoder, _ xml.StartElement) error {
	var b bytes.Buffer
	for depth := 0; ; {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			b.WriteString("<" + t.Name.Local + ">")
		case xml.EndElement:
			if depth == 0 {
				x.s = b.String()
				return nil
			}
			depth--
			b.WriteString("</" + t.Name.Local + ">")
		case xml.CharData:
			_ = xml.EscapeText(&b, t)
		}
	}
}

// Connect logs user in with resource "test".
func (p *Prosody) Connect(t T, user, password string) *Client {
	t.Helper()
	me := jid.MustParse(JID(user) + "/test")
	pool := x509.NewCertPool()
	pemBytes, err := os.ReadFile(p.CAFile)
	if err != nil {
		t.Fatalf("%v", err)
	}
	pool.AppendCertsFromPEM(pemBytes)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatalf("%v", err)
	}
	s, err := xmpp.NewClientSession(ctx, me, conn,
		xmpp.StartTLS(&tls.Config{ServerName: Domain, RootCAs: pool, MinVersion: tls.VersionTLS12}),
		xmpp.SASL("", password, sasl.ScramSha1, sasl.Plain), bind.Feature())
	if err != nil {
		t.Fatalf("%s: log in: %v", user, err)
	}
	c := &Client{JID: s.LocalAddr(), Msgs: make(chan Msg, 256), Presences: make(chan Pres, 256), s: s, t: t}
	go s.Serve(xmpp.HandlerFunc(func(r xmlstream.TokenReadEncoder, start *xml.StartElement) error {
		if start.Name.Local == "presence" {
			var p struct {
				stanza.Presence
				Err *stanza.Error `xml:"error"`
			}
			if xml.NewTokenDecoder(xmlstream.MultiReader(xmlstream.Token(*start), r)).Decode(&p) == nil {
				pr := Pres{From: p.From.String(), Type: string(p.Type)}
				if p.Err != nil {
					pr.Condition = string(p.Err.Condition)
				}
				select {
				case c.Presences <- pr:
				default:
				}
			}
			return nil
		}
		if start.Name.Local != "message" {
			return nil
		}
		var m msgIn
		if err := xml.NewTokenDecoder(xmlstream.MultiReader(xmlstream.Token(*start), r)).Decode(&m); err != nil || m.Body == "" && m.Received.ID == "" {
			return nil
		}
		c.Msgs <- Msg{From: m.From.String(), ID: m.ID, Type: string(m.Type), Body: m.Body, Replace: m.Replace.ID, Receipt: m.Received.ID, HTML: m.HTML.s}
		return nil
	}))
	if err := s.Send(ctx, stanza.Presence{}.Wrap(nil)); err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() { s.Close(); conn.Close() })
	return c
}

type msgOut struct {
	stanza.Message
	Body string `xml:"body"`
}

// Send sends a chat message to to.
func (c *Client) Send(to, body string) {
	c.t.Helper()
	c.encode(msgOut{Message: stanza.Message{To: jid.MustParse(to), Type: stanza.ChatMessage}, Body: body})
}

// SendGroup sends a groupchat message to room.
func (c *Client) SendGroup(room, body string) {
	c.t.Helper()
	c.encode(msgOut{Message: stanza.Message{To: jid.MustParse(room), Type: stanza.GroupChatMessage}, Body: body})
}

// Encode sends any stanza value.
func (c *Client) encode(v any) {
	c.t.Helper()
	// No deadline: mellium applies a done context's deadline from a
	// goroutine that may run during the next write and fail it ("i/o
	// timeout"); a stuck test ends at go test's timeout.
	if err := c.s.Encode(context.Background(), v); err != nil {
		c.t.Fatalf("%v", err)
	}
}

// SendRaw sends a stanza written as XML (test constants only).
func (c *Client) SendRaw(stanzaXML string) {
	c.t.Helper()
	// No deadline, as in encode.
	if err := c.s.Send(context.Background(), xml.NewDecoder(strings.NewReader(stanzaXML))); err != nil {
		c.t.Fatalf("%v", err)
	}
}

// WaitPresence returns the first presence satisfying ok, failing after
// timeout.
func (c *Client) WaitPresence(timeout time.Duration, ok func(Pres) bool) Pres {
	c.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case p := <-c.Presences:
			if ok(p) {
				return p
			}
		case <-deadline:
			c.t.Fatalf("%s: no matching presence within %s", c.JID, timeout)
			return Pres{}
		}
	}
}

// Join enters room as nick (creating it) without history.
func (c *Client) Join(room, nick string) {
	c.t.Helper()
	p := struct {
		stanza.Presence
		X struct {
			XMLName xml.Name `xml:"http://jabber.org/protocol/muc x"`
		}
	}{Presence: stanza.Presence{To: jid.MustParse(room + "/" + nick)}}
	c.encode(p)
}

// Invite sends a direct invitation (XEP-0249) to room.
func (c *Client) Invite(to, room string) {
	c.t.Helper()
	m := struct {
		stanza.Message
		X struct {
			XMLName xml.Name `xml:"jabber:x:conference x"`
			JID     string   `xml:"jid,attr"`
		}
	}{Message: stanza.Message{To: jid.MustParse(to)}}
	m.X.JID = room
	c.encode(m)
}

// Next returns the next message, failing after timeout.
func (c *Client) Next(timeout time.Duration) Msg {
	c.t.Helper()
	select {
	case m := <-c.Msgs:
		return m
	case <-time.After(timeout):
		c.t.Fatalf("%s: no message within %s", c.JID, timeout)
	}
	return Msg{}
}

// Until collects messages until one satisfies done (returned last).
func (c *Client) Until(timeout time.Duration, done func(Msg) bool) []Msg {
	c.t.Helper()
	var got []Msg
	deadline := time.After(timeout)
	for {
		select {
		case m := <-c.Msgs:
			got = append(got, m)
			if done(m) {
				return got
			}
		case <-deadline:
			c.t.Fatalf("%s: condition not met within %s; got %+v", c.JID, timeout, got)
		}
	}
}

// Quiet fails if a message arrives within d.
func (c *Client) Quiet(d time.Duration) {
	c.t.Helper()
	select {
	case m := <-c.Msgs:
		c.t.Fatalf("%s: unexpected message %+v", c.JID, m)
	case <-time.After(d):
	}
}

// CommandResult is an ad-hoc command response (XEP-0050).
type CommandResult struct {
	Status string
	Note   string
	// Fields are the form fields the command asks for.
	Fields []string
	SID    string
	// Error is the condition of an error answer (item-not-found…).
	Error string
}

// Command executes the ad-hoc command node at to, submitting fields as a
// form when given.
func (c *Client) Command(to, node, sid string, fields map[string]string) CommandResult {
	c.t.Helper()
	type field struct {
		Var   string `xml:"var,attr"`
		Value string `xml:"value"`
	}
	cmd := struct {
		XMLName xml.Name `xml:"http://jabber.org/protocol/commands command"`
		Node    string   `xml:"node,attr"`
		Action  string   `xml:"action,attr"`
		SID     string   `xml:"sessionid,attr,omitempty"`
		Form    *struct {
			XMLName xml.Name `xml:"jabber:x:data x"`
			Type    string   `xml:"type,attr"`
			Fields  []field  `xml:"field"`
		}
	}{Node: node, Action: "execute", SID: sid}
	if fields != nil {
		cmd.Form = &struct {
			XMLName xml.Name `xml:"jabber:x:data x"`
			Type    string   `xml:"type,attr"`
			Fields  []field  `xml:"field"`
		}{Type: "submit"}
		for k, v := range fields {
			cmd.Form.Fields = append(cmd.Form.Fields, field{Var: k, Value: v})
		}
	}
	b, err := xml.Marshal(cmd)
	if err != nil {
		c.t.Fatalf("%v", err)
	}
	// UnmarshalIQ decodes the response's payload: the command element.
	var resp struct {
		Command struct {
			Status string `xml:"status,attr"`
			SID    string `xml:"sessionid,attr"`
			Note   string `xml:"note"`
			Form   struct {
				Fields []struct {
					Var string `xml:"var,attr"`
				} `xml:"field"`
			} `xml:"jabber:x:data x"`
		} `xml:"http://jabber.org/protocol/commands command"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	iq := stanza.IQ{To: jid.MustParse(to), Type: stanza.SetIQ}
	if err := c.s.UnmarshalIQ(ctx, iq.Wrap(xml.NewDecoder(bytes.NewReader(b))), &resp.Command); err != nil {
		var se stanza.Error
		if errors.As(err, &se) {
			return CommandResult{Error: string(se.Condition)}
		}
		c.t.Fatalf("command %s: %v", node, err)
	}
	out := CommandResult{Status: resp.Command.Status, Note: resp.Command.Note, SID: resp.Command.SID}
	for _, f := range resp.Command.Form.Fields {
		out.Fields = append(out.Fields, f.Var)
	}
	return out
}

// DiscoInfo returns the features the entity to advertises (XEP-0030),
// failing when the query gets an error.
func (c *Client) DiscoInfo(to string) []string {
	c.t.Helper()
	var resp struct {
		Features []struct {
			Var string `xml:"var,attr"`
		} `xml:"feature"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q := xmlstream.Wrap(nil, xml.StartElement{Name: xml.Name{Space: "http://jabber.org/protocol/disco#info", Local: "query"}})
	if err := c.s.UnmarshalIQ(ctx, stanza.IQ{To: jid.MustParse(to), Type: stanza.GetIQ}.Wrap(q), &resp); err != nil {
		c.t.Fatalf("disco#info %s: %v", to, err)
	}
	var out []string
	for _, f := range resp.Features {
		out = append(out, f.Var)
	}
	return out
}

// CommandNodes returns the ad-hoc command nodes the entity to lists
// (XEP-0050 discovery through disco#items), failing on an error.
func (c *Client) CommandNodes(to string) []string {
	c.t.Helper()
	var resp struct {
		Items []struct {
			Node string `xml:"node,attr"`
		} `xml:"item"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	q := xmlstream.Wrap(nil, xml.StartElement{Name: xml.Name{Space: "http://jabber.org/protocol/disco#items", Local: "query"},
		Attr: []xml.Attr{{Name: xml.Name{Local: "node"}, Value: "http://jabber.org/protocol/commands"}}})
	if err := c.s.UnmarshalIQ(ctx, stanza.IQ{To: jid.MustParse(to), Type: stanza.GetIQ}.Wrap(q), &resp); err != nil {
		c.t.Fatalf("disco#items %s: %v", to, err)
	}
	var out []string
	for _, it := range resp.Items {
		out = append(out, it.Node)
	}
	return out
}

// SendOOB sends a chat message carrying url as an out-of-band
// attachment (XEP-0066), the way clients share files.
func (c *Client) SendOOB(to, url string) {
	c.t.Helper()
	m := struct {
		stanza.Message
		Body string `xml:"body"`
		X    struct {
			XMLName xml.Name `xml:"jabber:x:oob x"`
			URL     string   `xml:"url"`
		}
	}{Message: stanza.Message{To: jid.MustParse(to), Type: stanza.ChatMessage}, Body: url}
	m.X.URL = url
	c.encode(m)
}

// Ping pings to (XEP-0199) and returns "result", or the error condition
// of an error reply.
func (c *Client) Ping(to string) string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p := xmlstream.Wrap(nil, xml.StartElement{Name: xml.Name{Space: "urn:xmpp:ping", Local: "ping"}})
	err := c.s.UnmarshalIQ(ctx, stanza.IQ{To: jid.MustParse(to), Type: stanza.GetIQ}.Wrap(p), nil)
	var se stanza.Error
	switch {
	case err == nil:
		return "result"
	case errors.As(err, &se):
		return string(se.Condition)
	}
	c.t.Fatalf("ping %s: %v", to, err)
	return ""
}
