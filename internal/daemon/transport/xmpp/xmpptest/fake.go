package xmpptest

import (
	"bufio"
	"crypto/tls"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// Fake is a scripted XMPP server for tests that need a server to fail in
// ways Prosody cannot be made to: it negotiates STARTTLS, SASL PLAIN (any
// password) and bind, answers pings, and relays chat messages between the
// test and the logged-in client. Silence makes the current session stop
// answering without closing its socket, like a server that vanished.
type Fake struct {
	Port   int
	CAFile string
	// Got receives the bodies of the messages the client sent.
	Got chan string
	// Replies receives "type id" of the IQ replies the client sent (to
	// Send).
	Replies chan string
	// Pings counts the pings received, answered or not.
	Pings atomic.Int32
	// Acks receives the h of each stream management ack the client
	// sent (with SM on).
	Acks chan string
	// SM offers stream management (XEP-0198); set it before the client
	// connects.
	SM bool

	t        T
	tls      *tls.Config
	ln       net.Listener
	mu       sync.Mutex
	sessions int
	cur      *fakeConn
	conns    []net.Conn
	msgID    int
	pingErr  bool
	closed   chan struct{}
	wg       sync.WaitGroup
}

type fakeConn struct {
	f      *Fake
	conn   net.Conn
	wmu    sync.Mutex
	w      io.Writer
	silent atomic.Bool
	jid    string
}

// StartFake listens on 127.0.0.1 until the test ends.
func StartFake(t T) *Fake {
	t.Helper()
	dir := t.TempDir()
	f := &Fake{CAFile: filepath.Join(dir, Domain+".crt"), Got: make(chan string, 64), Replies: make(chan string, 16), Acks: make(chan string, 16), t: t, closed: make(chan struct{})}
	key := filepath.Join(dir, Domain+".key")
	if err := writeCert(f.CAFile, key); err != nil {
		t.Fatalf("%v", err)
	}
	cert, err := tls.LoadX509KeyPair(f.CAFile, key)
	if err != nil {
		t.Fatalf("%v", err)
	}
	f.tls = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if f.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatalf("%v", err)
	}
	f.Port = f.ln.Addr().(*net.TCPAddr).Port
	f.wg.Add(1)
	go f.accept()
	t.Cleanup(func() {
		close(f.closed)
		f.ln.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			c.Close()
		}
		f.mu.Unlock()
		f.wg.Wait()
	})
	return f
}

// Sessions is how many sessions reached bind.
func (f *Fake) Sessions() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions
}

// Silence makes the current session read and answer nothing more; its
// socket stays open until the test ends.
func (f *Fake) Silence() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cur != nil {
		f.cur.silent.Store(true)
	}
}

// PingErrors makes the server answer pings with service-unavailable, as
// a server without XEP-0199 does.
func (f *Fake) PingErrors() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pingErr = true
}

// Deliver sends a chat message from from to the client on the current
// session.
func (f *Fake) Deliver(from, body string) {
	f.t.Helper()
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(body))
	f.mu.Lock()
	f.msgID++
	id := f.msgID
	f.mu.Unlock()
	f.Send(fmt.Sprintf(`<message from='%s' type='chat' id='m%d'><body>%s</body></message>`, from, id, b.String()))
}

// Send writes a stanza (test constants only) on the current session.
func (f *Fake) Send(stanzaXML string) {
	f.t.Helper()
	f.mu.Lock()
	c := f.cur
	f.mu.Unlock()
	if c == nil {
		f.t.Fatalf("fake xmpp server: no session")
		return
	}
	if err := c.write(stanzaXML); err != nil {
		f.t.Fatalf("fake xmpp server: %v", err)
	}
}

func (f *Fake) accept() {
	defer f.wg.Done()
	for {
		conn, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns = append(f.conns, conn)
		f.mu.Unlock()
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer conn.Close()
			c := &fakeConn{f: f, conn: conn, w: conn}
			_ = c.serve()
		}()
	}
}

func (c *fakeConn) write(s string) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.silent.Load() {
		return nil
	}
	_, err := io.WriteString(c.w, s)
	return err
}

