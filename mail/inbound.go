package mail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"strings"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // ISO-2022-JP and Shift_JIS names and subjects
	gomessage "github.com/emersion/go-message/mail"
	"github.com/emersion/go-msgauth/authres"

	"cardpay/mail/internal/smtpd"
)

// Verdict is a receiving MTA's verdict on one authentication method: pass, fail or
// none (not checked, or no verdict we trust).
type Verdict string

// The verdicts kept of a mail (received_invoices.auth_*).
const (
	VerdictPass Verdict = "pass"
	VerdictFail Verdict = "fail"
	VerdictNone Verdict = "none"
)

// Auth is what the receiving MTA found out about a mail's sender.
type Auth struct {
	SPF, DKIM, DMARC Verdict
}

// Attachment is a file attached to a mail: its name as the sender's mailer gave it
// (RFC 2047 and RFC 2231 decoded), its declared type and its bytes, transfer encoding
// undone.
type Attachment struct {
	Name        string
	ContentType string
	Bytes       []byte
}

// Inbound is a received mail as the received invoices read it.
type Inbound struct {
	// FromAddress and FromName are the From header's (the address lower-cased).
	FromAddress, FromName string
	Subject               string
	MessageID             string
	// AutoSubmitted is set when the mail says it was sent by a program (RFC 3834
	// Auto-Submitted other than "no", or a bounce's empty return path): no automatic
	// reply may go back to it.
	AutoSubmitted bool
	Auth          Auth
	Attachments   []Attachment
}

// maxInboundParts bounds the parts read of one mail; a mail is bounded in bytes by the
// listener already, this bounds the work of a crafted one with thousands of tiny parts.
const maxInboundParts = 100

// ParseInbound reads a raw mail for the received invoices. authservID names the
// receiving MTA whose Authentication-Results header is trusted (RFC 8601 §5: any
// other such header may have been written by the sender itself and is ignored); ""
// trusts none, so every verdict is none. Text parts are the message's body and are
// skipped; an inline image with a Content-ID (a logo in an HTML signature) is skipped
// too; every other part is an attachment.
func ParseInbound(raw []byte, authservID string) (Inbound, error) {
	mr, err := gomessage.CreateReader(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) {
		return Inbound{}, fmt.Errorf("mail: read an inbound mail: %w", err)
	}
	defer mr.Close()
	var in Inbound
	if list, err := mr.Header.AddressList("From"); err == nil && len(list) > 0 {
		in.FromAddress, in.FromName = strings.ToLower(list[0].Address), clean(list[0].Name)
	}
	if s, err := mr.Header.Subject(); err == nil {
		in.Subject = clean(s)
	} else {
		in.Subject = clean(mr.Header.Get("Subject"))
	}
	in.MessageID, _ = mr.Header.MessageID()
	in.MessageID = clean(in.MessageID)
	if a := strings.ToLower(strings.TrimSpace(mr.Header.Get("Auto-Submitted"))); a != "" && a != "no" {
		in.AutoSubmitted = true
	}
	in.Auth = trustedAuth(mr.Header.Values("Authentication-Results"), authservID)

	for range maxInboundParts {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !message.IsUnknownCharset(err) {
			return in, fmt.Errorf("mail: read an inbound mail's part: %w", err)
		}
		h, ok := p.Header.(*gomessage.AttachmentHeader)
		if !ok {
			continue // the body's text
		}
		ct, params, _ := h.ContentType()
		disp, _, _ := h.ContentDisposition()
		if strings.HasPrefix(ct, "multipart/") || (disp != "attachment" && h.Get("Content-Id") != "" && strings.HasPrefix(ct, "image/")) {
			continue
		}
		name, _ := h.Filename()
		if name == "" {
			name = params["name"]
		}
		b, err := io.ReadAll(p.Body)
		if err != nil {
			return in, fmt.Errorf("mail: read an attachment: %w", err)
		}
		in.Attachments = append(in.Attachments, Attachment{Name: fileName(name), ContentType: ct, Bytes: b})
	}
	return in, nil
}

// fileName decodes an RFC 2047 name that the header parser left encoded (many Japanese
// mailers quote it, which RFC 2047 forbids) and keeps only its last path element.
func fileName(name string) string {
	dec := mime.WordDecoder{CharsetReader: message.CharsetReader}
	if d, err := dec.DecodeHeader(name); err == nil {
		name = d
	}
	name = clean(name)
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return strings.TrimSpace(name)
}

