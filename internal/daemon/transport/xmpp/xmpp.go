// Package xmpp is the daemon's XMPP transport: it logs in with STARTTLS,
// answers direct chat from allowed JIDs and group chat in rooms it was
// invited to by an allowed JID, and reconnects with capped backoff. It
// only translates stanzas: routing, queues and turns belong to
// daemon.Chat and daemon.Service.
package xmpp

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"reflect"
	"strconv"
	"sync"
	"time"

	"mellium.im/sasl"
	"mellium.im/xmpp"
	"mellium.im/xmpp/jid"
	"mellium.im/xmpp/stanza"
	"mellium.im/xmpp/stream"

	"github.com/askygo/asky/internal/daemon/transport/xmpp/bind"

	"github.com/askygo/asky/internal/config"
	"github.com/askygo/asky/internal/daemon"
)

// Name is the transport's name on the status board.
const Name = "xmpp"

// Options configure a Transport.
type Options struct {
	Config   config.XMPP
	Password string
	Chat     *daemon.Chat
	Board    *daemon.Board
	// RoomsFile persists the rooms bound through invites (JSON).
	RoomsFile string
	// Log gets one line per notable event; nil discards.
	Log io.Writer
	// MinBackoff and MaxBackoff bound the reconnect delay; zero uses 1 s
	// and 60 s.
	MinBackoff, MaxBackoff time.Duration
	// DeliveryWait is how long an answer waits for a reconnect before it
	// is given up; zero uses 5 minutes.
	DeliveryWait time.Duration
	// LoginTimeout bounds the dial and the login; zero uses 30 s.
	LoginTimeout time.Duration
	// PingInterval is how long the connection may stay quiet before the
	// bot pings its server, and PingTimeout how long it waits for the
	// reply before it reconnects; zero uses 60 s and 20 s.
	PingInterval, PingTimeout time.Duration
	Now                       func() time.Time
}

// Transport is one XMPP client connection and its handlers.
type Transport struct {
	o      Options
	me     jid.JID
	allow  allowlist
	tlsCfg *tls.Config
	addr   string

	mu      sync.Mutex
	sess    *xmpp.Session
	up      chan struct{} // closed when a session is up; replaced on loss
	dropped map[string]time.Time
	rooms   *rooms
	seen    *roomSeen
	hist    map[string]*historyBatch // rooms whose join history is arriving
	disp    daemon.Dispatcher
	ctx     context.Context
	stopped bool
}

// New checks the configuration and returns a Transport; nothing connects
// until Run.
func New(o Options) (*Transport, error) {
	c := o.Config
	me, err := jid.Parse(c.JID)
	if err != nil || me.Localpart() == "" {
		return nil, fmt.Errorf("xmpp.jid %q is not a user@domain address", c.JID)
	}
	if c.Resource != "" && me.Resourcepart() == "" {
		if me, err = me.WithResource(c.Resource); err != nil {
			return nil, fmt.Errorf("xmpp.resource %q: %w", c.Resource, err)
		}
	}
	if o.Password == "" {
		return nil, fmt.Errorf("no XMPP password: set the variable named by xmpp.password_env (%s) or xmpp.password_cmd", c.PasswordEnv)
	}
	allow, err := parseAllowlist(c.AllowedJIDs)
	if err != nil {
		return nil, err
	}
	host := c.Host
	if host == "" {
		host = me.Domainpart()
	}
	port := c.Port
	if port == 0 {
		port = 5222
	}
	t := &Transport{o: o, me: me, allow: allow, addr: net.JoinHostPort(host, strconv.Itoa(port)),
		up: make(chan struct{}), dropped: map[string]time.Time{}, hist: map[string]*historyBatch{}}
	if t.tlsCfg, err = tlsConfig(c, me.Domainpart(), host); err != nil {
		return nil, err
	}
	if t.o.Now == nil {
		t.o.Now = time.Now
	}
	if t.o.Log == nil {
		t.o.Log = io.Discard
	}
	if t.o.MinBackoff <= 0 {
		t.o.MinBackoff = time.Second
	}
	if t.o.MaxBackoff <= 0 {
		t.o.MaxBackoff = time.Minute
	}
	if t.o.DeliveryWait <= 0 {
		t.o.DeliveryWait = 5 * time.Minute
	}
	if t.o.LoginTimeout <= 0 {
		t.o.LoginTimeout = 30 * time.Second
	}
	if t.o.PingInterval <= 0 {
		t.o.PingInterval = defaultPingInterval
	}
	if t.o.PingTimeout <= 0 {
		t.o.PingTimeout = defaultPingTimeout
	}
	if t.rooms, err = loadRooms(o.RoomsFile); err != nil {
		return nil, err
	}
	if t.seen, err = loadSeen(seenPath(o.RoomsFile), t.o.Now); err != nil {
		return nil, err
	}
	if o.Board != nil {
		o.Board.Register(Name, "xmpp:", "xmpp-room:")
	}
	return t, nil
}

