package xmpptest

import (
	"net"
	"strconv"
	"sync"
)

// Relay forwards TCP connections to a server. Freeze turns the
// connections open at that moment into black holes: what either side
// sends is read and dropped, as when a NAT entry times out, while a
// close on one side still closes the other. Later connections relay
// normally.
type Relay struct {
	Port int
	ln   net.Listener
	to   string
	mu   sync.Mutex
	live []*relayed
	wg   sync.WaitGroup
}

type relayed struct {
	a, b   net.Conn
	mu     sync.Mutex
	frozen bool
}

// StartRelay forwards 127.0.0.1:<Port> to addr until the test ends.
func StartRelay(t T, addr string) *Relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("%v", err)
	}
	r := &Relay{Port: ln.Addr().(*net.TCPAddr).Port, ln: ln, to: addr}
	r.wg.Add(1)
	go r.accept()
	t.Cleanup(func() {
		ln.Close()
		r.mu.Lock()
		for _, c := range r.live {
			c.a.Close()
			c.b.Close()
		}
		r.mu.Unlock()
		r.wg.Wait()
	})
	return r
}

// Addr is the relay's address.
func (r *Relay) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(r.Port)) }

// Freeze black-holes the connections open now.
func (r *Relay) Freeze() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.live {
		c.mu.Lock()
		c.frozen = true
		c.mu.Unlock()
	}
}

func (r *Relay) accept() {
	defer r.wg.Done()
	for {
		a, err := r.ln.Accept()
		if err != nil {
			return
		}
		b, err := net.Dial("tcp", r.to)
		if err != nil {
			a.Close()
			continue
		}
		c := &relayed{a: a, b: b}
		r.mu.Lock()
		r.live = append(r.live, c)
		r.mu.Unlock()
		r.wg.Add(2)
		go c.pump(a, b, &r.wg)
		go c.pump(b, a, &r.wg)
	}
}

// pump copies from src to dst until src ends, dropping what it reads
// once frozen, then closes both.
func (c *relayed) pump(src, dst net.Conn, wg *sync.WaitGroup) {
	defer wg.Done()
	defer func() { src.Close(); dst.Close() }()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			c.mu.Lock()
			frozen := c.frozen
			c.mu.Unlock()
			if !frozen {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}
