package invoices

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/gateway"
	"cardpay/pay"
	"cardpay/store"
)

// Card-payment requests (collections): the requester sends a request with a key mailed to
// the customer; the customer opens the key signed in, which makes the request theirs, and
// pays it by card like a payment. The pages and the API share these rules.

// RequestLinkPath is where a request's mailed link opens the service; the key follows.
const RequestLinkPath = "/payments/request/"

// Mailer builds the mail jobs the money rules enqueue (account.Service): the customer's
// mail of a request (sealed, since the link holds the key) and a notification's mail.
type Mailer interface {
	RequestMailJob(to string, f pay.RequestMailFacts) (store.NewJob, error)
	NotificationMail(buyerID int64) func(id int64) store.NewJob
}

// MaxKeyMisses is how many keys matching nothing one buyer may try in KeyMissWindow; more
// are refused unread. Keys are 256-bit random, so this only keeps scanners from costing.
const (
	MaxKeyMisses  = 10
	KeyMissWindow = time.Hour
)

// MsgKeyTries answers a buyer past MaxKeyMisses.
const MsgKeyTries = "確認できないリンクが続いたため、しばらくの間お受けできません。1時間ほどおいて、メールのリンクからもう一度お試しください"

// RequestSubmission is a request as the requester confirms it.
type RequestSubmission struct {
	// SubmitKey is the confirm page's one-time key (the API's Idempotency-Key).
	SubmitKey string
	UserID    int64
	Request   pay.RequestInput
	FeeBearer pay.FeeBearer
	AccountID int64
	FileID    *int64
}

// CheckedRequest is a request submission that validated: what the confirm page shows.
type CheckedRequest struct {
	Request    pay.CheckedRequest
	Account    store.BuyerAccount
	FeeBearer  pay.FeeBearer
	Commission Commission
	// CustomerCharge is what the customer's card is charged; Transfer what the requester
	// receives.
	CustomerCharge int64
	Transfer       int64
}

// CheckRequest validates a request without writing anything. Field errors are
// pay.FieldErrors; an account or file that is not the requester's is store.ErrNotFound.
func (s *Requests) CheckRequest(ctx context.Context, requesterID int64, sub RequestSubmission) (CheckedRequest, error) {
	var out CheckedRequest
	req, errs := sub.Request.Check(s.payments.limits(), s.now())
	out.Request = req
	out.FeeBearer = sub.FeeBearer
	if out.FeeBearer == "" {
		out.FeeBearer = pay.FeeByCustomer
	}
	if !out.FeeBearer.Valid() {
		errs.Add("fee_bearer", "手数料を負担する方を選んでください")
	}
	if sub.AccountID == 0 {
		errs.Add("account_id", "入金先の口座を選んでください")
	} else {
		a, err := s.Store.BuyerAccount(ctx, requesterID, sub.AccountID)
		if err != nil {
			return out, err
		}
		out.Account = a
	}
	if sub.FileID != nil {
		if _, err := s.Store.InvoiceFile(ctx, requesterID, *sub.FileID); err != nil {
			return out, err
		}
	}
	if n := req.CustomerCorporateNumber; n != "" {
		if b, err := s.Store.Buyer(ctx, requesterID); err == nil && b.CorporateNumber == n {
			errs.Add("customer_corporate_number", "ご自身の会社にカード払いを依頼することはできません")
		}
	}
	out.Commission = s.payments.CommissionFor(req.Amount, nil)
	customerFee, payeeFee := pay.RequestCharges(out.Commission.Fee, out.FeeBearer)
	out.CustomerCharge, out.Transfer = req.Amount+customerFee, req.Amount-payeeFee
	if len(errs) > 0 {
		return out, errs
	}
	return out, nil
}

