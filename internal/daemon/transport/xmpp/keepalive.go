package xmpp

import (
	"context"
	"encoding/xml"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"mellium.im/xmlstream"
	"mellium.im/xmpp"
	"mellium.im/xmpp/jid"
	"mellium.im/xmpp/ping"
	"mellium.im/xmpp/stanza"
)

// Keepalive (XEP-0199): TCP keepalive notices a dead connection (a NAT
// entry timed out, the server vanished without a FIN, the laptop slept)
// only after minutes, and what is sent to the bot meanwhile goes into
// the dead socket. After PingInterval with nothing received the bot
// pings its server; no reply within PingTimeout means the connection is
// dead, and it is closed so Run reconnects (and, with stream management,
// the server stores what the bot never acknowledged: sm.go).
const (
	defaultPingInterval = time.Minute
	defaultPingTimeout  = 20 * time.Second
)

// activityConn records when bytes last arrived, below TLS: whitespace
// keepalives and a stanza still arriving in pieces count too.
type activityConn struct {
	net.Conn
	born time.Time
	last atomic.Int64 // time.Since(born) at the last read, monotonic
}

func newActivityConn(c net.Conn) *activityConn {
	return &activityConn{Conn: c, born: time.Now()}
}

func (c *activityConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.last.Store(int64(time.Since(c.born)))
	}
	return n, err
}

// quiet is how long nothing has arrived.
func (c *activityConn) quiet() time.Duration {
	return time.Since(c.born) - time.Duration(c.last.Load())
}

// link is one connection: its session and socket, the ping replies its
// keepalive waits for, and its stream management state.
type link struct {
	s    *xmpp.Session
	conn *activityConn
	pong chan string // ids of ping replies, from the handler
	sm   smState
}

// pingPrefix starts the ids of the keepalive's pings, so the handler
// knows their replies.
const pingPrefix = "ping-"

// handler sees every stanza of the link first: it counts them for
// stream management, answers its requests, and passes ping replies to
// the keepalive. No IQ is sent with mellium's SendIQ, whose replies
// bypass the handler and would escape the count.
func (t *Transport) handler(l *link) xmpp.Handler {
	return xmpp.HandlerFunc(func(r xmlstream.TokenReadEncoder, start *xml.StartElement) error {
		if start.Name.Space == nsSM {
			return l.sm.handle(t, r, start)
		}
		l.sm.count(start)
		if start.Name.Local == "iq" {
			var id, typ string
			for _, a := range start.Attr {
				switch a.Name.Local {
				case "id":
					id = a.Value
				case "type":
					typ = a.Value
				}
			}
			if (typ == "result" || typ == "error") && strings.HasPrefix(id, pingPrefix) {
				select {
				case l.pong <- id:
				default:
				}
				return nil
			}
		}
		return t.handle(r, start)
	})
}

// keepalive pings the server whenever the connection has been quiet for
// PingInterval. It returns an error once a ping went unanswered, and nil
// when ctx ends.
func (t *Transport) keepalive(ctx context.Context, l *link) error {
	server := jid.MustParse(t.me.Domainpart())
	timer := time.NewTimer(t.o.PingInterval)
	defer timer.Stop()
	for {
		quiet := l.conn.quiet()
		if quiet < t.o.PingInterval {
			timer.Reset(t.o.PingInterval - quiet)
			select {
			case <-ctx.Done():
				return nil
			case <-timer.C:
			}
			continue
		}
		sent := time.Now()
		id := pingPrefix + newID()
		// The ping is written aside: the write may wait behind a stuck
		// answer for the stream's lock, where no deadline applies, and
		// the verdict must not wait for it.
		pctx, cancel := context.WithTimeout(ctx, t.o.PingTimeout)
		written := make(chan error, 1)
		go func() {
			written <- l.s.Send(writeCtx(pctx), ping.IQ{IQ: stanza.IQ{ID: id, Type: stanza.GetIQ, To: server}}.TokenReader())
		}()
		timer.Reset(t.o.PingTimeout)
		err := t.awaitPong(ctx, l, id, written, timer)
		cancel()
		if ctx.Err() != nil {
			return nil
		}
		if err == nil || l.conn.quiet() < time.Since(sent) {
			// A reply, or anything else that arrived since (a slow
			// link still delivering a big stanza), means the peer is
			// there.
			continue
		}
		silent := roughly(l.conn.quiet())
		if err == context.DeadlineExceeded {
			return fmt.Errorf("no reply to a ping within %s (nothing received for %s): the server or the network is gone", t.o.PingTimeout, silent)
		}
		return fmt.Errorf("ping failed (nothing received for %s): %w", silent, err)
	}
}

// awaitPong waits for the reply to ping id: a result, or an error (a
// server without XEP-0199 proves it is there as much). It returns
// context.DeadlineExceeded when timer fires first.
func (t *Transport) awaitPong(ctx context.Context, l *link, id string, written chan error, timer *time.Timer) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case got := <-l.pong:
			if got == id {
				return nil
			}
		case err := <-written:
			if err != nil {
				return err
			}
			written = nil
		case <-timer.C:
			return context.DeadlineExceeded
		}
	}
}

// roughly rounds d for a log line: whole seconds, or milliseconds below
// a second.
func roughly(d time.Duration) time.Duration {
	if d >= time.Second {
		return d.Round(time.Second)
	}
	return d.Round(time.Millisecond)
}

// answersPing reports whether iq is a ping the bot answers: from its server
// (an empty from is the server, or the account's bare JID as mellium
// rewrites it) or from an allowed JID.
func (t *Transport) answersPing(iq iqIn) bool {
	if iq.Type != stanza.GetIQ || iq.Ping == nil {
		return false
	}
	return iq.From.String() == "" || iq.From.String() == t.me.Domainpart() || t.allow.allows(iq.From)
}
