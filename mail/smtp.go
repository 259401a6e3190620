package mail

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	netmail "net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"cardpay/pay"
)

// sendTimeout bounds a whole delivery: connecting, TLS, AUTH and DATA.
const sendTimeout = 10 * time.Second

// smtpSender delivers each message on a connection of its own, so that concurrent
// requests share no SMTP state; our volume is a few mails per user action.
type smtpSender struct {
	host        string
	port        int
	implicitTLS bool
	// requireTLS (production) refuses to send over a connection that STARTTLS did not
	// secure, instead of falling back to plain text when the server does not offer it.
	requireTLS bool
	username   string
	password   string
	hasUser    bool
	from       *netmail.Address
	tlsConfig  *tls.Config
}

// NewSMTP returns a Sender for rawURL, SMTP_URL in the configuration:
//
//	smtp://host:port            plain SMTP; STARTTLS whenever the server offers it
//	smtp://user:pass@host:587   the same, with SMTP AUTH (PLAIN, else LOGIN)
//	smtps://host:465            implicit TLS
//
// The port defaults to 25 for smtp and 465 for smtps. Credentials are only ever sent
// over TLS (or to a server on the loopback address). from is the From header, a bare
// address or one with a display name, e.g. "請求書カード払い <no-reply@example.jp>".
func NewSMTP(rawURL, from string) (Sender, error) {
	return newSMTP(rawURL, from, nil)
}

// NewSMTPRequiringTLS is NewSMTP for production: every delivery is over TLS, implicit
// (smtps://) or by STARTTLS, which an smtp:// server must then offer — a server that
// does not, or a connection stripped of it on the way, gets no mail rather than a
// password reset link in plain text.
func NewSMTPRequiringTLS(rawURL, from string) (Sender, error) {
	s, err := newSMTP(rawURL, from, nil)
	if err != nil {
		return nil, err
	}
	s.requireTLS = true
	return s, nil
}

func newSMTP(rawURL, from string, tlsConfig *tls.Config) (*smtpSender, error) {
	s, err := parseSMTPURL(rawURL)
	if err != nil {
		return nil, err
	}
	addr, err := netmail.ParseAddress(from)
	if err != nil {
		return nil, fmt.Errorf("mail: the From address %q is not a valid e-mail address", from)
	}
	s.from = addr
	// The system roots, verified against the URL's host; tests pass their own roots.
	s.tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	if tlsConfig != nil {
		s.tlsConfig = tlsConfig.Clone()
	}
	if s.tlsConfig.ServerName == "" {
		s.tlsConfig.ServerName = s.host
	}
	return s, nil
}

// parseSMTPURL never puts the URL itself in an error: it may hold a password.
func parseSMTPURL(rawURL string) (*smtpSender, error) {
	const form = "use smtp://host:port, smtp://user:password@host:587 or smtps://host:465"
	if strings.TrimSpace(rawURL) == "" {
		return nil, errors.New("mail: SMTP_URL is empty (" + form + ")")
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("mail: SMTP_URL is not a valid URL (%v); %s", err, form)
	}
	s := &smtpSender{}
	switch u.Scheme {
	case "smtp":
		s.port = 25
	case "smtps":
		s.port, s.implicitTLS = 465, true
	default:
		return nil, fmt.Errorf("mail: SMTP_URL must start with smtp:// or smtps://, not %q; %s", u.Scheme+":", form)
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return nil, errors.New("mail: SMTP_URL has no host; " + form)
	}
	s.host = u.Hostname()
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("mail: SMTP_URL port must be 1-65535, got %q", p)
		}
		s.port = n
	} else if strings.HasSuffix(u.Host, ":") {
		return nil, errors.New("mail: SMTP_URL has an empty port; " + form)
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("mail: SMTP_URL takes no path, query or fragment; " + form)
	}
	if u.User != nil {
		s.username = u.User.Username()
		s.password, _ = u.User.Password()
		if s.username == "" {
			return nil, errors.New("mail: SMTP_URL has a password but no user name")
		}
		s.hasUser = true
	}
	return s, nil
}

// Send delivers m. The Date is Japan time and the Message-ID is on the From domain.
func (s *smtpSender) Send(ctx context.Context, m Message) error {
	msg := gomail.NewMsg(gomail.WithEncoding(gomail.EncodingB64), gomail.WithNoDefaultUserAgent())
	msg.FromMailAddress(s.from)
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("mail: recipient %q: %w", m.To, err)
	}
	msg.Subject(m.Subject)
	if m.AutoReply {
		msg.SetGenHeader("Auto-Submitted", "auto-replied")
	}
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	msg.SetDateWithValue(time.Now().In(pay.Tokyo()))
	msg.SetMessageIDWithValue(messageID(s.from.Address))

	// go-mail leaves the connection open when STARTTLS or AUTH fails; we dial it
	// ourselves so that it is always closed.
	var conn net.Conn
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		var err error
		d := &net.Dialer{}
		if s.implicitTLS {
			conn, err = (&tls.Dialer{NetDialer: d, Config: s.tlsConfig}).DialContext(ctx, network, addr)
		} else {
			conn, err = d.DialContext(ctx, network, addr)
		}
		return conn, err
	}
	defer func() {
		if conn != nil {
			_ = conn.Close() // after QUIT this is a no-op
		}
	}()
	client, err := gomail.NewClient(s.host, append(s.options(), gomail.WithDialContextFunc(dial))...)
	if err != nil {
		return fmt.Errorf("mail: client for %s: %w", s.host, err)
	}
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("mail: send %q to %s via %s:%d: %w", m.Subject, m.To, s.host, s.port, err)
	}
	return nil
}

func (s *smtpSender) options() []gomail.Option {
	opts := []gomail.Option{
		gomail.WithPort(s.port),
		gomail.WithTimeout(sendTimeout),
		gomail.WithTLSConfig(s.tlsConfig),
	}
	if s.implicitTLS {
		opts = append(opts, gomail.WithSSL())
	} else if s.requireTLS {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if s.hasUser {
		// PLAIN and LOGIN refuse to send the password without TLS unless the server
		// is on the loopback address.
		opts = append(opts,
			gomail.WithOpportunisticSMTPAuth(gomail.SMTPAuthPlain, gomail.SMTPAuthLogin),
			gomail.WithUsername(s.username), gomail.WithPassword(s.password))
	}
	return opts
}

func messageID(from string) string {
	domain := "localhost"
	if i := strings.LastIndexByte(from, '@'); i >= 0 && i < len(from)-1 {
		domain = from[i+1:]
	}
	return strings.ToLower(rand.Text()) + "@" + domain
}