// SendRequest checks a request and sends it: the request and its key, and the customer's
// mail with the link, in one transaction. A second send with the same key answers the
// first request.
func (s *Requests) SendRequest(ctx context.Context, requesterID int64, sub RequestSubmission) (store.Request, error) {
	if sub.SubmitKey == "" {
		return store.Request{}, errors.New("invoices: request without a key")
	}
	if s.Mailer == nil {
		return store.Request{}, errors.New("invoices: no request mailer")
	}
	if err := s.activeBuyer(ctx, requesterID, "customer_email"); err != nil {
		return store.Request{}, err
	}
	chk, err := s.CheckRequest(ctx, requesterID, sub)
	if err != nil {
		return store.Request{}, err
	}
	requester, err := s.Store.Buyer(ctx, requesterID)
	if err != nil {
		return store.Request{}, err
	}
	key, hash, err := pay.NewRequestKey()
	if err != nil {
		return store.Request{}, err
	}
	c := chk.Request
	job, err := s.Mailer.RequestMailJob(c.CustomerEmail, pay.RequestMailFacts{
		RequesterName: requester.CorporateName, RequesterCorporateNumber: requester.CorporateNumber,
		CustomerName: c.CustomerName, CustomerContactName: c.CustomerContactName, Amount: chk.CustomerCharge,
		Deadline: c.Deadline, Message: c.Message, InvoiceNumber: c.InvoiceNumber,
		Link: strings.TrimSuffix(s.BaseURL, "/") + RequestLinkPath + key,
	})
	if err != nil {
		return store.Request{}, err
	}
	r, _, err := s.Store.SendRequest(ctx, store.NewRequest{
		RequesterID: requesterID, CreatedBy: sub.UserID, SubmitKey: sub.SubmitKey, Request: c,
		Fee: chk.Commission.Fee, FeeBasisPoints: chk.Commission.FeeBasisPoints, FeeBearer: chk.FeeBearer,
		AccountID: sub.AccountID, FileID: sub.FileID, KeyHash: hash, Mail: job,
	}, s.now())
	return r, err
}

// CancelRequest cancels one of the requester's requests before it is paid. Field errors
// say why it cannot be; another buyer's request is store.ErrNotFound.
func (s *Requests) CancelRequest(ctx context.Context, requesterID, id, userID int64) (store.Request, error) {
	r, err := s.Store.CancelRequest(ctx, requesterID, id, fmt.Sprintf("buyer:%d", userID), s.now())
	switch {
	case errors.Is(err, pay.ErrTransition):
		return r, pay.FieldErrors{{Field: "status", Message: "この依頼はお支払いが済んでいるか、既に終了しているため、キャンセルできません"}}
	case errors.Is(err, store.ErrStateChanged):
		return r, pay.FieldErrors{{Field: "status", Message: "お客さまがただいまお支払いの手続き中のため、キャンセルできません。しばらくしてから、もう一度お確かめください"}}
	}
	return r, err
}

// KeyInfo is what GET /api/v1/invoices/request_keys/{key} answers of a key.
type KeyInfo struct {
	Status pay.RequestKeyStatus
	Used   bool
	// InvoiceID is the customer's invoice once the key is used by the asking buyer (0
	// otherwise); DocNumber its number as shown (I-00000123).
	InvoiceID     int64
	DocNumber     string
	RequesterName string
}

// KeyRefusal is a key that cannot be linked. Status "2" carries a message to show as it
// is (SPEC.md §8); any other refusal is shown with the default dialog text.
type KeyRefusal struct {
	Status  string
	Message string
}

func (r *KeyRefusal) Error() string { return "invoices: request key refused: " + r.Message }

// MsgKeyFailed is the default text of a refused key (SPEC.md §8).
const (
	MsgKeyFailedTitle = "請求支払の取得に失敗しました"
	MsgKeyFailed      = "ご依頼の有効期限が切れているか、リンクが正しくありません。お手数ですが、ご依頼元の事業者へ直接お問い合わせください。"
)

// errKeyInvalid, errKeyExpired: refusals shown with the default text.
var (
	errKeyInvalid = &KeyRefusal{Status: "3", Message: MsgKeyFailed}
	errKeyExpired = &KeyRefusal{Status: "1", Message: MsgKeyFailed}
)

