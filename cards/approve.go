package cards

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"cardpay/gateway"
	"cardpay/pay"
	"cardpay/store"
)

// Approval is the outcome of an authorisation (与信) on a saved card that was not
// declined: approved (Status authorized), or a 3-D Secure challenge to send the buyer
// to (Status requires_action, ActionURL).
type Approval struct {
	PaymentID  string
	CardID     int64
	Amount     int64
	Status     gateway.Status
	ResultCode gateway.ResultCode
	ActionURL  string
}

// ApproveRequest asks for an authorisation on one of the buyer's saved cards.
type ApproveRequest struct {
	CardID int64
	Amount int64
	// PaymentID is the caller's id for the payment being prepared: the PSP's idempotency
	// key, so asking again with the same id never authorises twice.
	PaymentID string
	// ReturnURL is where the PSP sends the buyer after a challenge: a path of this site
	// or a URL on its origin (BaseURL), never elsewhere.
	ReturnURL string
}

// maxPaymentID bounds a payment id; PSPs take ids of up to 255 characters and ours are
// short.
const maxPaymentID = 64

// Check finds what is wrong with the request itself, before any card or PSP is asked.
func (s *Service) checkApproval(r *ApproveRequest) *Refusal {
	if msg := pay.PaymentAmountMessage(r.Amount); msg != "" {
		return refuse("amount", msg, "")
	}
	switch {
	case r.PaymentID == "":
		return refuse("payment_id", "お支払い番号（payment_id）を指定してください", "")
	case len(r.PaymentID) > maxPaymentID || strings.TrimLeft(r.PaymentID, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "":
		return refuse("payment_id", fmt.Sprintf("お支払い番号（payment_id）は%d文字以内の半角英数字・ハイフン・アンダースコアで指定してください", maxPaymentID), "")
	case strings.HasPrefix(r.PaymentID, checkPrefix), strings.HasPrefix(r.PaymentID, paymentPrefix):
		return refuse("payment_id", MsgPaymentIDTaken, "")
	}
	u, ok := s.ownURL(r.ReturnURL)
	if !ok {
		return refuse("return_url", "戻り先（return_url）には、このサービスのページを指定してください", "")
	}
	r.ReturnURL = u
	return nil
}

// ownURL makes a path absolute on BaseURL, and accepts an absolute URL only on
// BaseURL's origin: the PSP must never send a buyer to another site.
func (s *Service) ownURL(raw string) (string, bool) {
	base, err := url.Parse(s.BaseURL)
	if err != nil || raw == "" {
		return "", false
	}
	u, err := url.Parse(raw)
	if err != nil || u.User != nil {
		return "", false
	}
	if u.Scheme == "" && u.Host == "" {
		if !strings.HasPrefix(raw, "/") || strings.HasPrefix(raw, "//") || strings.Contains(raw, `\`) {
			return "", false
		}
		return strings.TrimSuffix(s.BaseURL, "/") + raw, true
	}
	if u.Scheme != base.Scheme || u.Host != base.Host {
		return "", false
	}
	return u.String(), true
}

// Approve authorises Amount yen on one of the buyer's saved cards for the payment the
// buyer is preparing (与信). The card must be the buyer's (else store.ErrNotFound) and not
// expired; the amount within the service limits. A decline is a *Refusal with the
// gateway's code and message.
func (s *Service) Approve(ctx context.Context, buyerID int64, r ApproveRequest) (Approval, error) {
	if ref := s.checkApproval(&r); ref != nil {
		return Approval{}, ref
	}
	c, err := s.Card(ctx, buyerID, r.CardID)
	if err != nil {
		return Approval{}, err
	}
	if c.Expired {
		return Approval{}, refuse("credit_card_id", MsgExpiredChosen, gateway.ResultExpiredCard)
	}
	a, created, err := s.Store.StartCardApproval(ctx, buyerID, c.ID, r.PaymentID, r.Amount)
	switch {
	case errors.Is(err, store.ErrPaymentIDTaken):
		return Approval{}, refuse("payment_id", MsgPaymentIDTaken, "")
	case err != nil:
		return Approval{}, err
	case !created && (a.CardID != c.ID || a.Amount != r.Amount):
		return Approval{}, refuse("payment_id", MsgPaymentIDReused, "")
	}
	// Asking again under the same id is safe: the PSP answers the first authorisation.
	tx, err := s.Gateway.Authorize(ctx, gateway.AuthorizeRequest{
		PaymentID: a.PaymentID, CardRef: c.Ref, Amount: a.Amount, ReturnURL: r.ReturnURL,
	})
	if errors.Is(err, gateway.ErrUnavailable) {
		s.logger().Warn("cards: authorisation unanswered; looking it up", "payment_id", a.PaymentID, "card", c.Card.Ref)
		tx, err = s.Gateway.Lookup(ctx, a.PaymentID)
	}
	if err != nil {
		return Approval{}, approvalUnanswered(a.PaymentID, err)
	}
	return s.approvalAnswered(ctx, buyerID, a, tx)
}

// approvalUnanswered: the PSP never saw the authorisation (asking again with the same
// payment id is safe), or its outcome is still unknown (the webhook will tell).
func approvalUnanswered(paymentID string, err error) error {
	switch {
	case errors.Is(err, gateway.ErrNotFound):
		return declined("credit_card_id", gateway.ResultProcessorError)
	case errors.Is(err, gateway.ErrUnavailable):
		return declined("credit_card_id", gateway.ResultTimeout)
	}
	return fmt.Errorf("cards: authorise %s: %w", paymentID, err)
}

func (s *Service) approvalAnswered(ctx context.Context, buyerID int64, a store.CardApproval, tx gateway.Transaction) (Approval, error) {
	code := tx.ResultCode
	switch tx.Status {
	case gateway.StatusAuthorized, gateway.StatusCaptured, gateway.StatusPartiallyRefunded:
		code = resultOr(code, gateway.ResultApproved)
	case gateway.StatusRequiresAction:
		code = resultOr(code, gateway.ResultActionRequired)
	case gateway.StatusDeclined:
		code = declineCode(tx)
	}
	if err := s.Store.SetCardApproval(ctx, buyerID, a.PaymentID, string(tx.Status), string(code), tx.ActionURL); err != nil {
		return Approval{}, err
	}
	if tx.Status == gateway.StatusDeclined {
		return Approval{}, declined("credit_card_id", code)
	}
	return Approval{
		PaymentID: a.PaymentID, CardID: a.CardID, Amount: a.Amount,
		Status: tx.Status, ResultCode: code, ActionURL: tx.ActionURL,
	}, nil
}
