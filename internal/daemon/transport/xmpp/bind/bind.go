// Package bind is a client-side resource binding stream feature that
// requests the configured resource. mellium.im/xmpp v0.22.0's
// BindResource sends an empty <resource/> (it writes the JID, still
// empty, instead of the resource), so the server always picks a random
// one and full-JID allowlists, room nicks and presence would not match the
// configured resource.
package bind

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"

	"mellium.im/xmlstream"
	"mellium.im/xmpp"
	"mellium.im/xmpp/jid"
	"mellium.im/xmpp/stanza"
)

const ns = "urn:ietf:params:xml:ns:xmpp-bind"

type response struct {
	stanza.IQ
	Bind struct {
		JID string `xml:"jid"`
	} `xml:"urn:ietf:params:xml:ns:xmpp-bind bind"`
	Err *stanza.Error `xml:"error"`
}

// Feature binds the origin JID's resource (a random one when it has
// none, or when the server refuses it and picks another).
func Feature() xmpp.StreamFeature {
	return xmpp.StreamFeature{
		Name:       xml.Name{Space: ns, Local: "bind"},
		Necessary:  xmpp.Authn,
		Prohibited: xmpp.Ready,
		List: func(context.Context, xmlstream.TokenWriter, xml.StartElement) (bool, error) {
			return true, fmt.Errorf("bind: server side not supported")
		},
		Parse: func(_ context.Context, d *xml.Decoder, start *xml.StartElement) (bool, interface{}, error) {
			return true, nil, d.Skip()
		},
		Negotiate: func(ctx context.Context, s *xmpp.Session, _ interface{}) (xmpp.SessionState, io.ReadWriter, error) {
			id := make([]byte, 8)
			_, _ = rand.Read(id)
			iq := stanza.IQ{XMLName: xml.Name{Space: stanza.NSClient, Local: "iq"}, ID: hex.EncodeToString(id), Type: stanza.SetIQ}
			var payload xml.TokenReader
			if res := s.LocalAddr().Resourcepart(); res != "" {
				payload = xmlstream.Wrap(xmlstream.Token(xml.CharData(res)), xml.StartElement{Name: xml.Name{Local: "resource"}})
			}
			w := s.TokenWriter()
			defer w.Close()
			if _, err := xmlstream.Copy(w, iq.Wrap(xmlstream.Wrap(payload, xml.StartElement{Name: xml.Name{Space: ns, Local: "bind"}}))); err != nil {
				return 0, nil, err
			}
			if err := w.Flush(); err != nil {
				return 0, nil, err
			}
			r := s.TokenReader()
			defer r.Close()
			d := xml.NewTokenDecoder(r)
			var resp response
			for {
				tok, err := d.Token()
				if err != nil {
					return 0, nil, err
				}
				if start, ok := tok.(xml.StartElement); ok {
					if err := d.DecodeElement(&resp, &start); err != nil {
						return 0, nil, err
					}
					break
				}
			}
			switch {
			case resp.ID != iq.ID:
				return 0, nil, fmt.Errorf("bind: response to another request (%q)", resp.ID)
			case resp.Type == stanza.ErrorIQ && resp.Err != nil:
				return 0, nil, *resp.Err
			case resp.Type != stanza.ResultIQ:
				return 0, nil, fmt.Errorf("bind: unexpected %q response", resp.Type)
			}
			j, err := jid.Parse(resp.Bind.JID)
			if err != nil {
				return 0, nil, fmt.Errorf("bind: server sent a bad JID: %w", err)
			}
			s.UpdateAddr(j)
			return xmpp.Ready, nil, nil
		},
	}
}