// tlsConfig verifies the server against ca_file or the system roots.
// tls_insecure_loopback is honoured only for a loopback host, so a config
// copied to a real server never silently skips verification.
func tlsConfig(c config.XMPP, domain, host string) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: domain, MinVersion: tls.VersionTLS12}
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("xmpp.ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("xmpp.ca_file %s holds no PEM certificate", c.CAFile)
		}
		cfg.RootCAs = pool
	}
	if c.TLSInsecureLoopback {
		if !isLoopback(host) {
			return nil, fmt.Errorf("xmpp.tls_insecure_loopback only applies to a server on a loopback address, not %q; use xmpp.ca_file", host)
		}
		cfg.InsecureSkipVerify = true //nolint:gosec // explicit, loopback-only test setting
	}
	return cfg, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Run connects and serves until ctx ends, reconnecting with capped
// backoff; it returns once the answers in flight were delivered or given
// up.
func (t *Transport) Run(ctx context.Context) error {
	t.mu.Lock()
	t.ctx = ctx
	t.mu.Unlock()
	defer t.disp.Wait()
	backoff := t.o.MinBackoff
	lastLogged := ""
	wait := func(err error) bool {
		t.setState(daemon.StateReconnecting, err)
		// The same failure every retry (a wrong password, the server
		// down) is logged once; the board keeps the latest.
		if line := t.explain(err); line != lastLogged {
			lastLogged = line
			if backoff < t.o.MaxBackoff {
				fmt.Fprintf(t.o.Log, "xmpp: %s; retrying in %s, then up to every %s\n", line, backoff, t.o.MaxBackoff)
			} else {
				fmt.Fprintf(t.o.Log, "xmpp: %s; retrying every %s\n", line, backoff)
			}
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, t.o.MaxBackoff)
		return true
	}
	for {
		t.setState(daemon.StateStarting, nil)
		s, conn, err := t.connect(ctx)
		if err != nil {
			if ctx.Err() != nil {
				t.setState(daemon.StateStopped, nil)
				return nil
			}
			if authFailed(err) {
				// Retrying a refused password fast only gets the
				// account rate-limited.
				backoff = t.o.MaxBackoff
			}
			if !wait(err) {
				t.setState(daemon.StateStopped, nil)
				return nil
			}
			continue
		}
		fmt.Fprintf(t.o.Log, "xmpp: connected as %s\n", s.LocalAddr())
		began := time.Now()
		err = t.serve(ctx, s, conn)
		if ctx.Err() != nil {
			t.setState(daemon.StateStopped, nil)
			return nil
		}
		err = fmt.Errorf("connection lost: %w", err)
		if time.Since(began) >= stableSession {
			fmt.Fprintf(t.o.Log, "xmpp: %s\n", t.explain(err))
			backoff, lastLogged = t.o.MinBackoff, ""
			t.setState(daemon.StateReconnecting, err)
			continue
		}
		// A session that ends at once (another client taking the same
		// resource, the server refusing a stanza) must not become a
		// reconnect loop: wait as after a failed connect.
		if !wait(err) {
			t.setState(daemon.StateStopped, nil)
			return nil
		}
	}
}

// stableSession is how long a session must last for the next reconnect
// to start again from MinBackoff.
const stableSession = 30 * time.Second

// authFailed reports whether err is the server refusing the credentials
// (a SASL failure; mellium keeps its type internal).
func authFailed(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if reflect.TypeOf(err).PkgPath() == "mellium.im/xmpp/internal/saslerr" {
			return true
		}
	}
	return false
}

// explain turns a connect failure into one line that says what to fix.
func (t *Transport) explain(err error) string {
	var unknownCA x509.UnknownAuthorityError
	var badHost x509.HostnameError
	switch {
	case authFailed(err):
		where := "xmpp.password_cmd"
		if t.o.Config.PasswordCmd == "" && t.o.Config.PasswordEnv != "" {
			where = t.o.Config.PasswordEnv + " (xmpp.password_env)"
		}
		return fmt.Sprintf("the server refused the password for %s: check %s (server said: %v)", t.me.Bare(), where, errors.Unwrap(err))
	case errors.As(err, &unknownCA):
		return fmt.Sprintf("%v: set xmpp.ca_file to the server's CA certificate (PEM)", err)
	case errors.As(err, &badHost):
		return fmt.Sprintf("%v: the certificate must name the JID's domain", err)
	case errors.Is(err, stream.Conflict):
		return fmt.Sprintf("%v: another client logged in as %s (a second daemon? give each its own xmpp.resource)", err, t.me)
	}
	return err.Error()
}

func (t *Transport) setState(state string, err error) {
	if t.o.Board != nil {
		t.o.Board.Set(Name, state, err)
	}
}