// lookupKey finds a key's request for buyerID, counting keys that match nothing against
// the buyer's tries.
func (s *Requests) lookupKey(ctx context.Context, buyerID int64, key string) (store.RequestKey, error) {
	misses, err := s.Store.RequestKeyMisses(ctx, buyerID, s.now().Add(-KeyMissWindow))
	if err != nil {
		return store.RequestKey{}, err
	}
	if misses >= MaxKeyMisses {
		return store.RequestKey{}, &KeyRefusal{Status: "2", Message: MsgKeyTries}
	}
	if !pay.WellFormedRequestKey(key) {
		if err := s.Store.AddRequestKeyMiss(ctx, buyerID, s.now()); err != nil {
			return store.RequestKey{}, err
		}
		return store.RequestKey{}, errKeyInvalid
	}
	k, err := s.Store.RequestByKey(ctx, pay.HashRequestKey(key))
	if errors.Is(err, store.ErrNotFound) {
		if err := s.Store.AddRequestKeyMiss(ctx, buyerID, s.now()); err != nil {
			return store.RequestKey{}, err
		}
		return store.RequestKey{}, errKeyInvalid
	}
	return k, err
}

// RequestKey answers a key's status for buyerID (GET /api/v1/invoices/request_keys/{key}):
// an unknown key is KeyInvalid, never an error; too many unknown keys is a KeyRefusal.
func (s *Requests) RequestKey(ctx context.Context, buyerID int64, key string) (KeyInfo, error) {
	k, err := s.lookupKey(ctx, buyerID, key)
	var kr *KeyRefusal
	if errors.As(err, &kr) && kr == errKeyInvalid {
		return KeyInfo{Status: pay.KeyInvalid}, nil
	}
	if err != nil {
		return KeyInfo{}, err
	}
	info := KeyInfo{Status: pay.KeyStatusOf(k.ExaminationStatus, k.Deadline, s.now()), Used: k.KeyUsedAt != nil, RequesterName: k.RequesterName}
	if k.PaymentInvoiceID != nil && k.CustomerBuyerID != nil && *k.CustomerBuyerID == buyerID {
		info.InvoiceID, info.DocNumber = *k.PaymentInvoiceID, pay.InvoiceNumber(*k.PaymentInvoiceID)
	}
	return info, nil
}

// LinkRequestKey makes the request of key buyer's (POST /api/v1/invoices/request_keys,
// and the signed-in layout with the key waiting in the session): only when the key is
// valid and unused, or already used by this buyer. It answers the customer's invoice; a
// refusal is a *KeyRefusal.
func (s *Requests) LinkRequestKey(ctx context.Context, buyer store.Buyer, key string) (int64, error) {
	if _, err := s.lookupKey(ctx, buyer.ID, key); err != nil {
		return 0, err
	}
	if err := s.activeBuyer(ctx, buyer.ID, "key"); err != nil {
		var held pay.FieldErrors
		if errors.As(err, &held) {
			return 0, &KeyRefusal{Status: "2", Message: pay.MsgBuyerHeld}
		}
		return 0, err
	}
	now := s.now()
	id, err := s.Store.UseRequestKey(ctx, pay.HashRequestKey(key), buyer.ID, func(k store.RequestKey) error {
		mine := k.CustomerBuyerID != nil && *k.CustomerBuyerID == buyer.ID
		switch {
		case k.RequesterID == buyer.ID:
			return &KeyRefusal{Status: "2", Message: "ご自身が送信したカード払い依頼です。お支払いはご依頼先のお客さまが行います。依頼の状況は「カード払い依頼」の一覧でご確認ください"}
		case k.KeyUsedAt != nil && !(k.KeyUsedBy != nil && *k.KeyUsedBy == buyer.ID):
			return &KeyRefusal{Status: "2", Message: "このカード払い依頼は、既に別のアカウントで受け取られています。お心当たりがない場合は、ご依頼元の事業者へお問い合わせください"}
		case pay.KeyStatusOf(k.ExaminationStatus, k.Deadline, now) != pay.KeyValid:
			return errKeyExpired
		case mine:
			return nil
		case k.CustomerCorporateNumber != "" && k.CustomerCorporateNumber != buyer.CorporateNumber:
			return &KeyRefusal{Status: "2", Message: "このカード払い依頼は別の法人宛てのため、このアカウントではお受け取りいただけません。宛先の法人のアカウントでログインしてください"}
		case k.CustomerBuyerID != nil:
			return &KeyRefusal{Status: "2", Message: "このカード払い依頼は、既に別のアカウントで受け取られています。お心当たりがない場合は、ご依頼元の事業者へお問い合わせください"}
		}
		return nil
	}, now)
	if errors.Is(err, store.ErrNotFound) {
		return 0, errKeyInvalid
	}
	if errors.Is(err, store.ErrRequestClaimed) {
		return 0, &KeyRefusal{Status: "2", Message: "このカード払い依頼は、既に別のアカウントで受け取られています。お心当たりがない場合は、ご依頼元の事業者へお問い合わせください"}
	}
	return id, err
}