// header reads the client's stream header and answers with ours and
// features.
func (c *fakeConn) header(r io.Reader, features string) (*xml.Decoder, error) {
	d := xml.NewDecoder(bufio.NewReader(r))
	for {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "stream" {
			break
		}
	}
	return d, c.write(`<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' id='fake' from='` + Domain + `' version='1.0'><stream:features>` + features + `</stream:features>`)
}

// element is any first-level element of the client's stream.
type element struct {
	XMLName xml.Name
	ID      string    `xml:"id,attr"`
	H       string    `xml:"h,attr"`
	Type    string    `xml:"type,attr"`
	Body    string    `xml:"body"`
	Ping    *struct{} `xml:"urn:xmpp:ping ping"`
	Bind    *struct {
		Resource string `xml:"resource"`
	} `xml:"urn:ietf:params:xml:ns:xmpp-bind bind"`
}

func next(d *xml.Decoder) (element, error) {
	for {
		tok, err := d.Token()
		if err != nil {
			return element{}, err
		}
		if se, ok := tok.(xml.StartElement); ok {
			var e element
			return e, d.DecodeElement(&e, &se)
		}
	}
}

func (c *fakeConn) serve() error {
	d, err := c.header(c.conn, `<starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'><required/></starttls>`)
	if err != nil {
		return err
	}
	if _, err := next(d); err != nil {
		return err
	}
	if err := c.write(`<proceed xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>`); err != nil {
		return err
	}
	tc := tls.Server(c.conn, c.f.tls)
	c.w = tc
	if d, err = c.header(tc, `<mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>PLAIN</mechanism></mechanisms>`); err != nil {
		return err
	}
	if _, err := next(d); err != nil {
		return err
	}
	if err := c.write(`<success xmlns='urn:ietf:params:xml:ns:xmpp-sasl'/>`); err != nil {
		return err
	}
	features := `<bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/>`
	if c.f.SM {
		features += `<sm xmlns='urn:xmpp:sm:3'/>`
	}
	if d, err = c.header(tc, features); err != nil {
		return err
	}
	e, err := next(d)
	if err != nil || e.Bind == nil {
		return fmt.Errorf("fake xmpp server: expected bind: %v", err)
	}
	c.jid = "bot@" + Domain + "/" + e.Bind.Resource
	if err := c.write(fmt.Sprintf(`<iq type='result' id='%s'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><jid>%s</jid></bind></iq>`, e.ID, c.jid)); err != nil {
		return err
	}
	c.f.mu.Lock()
	c.f.sessions++
	c.f.cur = c
	c.f.mu.Unlock()
	for {
		e, err := next(d)
		if err != nil {
			return err
		}
		if c.silent.Load() {
			<-c.f.closed
			return nil
		}
		switch {
		case e.XMLName.Space == "urn:xmpp:sm:3" && e.XMLName.Local == "enable":
			if err := c.write(`<enabled xmlns='urn:xmpp:sm:3'/>`); err != nil {
				return err
			}
		case e.XMLName.Space == "urn:xmpp:sm:3" && e.XMLName.Local == "a":
			select {
			case c.f.Acks <- e.H:
			default:
			}
		case e.XMLName.Local == "iq" && e.Ping != nil:
			c.f.Pings.Add(1)
			c.f.mu.Lock()
			pingErr := c.f.pingErr
			c.f.mu.Unlock()
			reply := fmt.Sprintf(`<iq type='result' id='%s' from='%s'/>`, e.ID, Domain)
			if pingErr {
				reply = fmt.Sprintf(`<iq type='error' id='%s' from='%s'><error type='cancel'><service-unavailable xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'/></error></iq>`, e.ID, Domain)
			}
			if err := c.write(reply); err != nil {
				return err
			}
		case e.XMLName.Local == "iq" && (e.Type == "result" || e.Type == "error"):
			select {
			case c.f.Replies <- e.Type + " " + e.ID:
			default:
			}
		case e.XMLName.Local == "message" && e.Body != "":
			select {
			case c.f.Got <- e.Body:
			default:
			}
		}
	}
}
