// Package smtpd is the small receiving SMTP server behind the development mailbox, the
// tests' mailtest server and the received invoices' inbound listener: it hands every
// accepted message, raw, to a delivery function. It listens on the loopback address
// unless told another address (the inbound listener, behind the production MTA).
package smtpd

import (
	"bytes"
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// MaxMessageBytes is the default size limit of one message.
const MaxMessageBytes = 1 << 20

// Delivery is one accepted message: the envelope and the raw data.
type Delivery struct {
	From string
	To   []string
	Data []byte
}

// Options configure a Server; the zero value is plain SMTP with no authentication.
type Options struct {
	// MaxMessageBytes defaults to MaxMessageBytes.
	MaxMessageBytes int64
	// TLSConfig, when set, makes the server offer STARTTLS, or speak TLS from the
	// first byte when ImplicitTLS is set.
	TLSConfig   *tls.Config
	ImplicitTLS bool
	// Username and Password, when set, require SMTP AUTH (PLAIN or LOGIN) before MAIL.
	Username, Password string
	ErrorLog           smtp.Logger
	// Addr is where to listen; "" is 127.0.0.1 on a free port.
	Addr string
	// Domain is the name the server greets with; "" is localhost.
	Domain string
	// Recipient, when set, is asked about each RCPT TO: its error refuses that address
	// (a *Reject keeps its code), so unknown addresses are refused before any data.
	Recipient func(ctx context.Context, to string) error
	// MaxRecipients defaults to 50.
	MaxRecipients int
}

// Reject is a refusal with its SMTP reply: a delivery or recipient function returns
// it to answer Code (4xx temporary, 5xx permanent), the enhanced status code and a
// one-line ASCII message, which the sending MTA quotes in its bounce.
type Reject struct {
	Code     int
	Enhanced [3]int
	Message  string
}

func (r *Reject) Error() string {
	return fmt.Sprintf("%d %d.%d.%d %s", r.Code, r.Enhanced[0], r.Enhanced[1], r.Enhanced[2], r.Message)
}

func (r *Reject) smtp() *smtp.SMTPError {
	return &smtp.SMTPError{Code: r.Code, EnhancedCode: smtp.EnhancedCode(r.Enhanced), Message: oneLine(r.Message)}
}

// Server is a running server.
type Server struct {
	srv     *smtp.Server
	ln      net.Listener
	tracked *trackedListener
	addr    string
	done    chan struct{}
	once    sync.Once
}

// Start listens on 127.0.0.1 on a free port and serves until Close. deliver runs for
// each message; its error is the SMTP client's error.
func Start(o Options, deliver func(context.Context, Delivery) error) (*Server, error) {
	be := smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		s := &session{deliver: deliver, recipient: o.Recipient}
		if o.Username != "" {
			return &authSession{session: s, username: o.Username, password: o.Password}, nil
		}
		return s, nil
	})
	srv := smtp.NewServer(be)
	srv.Domain = "localhost"
	if o.Domain != "" {
		srv.Domain = o.Domain
	}
	srv.MaxMessageBytes = o.MaxMessageBytes
	if srv.MaxMessageBytes <= 0 {
		srv.MaxMessageBytes = MaxMessageBytes
	}
	srv.MaxRecipients = 50
	if o.MaxRecipients > 0 {
		srv.MaxRecipients = o.MaxRecipients
	}
	srv.ReadTimeout = 30 * time.Second
	srv.WriteTimeout = 30 * time.Second
	// Loopback only: AUTH without TLS exposes nothing on the network.
	srv.AllowInsecureAuth = true
	srv.TLSConfig = o.TLSConfig
	if o.ErrorLog != nil {
		srv.ErrorLog = o.ErrorLog
	}

	addr := o.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	raw, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	tracked := &trackedListener{Listener: raw, conns: map[*trackedConn]struct{}{}}
	var ln net.Listener = tracked
	if o.ImplicitTLS {
		if o.TLSConfig == nil {
			ln.Close()
			return nil, errors.New("smtpd: implicit TLS needs a TLS config")
		}
		ln = tls.NewListener(ln, o.TLSConfig)
	}
	s := &Server{srv: srv, ln: ln, tracked: tracked, addr: ln.Addr().String(), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = srv.Serve(ln)
	}()
	return s, nil
}