// trustedAuth reads the verdicts of the first Authentication-Results header by
// authservID: the MTA adds its own on top, after removing any the sender wrote with
// its id (RFC 8601 §5).
func trustedAuth(headers []string, authservID string) Auth {
	a := Auth{SPF: VerdictNone, DKIM: VerdictNone, DMARC: VerdictNone}
	if authservID == "" {
		return a
	}
	for _, v := range headers {
		id, results, err := authres.Parse(v)
		if err != nil || !strings.EqualFold(id, authservID) {
			continue
		}
		dkimSeen := false
		for _, r := range results {
			switch r := r.(type) {
			case *authres.SPFResult:
				a.SPF = verdict(r.Value)
			case *authres.DKIMResult:
				// One passing signature is enough; a failing one beside it (a mailing
				// list's) does not undo it.
				if v := verdict(r.Value); !dkimSeen || v == VerdictPass {
					a.DKIM, dkimSeen = v, true
				}
			case *authres.DMARCResult:
				a.DMARC = verdict(r.Value)
			}
		}
		return a
	}
	return a
}

func verdict(v authres.ResultValue) Verdict {
	switch v {
	case authres.ResultPass:
		return VerdictPass
	case authres.ResultFail, authres.ResultSoftFail:
		return VerdictFail
	}
	return VerdictNone
}

// Refusal refuses a mail or a recipient with an SMTP reply: Code (4xx try again
// later, 5xx never), the enhanced status code and a one-line ASCII reason that the
// sender's server quotes in its bounce.
type Refusal struct {
	Code     int
	Enhanced [3]int
	Reason   string
}

func (r *Refusal) Error() string { return fmt.Sprintf("%d %v %s", r.Code, r.Enhanced, r.Reason) }

// InboundHandler is what the inbound listener asks: whether a recipient exists (and
// may receive now), and what to do with a mail. A *Refusal from either is the SMTP
// reply; any other error is a temporary failure (451), so the sender tries again.
type InboundHandler interface {
	Recipient(ctx context.Context, to string) error
	Deliver(ctx context.Context, envelopeFrom string, to []string, raw []byte) error
}

// InboundOptions configure StartInbound.
type InboundOptions struct {
	// Addr is where to listen ("127.0.0.1:2525"; ":0" style ports pick a free one).
	Addr string
	// Domain greets the sender (the receiving domain).
	Domain string
	// MaxMessageBytes is the largest mail taken; a larger one is refused with 552.
	MaxMessageBytes int64
	// MaxRecipients is how many RCPT TO one mail may have.
	MaxRecipients int
	Logger        *slog.Logger
}

// InboundServer is a running inbound listener.
type InboundServer struct{ srv *smtpd.Server }

// Addr is host:port of the listener.
func (s *InboundServer) Addr() string { return s.srv.Addr() }

// Close stops the listener.
func (s *InboundServer) Close() error { return s.srv.Close() }

// StartInbound runs the received invoices' SMTP listener: the production MTA, which
// checks SPF, DKIM and DMARC and writes Authentication-Results, forwards the mails for
// the receiving domain to it; in development and tests it is reached directly.
func StartInbound(o InboundOptions, h InboundHandler) (*InboundServer, error) {
	logger := o.Logger
	if logger == nil {
		logger = slog.Default()
	}
	srv, err := smtpd.Start(smtpd.Options{
		Addr:            o.Addr,
		Domain:          o.Domain,
		MaxMessageBytes: o.MaxMessageBytes,
		MaxRecipients:   o.MaxRecipients,
		ErrorLog:        slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		Recipient: func(ctx context.Context, to string) error {
			return asReject(h.Recipient(ctx, to))
		},
	}, func(ctx context.Context, d smtpd.Delivery) error {
		return asReject(h.Deliver(ctx, d.From, d.To, d.Data))
	})
	if err != nil {
		return nil, fmt.Errorf("mail: start the inbound listener: %w", err)
	}
	return &InboundServer{srv: srv}, nil
}

func asReject(err error) error {
	var r *Refusal
	if errors.As(err, &r) {
		return &smtpd.Reject{Code: r.Code, Enhanced: r.Enhanced, Message: r.Reason}
	}
	return err
}
