package account

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"cardpay/auth"
	"cardpay/mail"
	"cardpay/store"
)

// MailJobKind is the kind of the background job that sends each of the service's mails
// (jobs.Runner: register DeliverMail for it). Requests never talk to the mail server:
// they enqueue the mail in the transaction of the change it tells about, and answer as
// fast whether the mail will go, go elsewhere, or not go at all.
const MailJobKind = "mail"

// mailAttempts: an SMTP server that refuses for longer than the backoff covers (about
// 40 minutes in all) has a problem an operator must see among the failed jobs.
const mailAttempts = 10

// What DeliverMail checks when a mail's job runs. The sign-up, re-registration, password
// reset and e-mail change pages answer the same whether or not an address has an
// account; these rules move the difference out of the request, so that the request
// does the same work (one code row, one job) either way and its timing tells nothing.
const (
	// mailAlways sends the mail as it is.
	mailAlways = ""
	// mailUnlessRegistered sends a sign-up code only to an address without an account;
	// an account's owner gets the already-registered notice instead.
	mailUnlessRegistered = "signup"
	// mailUnlessInUse sends an e-mail change code only to an address no account signs
	// in with; that account's owner gets the address-in-use notice instead.
	mailUnlessInUse = "email_change"
	// mailNowhere sends nothing: the request found no sign-up or account to mail, and
	// did the same work as if it had.
	mailNowhere = "none"
)

// noSubject is the subject of a code issued for nobody (mailNowhere): no sign-up id or
// user id is ever "-", so the code can never be checked.
const noSubject = "-"

// queuedMail is what a mail job carries, sealed.
type queuedMail struct {
	Message mail.Message `json:"message"`
	Rule    string       `json:"rule,omitempty"`
}

// mailPayload is a mail job's payload: the message sealed with auth.Sealer, so that
// neither the one-time code in it nor the addresses can be read from the jobs table.
// Rotating SECRET_KEY makes the mails still queued unreadable: they fail and stay
// failed, visible, rather than go out garbled.
type mailPayload struct {
	Sealed string `json:"sealed"`
}

// mailJob makes the job that sends m under rule.
func (s *Service) mailJob(m mail.Message, rule string) (store.NewJob, error) {
	b, err := json.Marshal(queuedMail{Message: m, Rule: rule})
	if err != nil {
		return store.NewJob{}, err
	}
	sealed, err := s.Sealer.Seal(string(b))
	if err != nil {
		return store.NewJob{}, fmt.Errorf("account: seal mail: %w", err)
	}
	return store.NewJob{Kind: MailJobKind, Payload: mailPayload{Sealed: sealed}, MaxAttempts: mailAttempts}, nil
}

// notice is the job of a notice, for the store call that makes the change it tells
// about, so that both happen in one transaction.
func (s *Service) notice(m mail.Message) (store.NewJob, error) {
	return s.mailJob(m, mailAlways)
}

// sendCode issues a one-time code for (purpose, subject) and queues its mail, built by
// message, in the same transaction.
func (s *Service) sendCode(ctx context.Context, purpose, subject, payload, rule string, message func(code string) mail.Message) error {
	code, hash, err := s.Codes.New()
	if err != nil {
		return err
	}
	j, err := s.mailJob(message(code), rule)
	if err != nil {
		return err
	}
	_, err = s.Store.CreateCode(ctx, purpose, subject, hash, payload, s.now().Add(auth.CodeTTL), j)
	return err
}

// DeliverMail is the handler of MailJobKind: it opens the sealed mail, applies its rule
// and sends it with Mail. An error is retried by the runner with backoff.
func (s *Service) DeliverMail(ctx context.Context, payload json.RawMessage) error {
	var p mailPayload
	if err := json.Unmarshal(payload, &p); err != nil {
		return fmt.Errorf("account: mail job: %w", err)
	}
	plain, err := s.Sealer.Open(p.Sealed)
	if err != nil {
		return fmt.Errorf("account: mail job: %w", err)
	}
	var q queuedMail
	if err := json.Unmarshal([]byte(plain), &q); err != nil {
		return fmt.Errorf("account: mail job: %w", err)
	}
	m := q.Message
	switch q.Rule {
	case mailAlways:
	case mailNowhere:
		return nil
	case mailUnlessRegistered, mailUnlessInUse:
		taken, err := s.Store.EmailTaken(ctx, m.To)
		if err != nil {
			return err
		}
		if taken && q.Rule == mailUnlessRegistered {
			m = mail.AlreadyRegistered(m.To, s.ServiceName)
		} else if taken {
			m = mail.EmailInUse(m.To, s.ServiceName)
		}
	default:
		return fmt.Errorf("account: mail job: unknown rule %q", q.Rule)
	}
	if s.Mail == nil {
		return errors.New("account: mail job: no mail sender")
	}
	if err := s.Mail.Send(ctx, m); err != nil {
		// The address stays out of the error: it goes to the log and the jobs table.
		return fmt.Errorf("account: send %q: %w", m.Subject, err)
	}
	return nil
}