// Addr is host:port of the listener.
func (s *Server) Addr() string { return s.addr }

// Close stops accepting, lets a message being received finish for up to a second
// (a megabyte on the loopback takes far less), then drops the connections left, such
// as one a client abandoned after a failed TLS handshake. It is safe to call more
// than once.
func (s *Server) Close() error {
	s.once.Do(func() {
		// Closing the listener ourselves and waiting for Serve to return, before
		// go-smtp's Shutdown, avoids two races in go-smtp: Shutdown closes only the
		// listeners Serve has registered already, and Serve may still add a
		// connection to the WaitGroup that Shutdown waits on.
		_ = s.ln.Close()
		<-s.done
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := s.srv.Shutdown(ctx); errors.Is(err, context.DeadlineExceeded) {
			s.tracked.closeAll()
		}
	})
	return nil
}

// trackedListener remembers the open connections so that Close can end those that
// outlive the grace period (go-smtp's own Close does nothing after Shutdown).
type trackedListener struct {
	net.Listener
	mu    sync.Mutex
	conns map[*trackedConn]struct{}
}

func (l *trackedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, l: l}
	l.mu.Lock()
	l.conns[tc] = struct{}{}
	l.mu.Unlock()
	return tc, nil
}

func (l *trackedListener) closeAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		_ = c.Conn.Close()
	}
}

type trackedConn struct {
	net.Conn
	l *trackedListener
}

func (c *trackedConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

type session struct {
	deliver   func(context.Context, Delivery) error
	recipient func(context.Context, string) error
	from      string
	to        []string
	authed    bool
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if s.recipient != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.recipient(ctx, to); err != nil {
			return replyOf(err)
		}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r); err != nil {
		return err // too large, or the connection broke
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.deliver(ctx, Delivery{From: s.from, To: s.to, Data: buf.Bytes()}); err != nil {
		return replyOf(err)
	}
	return nil
}

// replyOf is the SMTP reply of a delivery's or recipient's error: a Reject's own, else
// a temporary failure, so that the sender retries what we could not store.
func replyOf(err error) *smtp.SMTPError {
	var r *Reject
	if errors.As(err, &r) {
		return r.smtp()
	}
	return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "message not stored: " + oneLine(err.Error())}
}

func (s *session) Reset() { s.from, s.to = "", nil }

func (s *session) Logout() error { return nil }

// authSession requires AUTH before MAIL.
type authSession struct {
	*session
	username, password string
}

func (s *authSession) AuthMechanisms() []string { return []string{sasl.Plain, sasl.Login} }

func (s *authSession) Auth(mech string) (sasl.Server, error) {
	check := func(username, password string) error {
		if subtle.ConstantTimeCompare([]byte(username), []byte(s.username)) != 1 ||
			subtle.ConstantTimeCompare([]byte(password), []byte(s.password)) != 1 {
			return smtp.ErrAuthFailed
		}
		s.authed = true
		return nil
	}
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(_, username, password string) error { return check(username, password) }), nil
	case sasl.Login:
		return &loginServer{check: check}, nil
	}
	return nil, smtp.ErrAuthUnknownMechanism
}

func (s *authSession) Mail(from string, opts *smtp.MailOptions) error {
	if !s.authed {
		return smtp.ErrAuthRequired
	}
	return s.session.Mail(from, opts)
}

// loginServer is the server side of the LOGIN mechanism, which go-sasl does not have:
// it asks for the user name, then the password.
type loginServer struct {
	check    func(username, password string) error
	username string
	step     int
}

func (l *loginServer) Next(response []byte) ([]byte, bool, error) {
	switch l.step {
	case 0:
		l.step = 1
		if response == nil {
			return []byte("Username:"), false, nil
		}
		fallthrough // the client sent the user name as its initial response
	case 1:
		l.username, l.step = string(response), 2
		return []byte("Password:"), false, nil
	default:
		return nil, true, l.check(l.username, string(response))
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
