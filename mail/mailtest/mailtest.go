// Package mailtest runs a real SMTP server inside a test, so that tests send mail
// through the same code as production and read what arrived: subjects and bodies
// decoded, one-time codes extracted.
//
//	srv := mailtest.NewServer(t)
//	sender, _ := mail.NewSMTP(srv.URL(), "no-reply@example.jp")
//	// … the code under test sends a mail …
//	got := srv.WaitFor(t, "user@example.jp", 5*time.Second)
//	code := mailtest.Code(got.Text)
package mailtest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"log"
	"math/big"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"cardpay/mail"
	"cardpay/mail/internal/smtpd"
)

// Server is an SMTP server that keeps what it receives in memory.
type Server struct {
	srv       *smtpd.Server
	url       string
	clientTLS *tls.Config

	mu      sync.Mutex
	msgs    []message
	arrived chan struct{} // closed and replaced whenever a message arrives
}

type message struct {
	mail.Received
	rcpts []string // envelope recipients
	taken bool     // already returned by WaitFor
}

// Option changes how NewServer's server behaves.
type Option func(*config)

type config struct {
	username, password string
	startTLS, implicit bool
}

// WithAuth requires SMTP AUTH (PLAIN or LOGIN) with these credentials; URL includes them.
func WithAuth(username, password string) Option {
	return func(c *config) { c.username, c.password = username, password }
}

// WithSTARTTLS makes the server offer STARTTLS with a certificate made for the test;
// ClientTLSConfig trusts it.
func WithSTARTTLS() Option { return func(c *config) { c.startTLS = true } }

// WithImplicitTLS makes the server speak TLS from the first byte; URL is smtps://.
func WithImplicitTLS() Option { return func(c *config) { c.implicit = true } }

// NewServer starts a server on 127.0.0.1 on a free port, stopped when the test ends.
func NewServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	var c config
	for _, o := range opts {
		o(&c)
	}
	s := &Server{arrived: make(chan struct{})}
	o := smtpd.Options{
		Username: c.username, Password: c.password, ImplicitTLS: c.implicit,
		ErrorLog: log.New(os.Stderr, "mailtest: ", 0),
	}
	if c.startTLS || c.implicit {
		serverTLS, clientTLS, err := selfSigned()
		if err != nil {
			t.Fatalf("mailtest: certificate: %v", err)
		}
		o.TLSConfig, s.clientTLS = serverTLS, clientTLS
	}
	srv, err := smtpd.Start(o, s.deliver)
	if err != nil {
		t.Fatalf("mailtest: start: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	s.srv = srv
	u := url.URL{Scheme: "smtp", Host: srv.Addr()}
	if c.implicit {
		u.Scheme = "smtps"
	}
	if c.username != "" {
		u.User = url.UserPassword(c.username, c.password)
	}
	s.url = u.String()
	return s
}

func (s *Server) deliver(_ context.Context, d smtpd.Delivery) error {
	r, err := mail.Decode(d.Data)
	if err != nil {
		return err
	}
	r.ReceivedAt = time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	r.ID = int64(len(s.msgs) + 1)
	s.msgs = append(s.msgs, message{Received: r, rcpts: d.To})
	close(s.arrived)
	s.arrived = make(chan struct{})
	return nil
}

// URL is the server's SMTP URL for mail.NewSMTP, with the credentials of WithAuth.
func (s *Server) URL() string { return s.url }

// ClientTLSConfig trusts the server's test certificate; nil without TLS.
func (s *Server) ClientTLSConfig() *tls.Config {
	if s.clientTLS == nil {
		return nil
	}
	return s.clientTLS.Clone()
}

// Messages returns every message received so far, oldest first.
func (s *Server) Messages() []mail.Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]mail.Received, len(s.msgs))
	for i, m := range s.msgs {
		out[i] = m.Received
	}
	return out
}

// WaitFor returns the oldest message to address (compared without regard to case) that
// no earlier WaitFor returned, waiting up to timeout for it to arrive; otherwise it
// fails the test, listing what did arrive. Call it from the test's goroutine.
func (s *Server) WaitFor(t testing.TB, address string, timeout time.Duration) mail.Received {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		for i := range s.msgs {
			if m := &s.msgs[i]; !m.taken && m.addressedTo(address) {
				m.taken = true
				s.mu.Unlock()
				return m.Received
			}
		}
		arrived := s.arrived
		s.mu.Unlock()
		select {
		case <-arrived:
		case <-deadline.C:
			t.Fatalf("mailtest: no new mail to %s within %v; received: %s", address, timeout, s.summary())
			return mail.Received{}
		}
	}
}

func (m *message) addressedTo(address string) bool {
	address = strings.TrimSpace(address)
	for _, r := range m.rcpts {
		if strings.EqualFold(r, address) {
			return true
		}
	}
	for _, to := range strings.Split(m.To, ",") {
		to = strings.TrimSpace(to)
		if i := strings.LastIndexByte(to, '<'); i >= 0 {
			to = strings.TrimSuffix(to[i+1:], ">")
		}
		if strings.EqualFold(to, address) {
			return true
		}
	}
	return false
}

func (s *Server) summary() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.msgs) == 0 {
		return "nothing"
	}
	var b strings.Builder
	for i, m := range s.msgs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(m.To + " " + m.Subject)
		if m.taken {
			b.WriteString(" (already taken)")
		}
	}
	return b.String()
}

// codeLine is a line holding nothing but a six-digit code: the mails put codes on a
// line of their own.
var codeLine = regexp.MustCompile(`(?m)^[ \t　]*([0-9]{6})[ \t　]*$`)

// Code returns the first six-digit code standing on a line of its own in text, or "".
func Code(text string) string {
	m := codeLine.FindStringSubmatch(strings.ReplaceAll(text, "\r\n", "\n"))
	if m == nil {
		return ""
	}
	return m[1]
}

// selfSigned makes a certificate for 127.0.0.1 and localhost and a client
// configuration that trusts it.
func selfSigned() (server, client *tls.Config, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "mailtest"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	server = &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}},
		MinVersion:   tls.VersionTLS12,
	}
	return server, &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}
