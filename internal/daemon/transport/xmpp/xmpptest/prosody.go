// Package xmpptest runs a real Prosody on 127.0.0.1 for tests, with a
// generated config, accounts and a self-signed certificate in a temp dir,
// and a small client to talk to the daemon through it. Without prosody
// installed the test is skipped, except with CI=true where it fails.
package xmpptest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Domain is the virtual host; Conference the MUC service.
const (
	Domain     = "localhost"
	Conference = "conference.localhost"
)

// T is the part of testing.TB the helpers use, so testscript commands
// can drive them too.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
	Skip(args ...any)
	TempDir() string
	Cleanup(func())
}

// Prosody is a running server.
type Prosody struct {
	Dir    string
	Port   int
	CAFile string
	t      T
	cmd    *exec.Cmd
	cfg    string
	exited chan struct{}
}

// Addr is the client port's address.
func (p *Prosody) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(p.Port)) }

// Option changes the generated server config.
type Option func(*settings)

type settings struct {
	offline bool
	global  []string
	ssl     string
	hashed  bool
	locking bool
}

// WithOffline enables mod_offline, as Prosody's default config does:
// chat messages to an account with no session are stored and delivered,
// with a delay stamp, when it comes online.
func WithOffline() Option { return func(s *settings) { s.offline = true } }

// WithGlobal adds lines to the config's global section. A key the
// generated config already sets cannot be set again (Prosody 0.12 fails
// to start): authentication and ssl have their own options.
func WithGlobal(lines string) Option {
	return func(s *settings) { s.global = append(s.global, lines) }
}

// WithHashedPasswords uses internal_hashed (SCRAM-SHA-1 and PLAIN), the
// authentication of Debian's default config; the accounts' plain
// passwords are hashed at first use.
func WithHashedPasswords() Option { return func(s *settings) { s.hashed = true } }

// WithRoomLocking keeps Prosody's default muc_room_locking: a new room
// is locked until its creator configures it.
func WithRoomLocking() Option { return func(s *settings) { s.locking = true } }

// WithSSL adds fields to the ssl table (e.g. protocol = "tlsv1_2").
func WithSSL(fields string) Option { return func(s *settings) { s.ssl = fields } }

// Start runs prosody with accounts user → password (localpart only).
func Start(t T, accounts map[string]string, opts ...Option) *Prosody {
	t.Helper()
	bin, err := exec.LookPath("prosody")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("prosody is not installed (CI=true requires it: apt-get install -y prosody)")
		}
		t.Skip("prosody is not installed")
	}
	dir := t.TempDir()
	p := &Prosody{Dir: dir, t: t, cfg: filepath.Join(dir, "prosody.cfg.lua")}
	p.CAFile = filepath.Join(dir, Domain+".crt")
	if err := writeCert(p.CAFile, filepath.Join(dir, Domain+".key")); err != nil {
		t.Fatalf("%v", err)
	}
	acc := filepath.Join(dir, "data", Domain, "accounts")
	if err := os.MkdirAll(acc, 0o700); err != nil {
		t.Fatalf("%v", err)
	}
	for user, pw := range accounts {
		body := fmt.Sprintf("return {\n\t[\"password\"] = %q;\n};\n", pw)
		if err := os.WriteFile(filepath.Join(acc, user+".dat"), []byte(body), 0o600); err != nil {
			t.Fatalf("%v", err)
		}
	}
	var set settings
	for _, o := range opts {
		o(&set)
	}
	modules, disabled := `"roster", "saslauth", "tls", "disco", "presence", "message", "iq", "ping", "posix", "smacks"`, `"s2s", "offline"`
	if set.offline {
		modules, disabled = modules+`, "offline"`, `"s2s"`
	}
	auth := "internal_plain"
	if set.hashed {
		auth = "internal_hashed"
	}
	p.Port = freePort(t)
	cfg := fmt.Sprintf(`run_as_root = true
pidfile = %[1]q
data_path = %[2]q
log = { warn = %[3]q }
c2s_ports = { %[4]d }
c2s_interfaces = { "127.0.0.1" }
s2s_ports = {}
s2s_interfaces = {}
http_ports = {}
https_ports = {}
c2s_direct_tls_ports = {}
component_ports = {}
modules_enabled = { %[10]s }
modules_disabled = { %[11]s }
authentication = %[14]q
storage = "internal"
c2s_require_encryption = true
allow_unencrypted_plain_auth = false
certificates = %[5]q
ssl = { certificate = %[6]q; key = %[7]q; %[13]s }
%[12]s
VirtualHost %[8]q
Component %[9]q "muc"
	muc_room_locking = %[15]t
	restrict_room_creation = false
`, filepath.Join(dir, "prosody.pid"), filepath.Join(dir, "data"), filepath.Join(dir, "prosody.log"), p.Port,
		dir, p.CAFile, filepath.Join(dir, Domain+".key"), Domain, Conference, modules, disabled,
		strings.Join(set.global, "\n"), set.ssl, auth, set.locking)
	if err := os.WriteFile(p.cfg, []byte(cfg), 0o600); err != nil {
		t.Fatalf("%v", err)
	}
	p.start(bin)
	t.Cleanup(p.Stop)
	return p
}