// connect dials, negotiates STARTTLS + SASL + bind and sends presence.
// It returns the TCP connection too: the keepalive watches its reads and
// closes it when the server stops answering.
func (t *Transport) connect(ctx context.Context) (*xmpp.Session, *activityConn, error) {
	deadline := time.Now().Add(t.o.LoginTimeout)
	var d net.Dialer
	dctx, cancel := context.WithDeadline(ctx, deadline)
	raw, err := d.DialContext(dctx, "tcp", t.addr)
	cancel()
	if err != nil {
		return nil, nil, err
	}
	conn := newActivityConn(raw)
	// mellium ends a negotiation whose context ends by setting a past
	// deadline and clearing it at once, which a blocked read can miss: a
	// server that accepts the connection and says nothing (a stopped
	// process) would hold the login forever. A deadline on the socket
	// bounds it, and stopping the daemon closes the socket.
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	fail := func(err error) (*xmpp.Session, *activityConn, error) {
		conn.Close()
		if ctx.Err() == nil && (errors.Is(err, os.ErrDeadlineExceeded) || !time.Now().Before(deadline)) {
			return nil, nil, fmt.Errorf("log in to %s: no answer within %s: the server is stuck or the network drops packets", t.addr, t.o.LoginTimeout)
		}
		return nil, nil, fmt.Errorf("log in to %s: %w", t.addr, err)
	}
	s, err := xmpp.NewClientSession(ctx, t.me, conn,
		xmpp.StartTLS(t.tlsCfg),
		xmpp.SASL("", t.o.Password, sasl.ScramSha256Plus, sasl.ScramSha1Plus, sasl.ScramSha256, sasl.ScramSha1, sasl.Plain),
		bind.Feature(),
	)
	if err != nil {
		return fail(err)
	}
	if err := enableSM(writeCtx(ctx), s); err != nil {
		s.Close()
		return fail(err)
	}
	if err := s.Send(writeCtx(ctx), stanza.Presence{}.Wrap(nil)); err != nil {
		s.Close()
		return fail(err)
	}
	if err := conn.SetDeadline(time.Time{}); err != nil {
		return fail(err)
	}
	return s, conn, nil
}

// serve handles stanzas until the connection ends, the keepalive finds
// it dead, or ctx is done.
func (t *Transport) serve(ctx context.Context, s *xmpp.Session, conn *activityConn) error {
	l := &link{s: s, conn: conn, pong: make(chan string, 4)}
	done := make(chan error, 1)
	go func() { done <- s.Serve(t.handler(l)) }()
	kctx, stopKeepalive := context.WithCancel(ctx)
	defer stopKeepalive()
	dead := make(chan error, 1)
	go func() {
		if err := t.keepalive(kctx, l); err != nil {
			dead <- err
		}
	}()
	t.mu.Lock()
	t.sess = s
	close(t.up)
	t.mu.Unlock()
	t.setState(daemon.StateConnected, nil)
	for _, room := range t.rooms.list() {
		t.rooms.setNick(room, "") // the configured nick first again
		t.join(ctx, s, room)
	}
	var err error
	select {
	case err = <-done:
	case err = <-dead:
		// Closing the socket itself, not the stream, unblocks the
		// reader and any writer stuck on the silent peer at once.
		conn.Close()
		<-done
	case <-ctx.Done():
		// Let the answers in flight (interrupted turns) go out before
		// closing the stream, and acknowledge what was received so the
		// server does not store it again for the next login.
		t.disp.Wait()
		l.sm.ackNow(s)
	}
	t.mu.Lock()
	t.sess = nil
	t.up = make(chan struct{})
	t.stopped = ctx.Err() != nil
	t.mu.Unlock()
	if err := t.seen.flush(); err != nil {
		fmt.Fprintf(t.o.Log, "xmpp: could not save when rooms were seen: %v\n", err)
	}
	if ctx.Err() != nil {
		s.Close()
		s.Conn().Close()
		<-done
		return nil
	}
	s.Conn().Close()
	if err == nil {
		err = errors.New("the server closed the stream")
	}
	return err
}

// send encodes v on the current session, waiting for a reconnect when the
// connection is down (up to DeliveryWait). wait=false gives up at once
// (status updates are not worth waiting for).
func (t *Transport) send(ctx context.Context, v any, wait bool) error {
	deadline := time.NewTimer(t.o.DeliveryWait)
	defer deadline.Stop()
	for {
		t.mu.Lock()
		s, up, stopped := t.sess, t.up, t.stopped
		t.mu.Unlock()
		if s == nil && stopped {
			return errors.New("not delivered: the daemon stopped")
		}
		if s != nil {
			err := s.Encode(writeCtx(ctx), v)
			if err == nil {
				return nil
			}
			if !wait {
				return err
			}
			// The connection is dying: wait for serve to notice and
			// reconnect, then send again.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-deadline.C:
				return fmt.Errorf("not delivered: %w", err)
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		if !wait {
			return errors.New("not connected")
		}
		select {
		case <-up:
		case <-ctx.Done():
			return ctx.Err()
		case <-t.runCtx().Done():
			return errors.New("not delivered: the daemon stopped while disconnected")
		case <-deadline.C:
			return errors.New("not delivered: no connection to the XMPP server")
		}
	}
}

// runCtx is the context turns run in: Run's, so stopping the daemon
// interrupts them.
func (t *Transport) runCtx() context.Context {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ctx == nil {
		return context.Background()
	}
	return t.ctx
}
