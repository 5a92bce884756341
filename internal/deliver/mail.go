// Package deliver sends an answer somewhere after it is printed, as the
// original's email_sender and push_data plugins did: --sendmail mails it as
// HTML through the configured SMTP server (STARTTLS required unless turned
// off), --push-data posts it as JSON to a configured endpoint. Both are for
// the local user only: the daemon never offers them to remote questions.
package deliver

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"strconv"
	"strings"
	"time"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/report"
)

// Message is one answer to mail.
type Message struct {
	To      []string
	Subject string
	// Markdown is the answer; it is sent as text and as rendered HTML.
	Markdown string
	Now      time.Time
}

// ParseRecipients splits "a@x,b@y" and checks each address.
func ParseRecipients(list string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		a, err := mail.ParseAddress(p)
		if err != nil {
			return nil, fmt.Errorf("bad mail address %q: %v", p, err)
		}
		out = append(out, a.Address)
	}
	if len(out) == 0 {
		return nil, errors.New("--sendmail needs at least one address")
	}
	return out, nil
}

// Subject is the answer's first markdown H1, else fallback (the question),
// cut to one line.
func Subject(answer, fallback string) string {
	for _, l := range strings.Split(answer, "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(l), "# "); ok && strings.TrimSpace(t) != "" {
			return oneLine(t)
		}
	}
	return oneLine(fallback)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	if s == "" {
		s = "asky answer"
	}
	return s
}

// SendMail delivers m through the SMTP server of e, authenticating as user
// when set. With smtp_use_tls the connection must be upgraded by STARTTLS
// before anything is sent; a server that does not offer it is an error,
// never a silent plain-text fallback.
func SendMail(ctx context.Context, e config.Email, user string, pass config.Secret, m Message) error {
	if e.SMTPHost == "" {
		return errors.New("no SMTP server configured: set [email] smtp_host (and smtp_port, from_address)")
	}
	from := e.FromAddress
	if from == "" {
		from = user
	}
	if _, err := mail.ParseAddress(from); err != nil {
		return fmt.Errorf("set [email] from_address to a mail address (got %q)", from)
	}
	body, err := compose(from, m)
	if err != nil {
		return err
	}
	addr := net.JoinHostPort(e.SMTPHost, strconv.Itoa(e.SMTPPort))
	tlsCfg := &tls.Config{ServerName: e.SMTPHost, MinVersion: tls.VersionTLS12, InsecureSkipVerify: e.InsecureSkipVerify} //nolint:gosec // opt-in for self-signed local relays
	d := &net.Dialer{Timeout: 30 * time.Second}
	var conn net.Conn
	if e.SMTPUseSSL {
		conn, err = (&tls.Dialer{NetDialer: d, Config: tlsCfg}).DialContext(ctx, "tcp", addr)
	} else {
		conn, err = d.DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return fmt.Errorf("SMTP server %s: %w", addr, err)
	}
	_ = conn.SetDeadline(time.Now().Add(2 * time.Minute))
	c, err := smtp.NewClient(conn, e.SMTPHost)
	if err != nil {
		conn.Close()
		return fmt.Errorf("SMTP server %s: %w", addr, err)
	}
	defer c.Close()
	if !e.SMTPUseSSL && e.SMTPUseTLS {
		if ok, _ := c.Extension("STARTTLS"); !ok {
			return fmt.Errorf("SMTP server %s does not offer STARTTLS; refusing to send in plain text (set [email] smtp_use_tls = false only for a trusted local relay)", addr)
		}
		if err := c.StartTLS(tlsCfg); err != nil {
			return fmt.Errorf("SMTP STARTTLS with %s: %w", addr, err)
		}
	}
	if user != "" {
		if err := c.Auth(smtp.PlainAuth("", user, string(pass), e.SMTPHost)); err != nil {
			return fmt.Errorf("SMTP login as %s: %w", user, err)
		}
	}
	if err := c.Mail(from); err != nil {
		return fmt.Errorf("SMTP MAIL FROM: %w", err)
	}
	for _, to := range m.To {
		if err := c.Rcpt(to); err != nil {
			return fmt.Errorf("SMTP recipient %s: %w", to, err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("SMTP DATA: %w", err)
	}
	if _, err := w.Write(body); err != nil {
		return fmt.Errorf("SMTP DATA: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("SMTP DATA: %w", err)
	}
	return c.Quit()
}

// compose builds a multipart/alternative message: the markdown as text and
// as HTML rendered like the report (no remote images, highlighted code).
func compose(from string, m Message) ([]byte, error) {
	if m.Now.IsZero() {
		m.Now = time.Now()
	}
	if strings.ContainsAny(m.Subject, "\r\n") {
		return nil, errors.New("the subject must be one line")
	}
	page, err := report.HTML(m.Subject, m.Markdown, m.Now)
	if err != nil {
		return nil, err
	}
	var nb [12]byte
	_, _ = rand.Read(nb[:])
	boundary := "asky-" + hex.EncodeToString(nb[:])
	var b bytes.Buffer
	h := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	h("From", from)
	h("To", strings.Join(m.To, ", "))
	h("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	h("Date", m.Now.Format(time.RFC1123Z))
	h("Message-ID", fmt.Sprintf("<%s@asky>", hex.EncodeToString(nb[:])))
	h("MIME-Version", "1.0")
	h("Content-Type", `multipart/alternative; boundary="`+boundary+`"`)
	b.WriteString("\r\n")
	for _, part := range []struct {
		ctype string
		body  []byte
	}{{"text/plain; charset=utf-8", []byte(m.Markdown)}, {"text/html; charset=utf-8", page}} {
		fmt.Fprintf(&b, "--%s\r\nContent-Type: %s\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n", boundary, part.ctype)
		qp := quotedprintable.NewWriter(&b)
		if _, err := qp.Write(part.body); err != nil {
			return nil, err
		}
		if err := qp.Close(); err != nil {
			return nil, err
		}
		b.WriteString("\r\n")
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	return b.Bytes(), nil
}
