package xmpp

import (
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"mellium.im/xmpp"
	"mellium.im/xmpp/jid"
	"mellium.im/xmpp/ping"
	"mellium.im/xmpp/stanza"
)

// Keepalive (XEP-0199): TCP keepalive notices a dead connection (a NAT
// entry timed out, the server vanished without a FIN, the laptop slept)
// only after minutes, and what is sent to the bot meanwhile is lost.
// After PingInterval with nothing received the bot pings its server; no
// reply within PingTimeout means the connection is dead, and it is
// closed so Run reconnects.
const (
	defaultPingInterval = time.Minute
	defaultPingTimeout  = 20 * time.Second
)

// activityConn records when bytes last arrived, below TLS: whitespace
// keepalives and IQ replies, which no stanza handler sees, count too.
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

// keepalive pings the server whenever the connection has been quiet for
// PingInterval. It returns an error once a ping went unanswered, and nil
// when ctx ends.
func (t *Transport) keepalive(ctx context.Context, s *xmpp.Session, conn *activityConn) error {
	server := jid.MustParse(t.me.Domainpart())
	timer := time.NewTimer(t.o.PingInterval)
	defer timer.Stop()
	for {
		quiet := conn.quiet()
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
		// The ping runs aside: its write may wait behind a stuck answer
		// for the stream's lock, where no deadline applies, and the
		// verdict must not wait for it.
		pctx, cancel := context.WithTimeout(ctx, t.o.PingTimeout)
		replied := make(chan error, 1)
		go func() { replied <- sendPing(pctx, s, server) }()
		timer.Reset(t.o.PingTimeout)
		var err error
		select {
		case <-ctx.Done():
			cancel()
			return nil
		case err = <-replied:
		case <-timer.C:
			err = context.DeadlineExceeded
		}
		cancel()
		if err == nil || conn.quiet() < time.Since(sent) {
			// A reply, or anything else that arrived since (a slow
			// link still delivering a big stanza), means the peer is
			// there.
			continue
		}
		if ctx.Err() != nil {
			return nil
		}
		silent := roughly(conn.quiet())
		if err == context.DeadlineExceeded {
			return fmt.Errorf("no reply to a ping within %s (nothing received for %s): the server or the network is gone", t.o.PingTimeout, silent)
		}
		return fmt.Errorf("ping failed (nothing received for %s): %w", silent, err)
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

// sendPing sends a ping IQ to the server and waits for the reply: an
// error reply (the server does not support pings) proves it is there as
// much as a result does.
func sendPing(ctx context.Context, s *xmpp.Session, to jid.JID) error {
	resp, err := s.SendIQ(ctx, ping.IQ{IQ: stanza.IQ{Type: stanza.GetIQ, To: to}}.TokenReader())
	if err != nil {
		return err
	}
	return resp.Close()
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