// PayRequest pays the customer's invoice id of a request with one of their cards
// (PUT /api/v1/invoices/{id}/requestbuyer and the creditcard page): the card is
// authorised for the amount and the customer's fee under the invoice's payment id, so a
// doubled, replayed or concurrent attempt charges once. A declined card is field errors
// on "card_id"; the next attempt needs a new key.
func (s *Requests) PayRequest(ctx context.Context, customerID, id int64, key string, cardID int64) (Submitted, error) {
	if key == "" {
		return Submitted{}, errors.New("invoices: request payment without a key")
	}
	if err := s.activeBuyer(ctx, customerID, "card_id"); err != nil {
		return Submitted{}, err
	}
	p, err := s.Store.Submission(ctx, customerID, id)
	if err != nil {
		return Submitted{}, err
	}
	if p.InvoiceType != pay.InvoiceRequestBuyer {
		return Submitted{}, fmt.Errorf("invoices: invoice %d is not a request: %w", id, store.ErrNotFound)
	}
	r, err := s.Store.RequestOfPayment(ctx, customerID, id)
	if err != nil {
		return Submitted{}, err
	}
	var errs pay.FieldErrors
	if !pay.RequestOpen(p.ExaminationStatus) && p.SubmitKey != nil && *p.SubmitKey == key {
		return Submitted{Payment: p}, nil // this attempt already paid it
	}
	switch {
	case !pay.RequestOpen(p.ExaminationStatus):
		errs.Add("status", "このカード払い依頼は、既にお支払い済みか、キャンセルまたは期限切れのため、お支払いいただけません")
		return Submitted{Payment: p}, errs
	case pay.RequestDeadlinePassed(r.Deadline, s.now()):
		errs.Add("status", "お支払い期限を過ぎているため、お支払いいただけません。ご依頼元の事業者へお問い合わせください")
		return Submitted{Payment: p}, errs
	}
	if cardID == 0 {
		errs.Add("card_id", "お支払いに使うカードを選んでください")
		return Submitted{Payment: p}, errs
	}
	card, err := s.Store.Card(ctx, customerID, cardID)
	if err != nil {
		return Submitted{}, err
	}
	if card.Expired(s.now()) {
		errs.Add("card_id", "このカードは有効期限が切れているため選択できません。別のカードを選択するか、新しいカードを追加してください")
		return Submitted{Payment: p}, errs
	}
	now := s.now()
	p, started, err := s.Store.StartRequestPayment(ctx, customerID, id, key, cardID,
		pay.EarliestTransferDate(now), now, func(tx *sqlx.Tx, seq int) error {
			return s.payments.enqueueSettle(ctx, tx, customerID, id, fmt.Sprintf("settle-%d-%d", id, seq), now)
		})
	if errors.Is(err, store.ErrStateChanged) {
		// Another attempt (another tab, another key) is asking the PSP: its outcome stands.
		return Submitted{Payment: p}, pay.FieldErrors{{Field: "card_id", Message: "別の画面でお支払いの手続き中です。結果は数分以内に「審査中」の一覧とお知らせでご確認いただけます"}}
	}
	if err != nil {
		return Submitted{}, err
	}
	if !started {
		switch {
		case p.CardStatus.Submitted():
			return Submitted{Payment: p}, nil
		case p.CardStatus == pay.CardRequiresAction:
			return Submitted{Payment: p, ActionURL: p.ActionURL}, nil
		case p.CardStatus == pay.CardDeclined:
			return Submitted{Payment: p}, declined(gateway.ResultCode(p.CardResultCode))
		}
		// Still pending under this key: asking again under the same id is safe.
	}
	return s.payments.authorize(ctx, customerID, p, card)
}
