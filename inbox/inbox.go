// Package inbox takes suppliers' invoices by mail (issue 29): each buyer's receiving
// address on the receiving domain, the SMTP listener's decisions (which recipient
// exists, which mail and which files are taken), the log of what arrived, and the
// automatic reply that tells a sender what was refused and why. The files become
// received invoices through invoicefiles.Service.Receive, as the buyer's own uploads do.
package inbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"

	"cardpay/invoicefiles"
	cmail "cardpay/mail"
	"cardpay/pay"
	"cardpay/store"
)

// Mailer makes the jobs of the mails a received mail causes (account.Service).
type Mailer interface {
	InboundRefusedJob(to, subject string, accepted int, refused []cmail.RefusedFile) (store.NewJob, error)
	NotificationMail(buyerID int64) func(id int64) store.NewJob
}

// Service decides about the mails to receiving addresses; it is the listener's
// mail.InboundHandler.
type Service struct {
	Store  *store.Store
	Files  *invoicefiles.Service
	Mailer Mailer
	// Domain is the receiving domain (INBOUND_MAIL_DOMAIN): the addresses are
	// <local part>@Domain.
	Domain string
	// AuthservID names the MTA whose Authentication-Results are trusted
	// (INBOUND_AUTHSERV_ID); "" trusts none.
	AuthservID string
	// MaxPerHour is how many mails an address takes an hour; 0 is
	// pay.MaxInboundMailsPerHour.
	MaxPerHour int
	Logger     *slog.Logger
	Now        func() time.Time
}

var _ cmail.InboundHandler = (*Service)(nil)

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Address is the full receiving address of a.
func (s *Service) Address(a store.ReceivingAddress) string {
	return a.LocalPart + "@" + s.Domain
}

// The SMTP refusals of a recipient.
var (
	errNoMailbox = &cmail.Refusal{Code: 550, Enhanced: [3]int{5, 1, 1}, Reason: "No such receiving address"}
	errTooMany   = &cmail.Refusal{Code: 450, Enhanced: [3]int{4, 7, 1},
		Reason: "Too many mails to this address in the last hour; try again later"}
)

// address finds the active receiving address that to names.
func (s *Service) address(ctx context.Context, to string) (store.ReceivingAddress, error) {
	local, domain, ok := strings.Cut(strings.Trim(strings.TrimSpace(to), "<>"), "@")
	if !ok || !strings.EqualFold(domain, s.Domain) || local == "" {
		return store.ReceivingAddress{}, errNoMailbox
	}
	a, err := s.Store.ReceivingAddressByLocalPart(ctx, local)
	if errors.Is(err, store.ErrNotFound) {
		return a, errNoMailbox
	}
	return a, err
}

// Recipient refuses an address that is not an active receiving address, and one that
// took its hourly share of mails already (a temporary refusal: the sender's server
// tries again later).
func (s *Service) Recipient(ctx context.Context, to string) error {
	a, err := s.address(ctx, to)
	if err != nil {
		return err
	}
	limit := s.MaxPerHour
	if limit <= 0 {
		limit = pay.MaxInboundMailsPerHour
	}
	n, err := s.Store.InboundMailsSince(ctx, a.ID, s.now().Add(-time.Hour))
	if err != nil {
		return err
	}
	if n >= limit {
		return errTooMany
	}
	return nil
}

// Deliver takes a mail for each of its receiving addresses (the listener asked
// Recipient about each already).
func (s *Service) Deliver(ctx context.Context, envelopeFrom string, to []string, raw []byte) error {
	in, err := cmail.ParseInbound(raw, s.AuthservID)
	if err != nil {
		r := pay.InboundUnreadable
		return &cmail.Refusal{Code: r.Code, Enhanced: r.Enhanced, Reason: r.Reason}
	}
	if whole := pay.CheckInboundMail(string(in.Auth.DMARC), len(in.Attachments)); whole != nil && whole.SMTP {
		for _, rcpt := range to {
			if a, err := s.address(ctx, rcpt); err == nil {
				s.log(ctx, a, envelopeFrom, in, 0, []store.InboundRefusal{{Reason: whole.Message}}, nil)
			}
		}
		return &cmail.Refusal{Code: whole.Code, Enhanced: whole.Enhanced, Reason: whole.Reason}
	}
	seen := map[int64]bool{}
	for _, rcpt := range to {
		a, err := s.address(ctx, rcpt)
		if err != nil {
			continue // refused at RCPT already
		}
		if seen[a.ID] {
			continue
		}
		seen[a.ID] = true
		if err := s.take(ctx, a, envelopeFrom, in); err != nil {
			return err
		}
	}
	return nil
}

