package account

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"cardpay/mail"
	"cardpay/pay"
	"cardpay/store"
)

// NotificationMailJobKind is the job that mails a notification to the buyer's users
// (DeliverNotification). Store.Notify gives it the notification's unique key, so an
// event is mailed once.
const NotificationMailJobKind = "notification_mail"

// NotificationJob is the payload of a NotificationMailJobKind job.
type NotificationJob struct {
	BuyerID        int64 `json:"buyer_id"`
	NotificationID int64 `json:"notification_id"`
}

// NotificationMail is the job that mails the buyer's notification id, for Store.Notify:
// whoever writes a notification (a payment's event, a review) has it mailed in the same
// transaction.
func (s *Service) NotificationMail(buyerID int64) func(id int64) store.NewJob {
	return func(id int64) store.NewJob {
		return store.NewJob{Kind: NotificationMailJobKind, Payload: NotificationJob{BuyerID: buyerID, NotificationID: id}, MaxAttempts: 10}
	}
}

// DeliverNotification is the handler of NotificationMailJobKind: it mails a buyer's
// notification to the buyer's users. The job exists once per notification (its unique
// key), so an event is mailed once; BaseURL makes the link absolute.
func (s *Service) DeliverNotification(ctx context.Context, payload json.RawMessage) error {
	var j NotificationJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return fmt.Errorf("account: notification mail job: %w", err)
	}
	n, err := s.Store.NotificationOf(ctx, j.BuyerID, j.NotificationID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // the buyer left: nobody to tell
	}
	if err != nil {
		return err
	}
	to, err := s.Store.BuyerAddresses(ctx, j.BuyerID)
	if err != nil {
		return err
	}
	if s.Mail == nil {
		return errors.New("account: notification mail job: no mail sender")
	}
	link := strings.TrimRight(s.BaseURL, "/") + "/notifications/" + fmt.Sprint(n.ID)
	for _, addr := range to {
		if err := s.Mail.Send(ctx, mail.Notification(addr, s.ServiceName, n.Title, n.Body, link)); err != nil {
			return fmt.Errorf("account: send notification %d: %w", n.ID, err)
		}
	}
	return nil
}

// RequestMailJob is the job that mails a card-payment request's link to the customer
// (invoices.Mailer). It is sealed like every mail job: the link holds the key.
func (s *Service) RequestMailJob(to string, f pay.RequestMailFacts) (store.NewJob, error) {
	return s.notice(mail.CardPaymentRequest(to, s.ServiceName, f))
}

// InboundRefusedJob is the job that tells the sender of a mail to a receiving address
// which of its files were not taken and why (inbox.Service).
func (s *Service) InboundRefusedJob(to, subject string, accepted int, refused []mail.RefusedFile) (store.NewJob, error) {
	return s.notice(mail.InboundRefused(to, s.ServiceName, subject, accepted, refused))
}

// SupplierUploadLinkJob is the job that mails a supplier its upload link (sealed like
// every mail job: the link holds the token).
func (s *Service) SupplierUploadLinkJob(to, buyerName, supplierName, link string, expires time.Time) (store.NewJob, error) {
	return s.notice(mail.SupplierUploadLink(to, s.ServiceName, buyerName, supplierName, link, expires))
}