func (p *Prosody) start(bin string) {
	p.t.Helper()
	cmd := exec.Command(bin, "-F", "--config", p.cfg)
	cmd.Dir = p.Dir
	out, err := os.Create(filepath.Join(p.Dir, "stdout.log"))
	if err != nil {
		p.t.Fatalf("%v", err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = startAttrs()
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("%v", err)
	}
	out.Close()
	p.cmd, p.exited = cmd, make(chan struct{})
	go func(c *exec.Cmd, ch chan struct{}) { _ = c.Wait(); close(ch) }(cmd, p.exited)
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", p.Addr(), 200*time.Millisecond)
		if err == nil {
			c.Close()
			return
		}
		select {
		case <-p.exited:
			p.t.Fatalf("prosody exited at start:\n%s", p.Logs())
		default:
		}
		if time.Now().After(deadline) {
			p.Stop()
			p.t.Fatalf("prosody did not listen on %s:\n%s", p.Addr(), p.Logs())
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// Logs returns prosody's output, for failure messages.
func (p *Prosody) Logs() string {
	a, _ := os.ReadFile(filepath.Join(p.Dir, "stdout.log"))
	b, _ := os.ReadFile(filepath.Join(p.Dir, "prosody.log"))
	return string(a) + string(b)
}

// Stop terminates the server (and its process group) and waits for it.
func (p *Prosody) Stop() {
	if p.cmd == nil {
		return
	}
	pauseGroup(p.cmd.Process, false) // a paused server cannot exit
	signalGroup(p.cmd.Process, false)
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		signalGroup(p.cmd.Process, true)
		<-p.exited
	}
	p.cmd = nil
}

// Pause stops the server's processes (SIGSTOP) without closing their
// sockets: a server that vanished, as far as its clients can tell.
func (p *Prosody) Pause() {
	if p.cmd != nil {
		pauseGroup(p.cmd.Process, true)
	}
}

// Resume continues a paused server.
func (p *Prosody) Resume() {
	if p.cmd != nil {
		pauseGroup(p.cmd.Process, false)
	}
}

// Restart stops the server and starts it again on the same port.
func (p *Prosody) Restart() {
	p.t.Helper()
	p.Stop()
	bin, _ := exec.LookPath("prosody")
	p.start(bin)
}

func freePort(t T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("%v", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// writeCert writes a self-signed certificate for the domain and its
// conference service; it is its own CA (the daemon's ca_file).
func writeCert(certFile, keyFile string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: Domain},
		DNSNames:              []string{Domain, Conference},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return err
	}
	return os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
}

// JID returns user@localhost.
func JID(user string) string { return user + "@" + Domain }

// Room returns name@conference.localhost.
func Room(name string) string { return strings.ToLower(name) + "@" + Conference }