// take receives in's files for address a, logs the mail and tells the buyer (a
// notification) and the sender (what was refused) in the log's transaction.
func (s *Service) take(ctx context.Context, a store.ReceivingAddress, envelopeFrom string, in cmail.Inbound) error {
	if taken, err := s.Store.InboundMailTaken(ctx, a.ID, in.MessageID); err != nil || taken {
		return err // delivered again: it was taken the first time
	}
	known, err := s.Store.KnownSender(ctx, a.BuyerID, in.FromAddress)
	if err != nil {
		return err
	}
	var refused []store.InboundRefusal
	accepted := 0
	if whole := pay.CheckInboundMail(string(in.Auth.DMARC), len(in.Attachments)); whole != nil {
		refused = append(refused, store.InboundRefusal{Reason: whole.Message})
	} else {
		for _, att := range in.Attachments {
			name := att.Name
			if name == "" {
				name = "（名前のないファイル）"
			}
			_, problem, err := s.Files.Receive(ctx, a.BuyerID, invoicefiles.Upload{Name: name, Bytes: att.Bytes}, store.NewReceivedInvoice{
				Source: store.ReceivedByMail, Sender: sender(in), Subject: in.Subject,
				AuthSPF: string(in.Auth.SPF), AuthDKIM: string(in.Auth.DKIM), AuthDMARC: string(in.Auth.DMARC),
				NewSender: !known, Actor: "メール受信",
			})
			if err != nil {
				return err
			}
			if problem != "" {
				refused = append(refused, store.InboundRefusal{Name: name, Reason: problem})
				continue
			}
			accepted++
		}
	}
	return s.log(ctx, a, envelopeFrom, in, accepted, refused, s.reply(envelopeFrom, in, accepted, refused))
}

// reply is the job of the automatic reply naming what was refused, nil when nothing
// was or when the sender may not be answered (pay.InboundMayReply).
func (s *Service) reply(envelopeFrom string, in cmail.Inbound, accepted int, refused []store.InboundRefusal) *store.NewJob {
	if len(refused) == 0 || s.Mailer == nil ||
		!pay.InboundMayReply(envelopeFrom, in.AutoSubmitted, string(in.Auth.SPF), string(in.Auth.DMARC)) {
		return nil
	}
	if _, err := mail.ParseAddress(envelopeFrom); err != nil {
		return nil
	}
	files := make([]cmail.RefusedFile, len(refused))
	for i, r := range refused {
		files[i] = cmail.RefusedFile{Name: r.Name, Reason: r.Reason}
	}
	j, err := s.Mailer.InboundRefusedJob(envelopeFrom, in.Subject, accepted, files)
	if err != nil {
		s.logger().Error("inbox: the refusal's reply", "error", err)
		return nil
	}
	return &j
}

// log writes the mail to the buyer's log with its notification and reply.
func (s *Service) log(ctx context.Context, a store.ReceivingAddress, envelopeFrom string, in cmail.Inbound, accepted int, refused []store.InboundRefusal, bounce *store.NewJob) error {
	m := store.NewInboundMail{InboundMail: store.InboundMail{
		BuyerID: a.BuyerID, AddressID: a.ID, EnvelopeFrom: envelopeFrom, FromAddress: in.FromAddress,
		FromName: in.FromName, Subject: in.Subject, MessageID: in.MessageID,
		AuthSPF: string(in.Auth.SPF), AuthDKIM: string(in.Auth.DKIM), AuthDMARC: string(in.Auth.DMARC),
		Outcome: "accepted", Attachments: len(in.Attachments), Accepted: accepted,
	}, Refused: refused, Bounce: bounce}
	switch {
	case accepted == 0:
		m.Outcome = "refused"
	case len(refused) > 0:
		m.Outcome = "partly"
	}
	if accepted > 0 {
		body := fmt.Sprintf("%s から請求書が%d件届きました。", sender(in), accepted)
		if len(refused) > 0 {
			body += fmt.Sprintf("受け付けられなかったファイルが%d件あります（送信者にお知らせしました）。", len(refused))
		}
		m.Notification = &store.NewNotification{Title: "メールで請求書が届きました", Body: body, Link: "/receipt-invoices"}
		if s.Mailer != nil {
			m.NotifyMail = s.Mailer.NotificationMail(a.BuyerID)
		}
	}
	_, err := s.Store.LogInboundMail(ctx, m, s.now())
	return err
}

// sender is the From header as the lists show it: "name <address>", or the address.
func sender(in cmail.Inbound) string {
	switch {
	case in.FromName != "" && in.FromAddress != "":
		return in.FromName + " <" + in.FromAddress + ">"
	case in.FromAddress != "":
		return in.FromAddress
	}
	return in.FromName
}
