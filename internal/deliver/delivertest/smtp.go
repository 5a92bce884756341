// Package delivertest is a local SMTP sink for tests: it speaks enough
// ESMTP (EHLO, STARTTLS with a freshly generated certificate, AUTH PLAIN,
// MAIL, RCPT, DATA) to receive what deliver.SendMail sends, on 127.0.0.1.
package delivertest

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"fmt"
	"math/big"
	"net"
	"strings"
	"sync"
	"time"
)

// Mail is one message the sink received.
type Mail struct {
	From string
	To   []string
	Data string
	// TLS reports that the message came after STARTTLS.
	TLS  bool
	User string
	Pass string
}

// SMTPSink is a running sink.
type SMTPSink struct {
	ln   net.Listener
	cert tls.Certificate
	// NoSTARTTLS makes the sink not offer STARTTLS.
	NoSTARTTLS bool

	mu    sync.Mutex
	mails []Mail
	wg    sync.WaitGroup
}

// NewSMTPSink starts a sink on 127.0.0.1.
func NewSMTPSink() (*SMTPSink, error) {
	cert, err := selfSigned()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &SMTPSink{ln: ln, cert: cert}
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

// Port is the port the sink listens on.
func (s *SMTPSink) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// Mails returns what was received so far.
func (s *SMTPSink) Mails() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Mail(nil), s.mails...)
}

// Close stops the sink.
func (s *SMTPSink) Close() {
	s.ln.Close()
	s.wg.Wait()
}

func (s *SMTPSink) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(30 * time.Second))
			s.session(c)
		}()
	}
}

func (s *SMTPSink) session(c net.Conn) {
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	say := func(format string, a ...any) {
		fmt.Fprintf(w, format+"\r\n", a...)
		w.Flush()
	}
	var m Mail
	say("220 sink ESMTP")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(strings.Fields(line + " x")[0])
		switch verb {
		case "EHLO", "HELO":
			if !m.TLS && !s.NoSTARTTLS {
				say("250-sink\r\n250-STARTTLS\r\n250-AUTH PLAIN\r\n250 8BITMIME")
			} else {
				say("250-sink\r\n250-AUTH PLAIN\r\n250 8BITMIME")
			}
		case "STARTTLS":
			say("220 go ahead")
			tc := tls.Server(c, &tls.Config{Certificates: []tls.Certificate{s.cert}})
			if tc.Handshake() != nil {
				return
			}
			c, r, w = tc, bufio.NewReader(tc), bufio.NewWriter(tc)
			m.TLS = true
		case "AUTH":
			f := strings.Fields(line)
			cred := ""
			if len(f) >= 3 {
				cred = f[2]
			} else {
				say("334 ")
				cred, _ = r.ReadString('\n')
			}
			raw, _ := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
			parts := strings.Split(string(raw), "\x00")
			if len(parts) == 3 {
				m.User, m.Pass = parts[1], parts[2]
			}
			say("235 ok")
		case "MAIL":
			m.From = addr(line)
			say("250 ok")
		case "RCPT":
			m.To = append(m.To, addr(line))
			say("250 ok")
		case "DATA":
			say("354 go")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" || l == ".\n" {
					break
				}
				b.WriteString(strings.TrimPrefix(l, "."))
			}
			m.Data = b.String()
			s.mu.Lock()
			s.mails = append(s.mails, m)
			s.mu.Unlock()
			m = Mail{TLS: m.TLS, User: m.User, Pass: m.Pass}
			say("250 queued")
		case "QUIT":
			say("221 bye")
			return
		default:
			say("250 ok")
		}
	}
}

func addr(line string) string {
	i, j := strings.IndexByte(line, '<'), strings.IndexByte(line, '>')
	if i < 0 || j < i {
		return ""
	}
	return line[i+1 : j]
}

// selfSigned makes a certificate for 127.0.0.1 and localhost.
func selfSigned() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "asky test sink"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}
