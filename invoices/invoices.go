// Package invoices holds the rules of paying a supplier's invoice by card that the pages
// and the JSON API share: the fee and promotion codes, the evidence check, submitting (a
// row first, then the card's authorisation under the row's id, so that a retried,
// doubled or interrupted submission never charges twice), the 3-D Secure return, the
// reconciler that settles what nobody settled, cancelling (void or refund by a job) and
// the PSP's webhooks about payments. Handlers stay thin adapters around it.
package invoices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/gateway"
	"cardpay/invoiceread"
	"cardpay/pay"
	"cardpay/store"
)

// ReturnPath receives the buyer back from a 3-D Secure challenge (?payment=<ref>).
const ReturnPath = "/payments/add/confirm/return"

// The money services, by what they do: Payments (the buyer's journey and its state: the
// fee, the check, submitting, the 3-D Secure return, cancelling, correcting, drafts, the
// settle, card and expiry jobs, the PSP's webhooks), Screening (the operators' check and
// completion, the capture, suppliers and accounts), Transfers (the transfer files and
// reconciliation), Requests (card-payment requests) and Notices (what a payment's or a
// request's event tells the buyer). Each holds only what it uses; New builds them once
// over one Config (cmd/server, webtest and the tests).

// Config is what the money services are built from.
type Config struct {
	Store   *store.Store
	Gateway gateway.Gateway
	Limits  pay.Limits
	// BaseURL is the app's public origin, for the return URL of a challenge.
	BaseURL string
	Logger  *slog.Logger
	Now     func() time.Time
	// SettleAfter is how long a submission may stay unanswered before the reconciler asks
	// the PSP (default 2 minutes); ChallengeTimeout how long a buyer may take over a 3-D
	// Secure challenge before it is given up (default 30 minutes).
	SettleAfter      time.Duration
	ChallengeTimeout time.Duration
	// Mailer builds the customer's mail of a card-payment request and the notifications'
	// mails (account.Service). Nil mails no notification (tests of the rules alone).
	Mailer Mailer
	// Crash, when set, is called at the named points of a submission, a capture and the
	// making of a transfer file; the kill tests set it to end the process there (SIGKILL),
	// never in production.
	Crash func(point string)
	// WebhookJob makes the job of a partner application's webhook (oauth.WebhookJob); nil
	// queues none.
	WebhookJob func(store.PartnerWebhook) store.NewJob
}

// Services are the money services built over one Config.
type Services struct {
	Payments  *Payments
	Screening *Screening
	Transfers *Transfers
	Requests  *Requests
	Notices   *Notices
}

// New builds the money services over c.
func New(c Config) *Services {
	b := base{Store: c.Store, Logger: c.Logger, Now: c.Now, Crash: c.Crash}
	p := &Payments{base: b, Gateway: c.Gateway, Limits: c.Limits, BaseURL: c.BaseURL, SettleAfter: c.SettleAfter,
		ChallengeTimeout: c.ChallengeTimeout}
	n := &Notices{Store: c.Store, Mailer: c.Mailer, WebhookJob: c.WebhookJob}
	return &Services{
		Payments:  p,
		Screening: &Screening{base: b, Gateway: c.Gateway, payments: p, notices: n},
		Transfers: &Transfers{base: b, Gateway: c.Gateway},
		Requests:  &Requests{base: b, Mailer: c.Mailer, BaseURL: c.BaseURL, payments: p},
		Notices:   n,
	}
}

// base is what every money service needs: the store, a clock, a logger, the crash points.
type base struct {
	Store  *store.Store
	Logger *slog.Logger
	Now    func() time.Time
	Crash  func(point string)
}

// Payments holds the rules of the buyer's payment and its state.
type Payments struct {
	base
	Gateway          gateway.Gateway
	Limits           pay.Limits
	BaseURL          string
	SettleAfter      time.Duration
	ChallengeTimeout time.Duration
}

// Screening holds the operators' rules of a payment: check, complete, send back, cancel,
// the capture that follows completion, the review of suppliers and of new accounts.
type Screening struct {
	base
	Gateway  gateway.Gateway
	payments *Payments // an operator's cancel is the buyer's, with its audit
	notices  *Notices  // a supplier's review tells its buyer
}

// Transfers holds the transfer files' steps and the reconciliation against the PSP.
type Transfers struct {
	base
	Gateway gateway.Gateway
}

// Requests holds the rules of card-payment requests: sending, the key, paying one.
type Requests struct {
	base
	Mailer Mailer
	// BaseURL is the app's public origin, for the link mailed to the customer.
	BaseURL  string
	payments *Payments // a request is paid like a payment
}

// Notices tells buyers of events (store.Events).
type Notices struct {
	Store  *store.Store
	Mailer Mailer
	// WebhookJob makes a partner's webhook job (Config.WebhookJob); nil queues none.
	WebhookJob func(store.PartnerWebhook) store.NewJob
}

// Crash points of a submission, in order.
const (
	CrashAfterStart     = "after-start"     // the row exists, the PSP was not asked
	CrashAfterAuthorize = "after-authorize" // the PSP answered, nothing recorded
	CrashAfterSettle    = "after-settle"    // recorded, the buyer not answered
	CrashBeforeStart    = "before-start"    // checked, nothing written
)

// Crash points of the capture job and of making a transfer file.
const (
	CrashCaptureBeforePSP = "capture-before-psp" // the capture job is about to ask the PSP
	CrashCaptureAfterPSP  = "capture-after-psp"  // the PSP captured, nothing recorded
	CrashFileBeforeCommit = "file-before-commit" // the file and its payments written, not committed
	CrashFileAfterCommit  = "file-after-commit"  // the file committed, the operator not answered
)

// CrashPoints are every crash point (CARDPAY_CRASH_AT accepts only these).
var CrashPoints = []string{CrashBeforeStart, CrashAfterStart, CrashAfterAuthorize, CrashAfterSettle,
	CrashCaptureBeforePSP, CrashCaptureAfterPSP, CrashFileBeforeCommit, CrashFileAfterCommit}

func (s *base) crash(point string) {
	if s.Crash != nil {
		s.Crash(point)
	}
}

func (s *base) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *base) logger() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

func (s *Payments) limits() pay.Limits {
	if s.Limits.MaxAmount == 0 {
		return pay.DefaultLimits
	}
	return s.Limits
}

// Limits are the service limits in force.
func (s *Payments) CurrentLimits() pay.Limits { return s.limits() }

func (s *Payments) settleAfter() time.Duration {
	if s.SettleAfter > 0 {
		return s.SettleAfter
	}
	return 2 * time.Minute
}

func (s *Payments) challengeTimeout() time.Duration {
	if s.ChallengeTimeout > 0 {
		return s.ChallengeTimeout
	}
	return 30 * time.Minute
}

// Commission is the fee of an amount, with the promotion's discount when one applies
// (GET /api/v1/invoices/commission).
type Commission struct {
	Amount         int64 `json:"amount"`
	FeeBasisPoints int   `json:"fee_rate_basis_points"`
	Fee            int64 `json:"fee"`
	Total          int64 `json:"total"`
	// Discount is what the promotion took off the fee.
	Discount int64 `json:"discount"`
}

// CommissionFor computes the fee of amount, with p (nil: none).
func (s *Payments) CommissionFor(amount int64, p *pay.Promotion) Commission {
	base := s.limits().FeeBasisPoints
	rate := pay.DiscountedRate(base, p)
	fee := pay.Fee(amount, rate)
	return Commission{Amount: amount, FeeBasisPoints: rate, Fee: fee, Total: amount + fee, Discount: pay.Fee(amount, base) - fee}
}

// NormalizePromotionCode is a code as people type it: upper case, no spaces.
func NormalizePromotionCode(code string) string {
	return pay.NormalizeCode(strings.TrimSpace(code))
}

// Promotion checks a promotion code for the buyer (POST /api/v1/invoices/promotion): the
// code's terms, or field errors on "promotion_code" with the reason it cannot be used.
func (s *Payments) Promotion(ctx context.Context, buyerID int64, code string) (pay.Promotion, error) {
	code = NormalizePromotionCode(code)
	refuse := func(msg string) (pay.Promotion, error) {
		return pay.Promotion{}, pay.FieldErrors{{Field: "promotion_code", Message: msg}}
	}
	if code == "" {
		return refuse("プロモーションコードを入力してください")
	}
	if len(code) > 32 {
		return refuse(pay.MsgPromotionUnknown)
	}
	p, err := s.Store.Promotion(ctx, code)
	if errors.Is(err, store.ErrNotFound) {
		return refuse(pay.MsgPromotionUnknown)
	}
	if err != nil {
		return pay.Promotion{}, err
	}
	used, err := s.Store.PromotionUsed(ctx, buyerID, code)
	if err != nil {
		return pay.Promotion{}, err
	}
	if msg := pay.PromotionMessage(p, s.now(), used); msg != "" {
		return refuse(msg)
	}
	return p, nil
}

// Submission is a payment as the buyer confirms it.
type Submission struct {
	// SubmitKey is the confirm page's one-time key (the API's Idempotency-Key).
	SubmitKey string
	UserID    int64
	// SupplierID, or NewSupplier (created with the payment).
	SupplierID  int64
	NewSupplier *pay.SupplierInput
	// AccountID (one of the supplier's), or NewAccount (created with the payment).
	AccountID     int64
	NewAccount    *pay.CheckedAccount
	Invoice       pay.InvoiceInput
	CardID        int64
	PromotionCode string
	FileID        *int64
	// Acknowledged lists the fields of the evidence warnings the buyer acknowledged.
	Acknowledged []string
}

// Checked is a submission that validated: what the confirm page shows.
type Checked struct {
	Invoice    pay.CheckedInvoice
	Supplier   store.Supplier // ID 0 for a new supplier
	Account    store.AccountFields
	Card       store.Card
	Promotion  *pay.Promotion
	Commission Commission
	// Warnings are the evidence check's differences between the entry and the invoice
	// file as read; each must be acknowledged before submitting.
	Warnings []invoiceread.Warning
}

// Check validates a submission without writing anything: the confirm page and the API
// call it before Submit. Field errors are pay.FieldErrors; a supplier, account, card or
// file that is not the buyer's is store.ErrNotFound.
func (s *Payments) Check(ctx context.Context, buyerID int64, sub Submission) (Checked, error) {
	var out Checked
	var errs pay.FieldErrors
	inv, ierrs := sub.Invoice.Check(s.limits(), s.now())
	errs = append(errs, ierrs...)
	out.Invoice = inv
	switch {
	case sub.NewSupplier != nil:
		in := *sub.NewSupplier
		in.Normalise()
		for _, e := range in.Validate() {
			errs.Add("supplier_"+e.Field, e.Message)
		}
		out.Supplier = store.Supplier{BusinessForm: in.BusinessForm, Name: in.Name, NameKana: in.NameKana,
			CorporateNumber: in.CorporateNumber, BusinessName: in.BusinessName, Status: pay.SupplierUnapproved}
		if sub.NewAccount == nil {
			errs.Add("account_id", "新しい取引先の振込先口座を入力してください")
		}
	case sub.SupplierID == 0:
		errs.Add("supplier_id", "支払先の取引先を選んでください")
	default:
		sup, err := s.Store.Supplier(ctx, buyerID, sub.SupplierID)
		if err != nil {
			return out, err
		}
		if sup.Status == pay.SupplierRejected {
			errs.Add("supplier_id", "この取引先は審査の結果ご利用いただけません。別の取引先を選んでください")
		}
		out.Supplier = sup
	}
	switch {
	case sub.NewAccount != nil:
		out.Account = store.AccountFieldsOf(*sub.NewAccount)
	case sub.AccountID == 0:
		if errs.For("account_id") == "" && sub.NewSupplier == nil {
			errs.Add("account_id", "振込先口座を選んでください")
		}
	case sub.SupplierID != 0:
		a, err := s.Store.SupplierAccount(ctx, buyerID, sub.SupplierID, sub.AccountID)
		if err != nil {
			return out, err
		}
		out.Account = store.AccountFields{BankCode: a.BankCode, BankName: a.BankName, BranchCode: a.BranchCode,
			BranchName: a.BranchName, AccountType: a.AccountType, AccountNumber: a.AccountNumber, HolderName: a.HolderName}
	}
	if sub.CardID == 0 {
		errs.Add("card_id", "お支払いに使うカードを選んでください")
	} else {
		c, err := s.Store.Card(ctx, buyerID, sub.CardID)
		if err != nil {
			return out, err
		}
		if c.Expired(s.now()) {
			errs.Add("card_id", "このカードは有効期限が切れているため選択できません。別のカードを選択するか、新しいカードを追加してください")
		}
		out.Card = c
	}
	if code := NormalizePromotionCode(sub.PromotionCode); code != "" {
		p, err := s.Promotion(ctx, buyerID, code)
		var fe pay.FieldErrors
		switch {
		case errors.As(err, &fe):
			errs = append(errs, fe...)
		case err != nil:
			return out, err
		default:
			out.Promotion = &p
		}
	}
	out.Commission = s.CommissionFor(inv.Amount, out.Promotion)
	if sub.FileID != nil {
		f, err := s.Store.InvoiceFile(ctx, buyerID, *sub.FileID)
		if err != nil {
			return out, err
		}
		out.Warnings = evidence(f, out, buyerNames(ctx, s.Store, buyerID))
	}
	for _, w := range out.Warnings {
		if !slices.Contains(sub.Acknowledged, w.Field) {
			errs.Add("acknowledge_"+w.Field, "請求書との違いを確認し、「確認しました」にチェックを入れてください")
		}
	}
	if len(errs) > 0 {
		return out, errs
	}
	return out, nil
}

// Submitted is the outcome of a submission that was not refused: a payment (審査中), or a
// 3-D Secure challenge to send the buyer to first.
type Submitted struct {
	Payment   store.Payment
	ActionURL string
}

// MsgNoAnswer: the PSP did not answer and its outcome is unknown; the reconciler settles
// it and the buyer is told.
const MsgNoAnswer = "カード会社からの応答がないため、お支払いの結果を確認しています。結果は数分以内に「審査中」の一覧とお知らせでご確認いただけます。もう一度申請する必要はありません"

// Submit checks a submission and makes it a payment: the row first (with the new
// supplier and account, the promotion code used and the file locked), then the card's
// authorisation of amount + fee under the row's payment id. A second submission with the
// same key answers the first one's outcome and never authorises twice. A declined card is
// field errors on "card_id" with the gateway's message; nothing the buyer entered is
// lost, and the next attempt needs a new key.
func (s *Payments) Submit(ctx context.Context, buyerID int64, sub Submission) (Submitted, error) {
	if sub.SubmitKey == "" {
		return Submitted{}, errors.New("invoices: submit without a key")
	}
	if err := s.activeBuyer(ctx, buyerID, "card_id"); err != nil {
		return Submitted{}, err
	}
	chk, err := s.Check(ctx, buyerID, sub)
	if err != nil {
		return Submitted{}, err
	}
	s.crash(CrashBeforeStart)
	n := store.NewPayment{
		SubmitKey: sub.SubmitKey, CreatedBy: sub.UserID, SupplierID: sub.SupplierID, AccountID: sub.AccountID,
		CardID: chk.Card.ID, Invoice: chk.Invoice, Fee: chk.Commission.Fee, FeeBasisPoints: chk.Commission.FeeBasisPoints,
		FeeFullBasisPoints: s.limits().FeeBasisPoints,
		FileID:             sub.FileID, Acknowledged: sub.Acknowledged,
	}
	if chk.Promotion != nil {
		n.PromotionCode = chk.Promotion.Code
	}
	if sub.NewSupplier != nil {
		in := *sub.NewSupplier
		in.Normalise()
		n.NewSupplier, n.SupplierID = &in, 0
	}
	if sub.NewAccount != nil {
		n.NewAccount, n.AccountID = &chk.Account, 0
	}
	learned, learn, err := s.learned(ctx, buyerID, sub.FileID, chk)
	if err != nil {
		return Submitted{}, err
	}
	now := s.now()
	p, created, err := s.Store.StartPayment(ctx, buyerID, n, now, func(tx *sqlx.Tx, id int64) error {
		if err := s.enqueueSettle(ctx, tx, buyerID, id, fmt.Sprintf("settle-%d", id), now); err != nil {
			return err
		}
		if !learn {
			return nil
		}
		// What the buyer paid with is remembered for the supplier with the submission.
		return s.Store.SaveSupplierHistory(ctx, tx, buyerID, id, learned)
	})
	switch {
	case errors.Is(err, store.ErrPromotionUsed):
		return Submitted{}, pay.FieldErrors{{Field: "promotion_code", Message: pay.MsgPromotionUsed}}
	case errors.Is(err, store.ErrDuplicateAccount):
		return Submitted{}, pay.FieldErrors{{Field: "account_number", Message: "この口座は既にこの取引先に登録されています。登録済みの口座から選んでください"}}
	case err != nil:
		return Submitted{}, err
	}
	s.crash(CrashAfterStart)
	if !created {
		switch {
		case p.CardStatus.Submitted():
			return Submitted{Payment: p}, nil
		case p.CardStatus == pay.CardRequiresAction:
			return Submitted{Payment: p, ActionURL: p.ActionURL}, nil
		case p.CardStatus == pay.CardDeclined:
			return Submitted{Payment: p}, declined(gateway.ResultCode(p.CardResultCode))
		}
		// Still pending: another request is asking the PSP. Asking again under the same
		// id is safe: the PSP answers the first authorisation.
	}
	return s.authorize(ctx, buyerID, p, chk.Card)
}

// activeBuyer refuses, on field, what a buyer held for the operators' review may not do
// yet: pay, send a card-payment request, take one. Nothing is charged for or paid out to
// a business the registry has not confirmed.
func (s *base) activeBuyer(ctx context.Context, buyerID int64, field string) error {
	st, err := s.Store.BuyerReviewStatus(ctx, buyerID)
	if err != nil {
		return err
	}
	if st != pay.BuyerActive {
		return pay.FieldErrors{{Field: field, Message: pay.MsgBuyerHeld}}
	}
	return nil
}

// authorize asks the PSP for the submission's authorisation and settles the row with its
// answer.
func (s *Payments) authorize(ctx context.Context, buyerID int64, p store.Payment, card store.Card) (Submitted, error) {
	tx, err := s.Gateway.Authorize(ctx, gateway.AuthorizeRequest{
		PaymentID: p.PaymentRef, CardRef: card.Ref, Amount: p.AuthorizedAmount,
		ReturnURL: strings.TrimSuffix(s.BaseURL, "/") + ReturnPath + "?payment=" + url.QueryEscape(p.PaymentRef),
	})
	if errors.Is(err, gateway.ErrUnavailable) {
		s.logger().Warn("invoices: authorisation unanswered; looking it up", "payment", p.PaymentRef)
		tx, err = s.Gateway.Lookup(ctx, p.PaymentRef)
	}
	s.crash(CrashAfterAuthorize)
	switch {
	case errors.Is(err, gateway.ErrNotFound):
		// The PSP never saw it: nothing was reserved on the card.
		tx = gateway.Transaction{Status: gateway.StatusDeclined, ResultCode: gateway.ResultProcessorError}
	case errors.Is(err, gateway.ErrUnavailable):
		// Unknown: the row stays pending and the reconciler asks again.
		return Submitted{Payment: p}, pay.FieldErrors{{Field: "card_id", Message: MsgNoAnswer}}
	case err != nil:
		return Submitted{}, fmt.Errorf("invoices: authorise %s: %w", p.PaymentRef, err)
	}
	return s.settle(ctx, buyerID, p, tx, "buyer")
}

// outcome turns the PSP's view of a payment into the row's.
func outcome(tx gateway.Transaction) store.AuthOutcome {
	switch tx.Status {
	case gateway.StatusAuthorized, gateway.StatusCaptured, gateway.StatusPartiallyRefunded:
		return store.AuthOutcome{Status: pay.CardAuthorized, ResultCode: string(resultOr(tx.ResultCode, gateway.ResultApproved))}
	case gateway.StatusRequiresAction:
		return store.AuthOutcome{Status: pay.CardRequiresAction, ResultCode: string(resultOr(tx.ResultCode, gateway.ResultActionRequired)), ActionURL: tx.ActionURL}
	}
	code := tx.ResultCode
	if !code.IsDecline() {
		code = gateway.ResultDeclined
	}
	return store.AuthOutcome{Status: pay.CardDeclined, ResultCode: string(code)}
}

func resultOr(code, def gateway.ResultCode) gateway.ResultCode {
	if code == "" {
		return def
	}
	return code
}

func declined(code gateway.ResultCode) error {
	return pay.FieldErrors{{Field: "card_id", Message: gateway.ResultMessage(code)}}
}

func (s *Payments) settle(ctx context.Context, buyerID int64, p store.Payment, tx gateway.Transaction, actor string) (Submitted, error) {
	o := outcome(tx)
	o.Actor = actor
	p, err := s.Store.SettleSubmission(ctx, buyerID, p.ID, o, s.now())
	if err != nil {
		return Submitted{}, err
	}
	s.crash(CrashAfterSettle)
	switch p.CardStatus {
	case pay.CardRequiresAction:
		return Submitted{Payment: p, ActionURL: p.ActionURL}, nil
	case pay.CardDeclined:
		return Submitted{Payment: p}, declined(gateway.ResultCode(p.CardResultCode))
	}
	return Submitted{Payment: p}, nil
}

// Returned settles a submission when the buyer comes back from a 3-D Secure challenge,
// by asking the PSP (the return URL carries nothing to trust). Another buyer's payment
// id is store.ErrNotFound.
func (s *Payments) Returned(ctx context.Context, buyerID int64, ref string) (Submitted, error) {
	p, err := s.Store.SubmissionByRef(ctx, buyerID, ref)
	if err != nil {
		return Submitted{}, err
	}
	if p.CardStatus != pay.CardPending && p.CardStatus != pay.CardRequiresAction {
		if p.CardStatus == pay.CardDeclined {
			return Submitted{Payment: p}, declined(gateway.ResultCode(p.CardResultCode))
		}
		return Submitted{Payment: p}, nil
	}
	tx, err := s.Gateway.Lookup(ctx, ref)
	switch {
	case errors.Is(err, gateway.ErrNotFound):
		tx = gateway.Transaction{Status: gateway.StatusDeclined, ResultCode: gateway.ResultProcessorError}
	case errors.Is(err, gateway.ErrUnavailable):
		return Submitted{Payment: p}, pay.FieldErrors{{Field: "card_id", Message: MsgNoAnswer}}
	case err != nil:
		return Submitted{}, err
	}
	if tx.Status == gateway.StatusRequiresAction {
		// Back without finishing the challenge (the back button): not settled yet.
		return Submitted{Payment: p}, pay.FieldErrors{{Field: "card_id", Message: "カード会社の本人認証（3-Dセキュア）が完了していません。もう一度「この内容で申請する」を押して、本人認証を行ってください"}}
	}
	return s.settle(ctx, buyerID, p, tx, "buyer")
}

// buyerNames are the buyer's own names, to compare with the invoice's addressee.
func buyerNames(ctx context.Context, st *store.Store, buyerID int64) []string {
	b, err := st.Buyer(ctx, buyerID)
	if err != nil {
		return nil
	}
	var names []string
	for _, n := range []string{b.CorporateName, b.BusinessName, b.RepresentativeLastName + b.RepresentativeFirstName} {
		if strings.TrimSpace(n) != "" {
			names = append(names, n)
		}
	}
	return names
}

// learned is what a submission from an uploaded invoice teaches about its supplier (issue
// 28): the values submitted for the fields a reading produces, and which of them the
// reading missed or got wrong (invoiceread.Corrections). Nothing without a file, or
// before its reading is done: there is nothing to compare.
func (s *Payments) learned(ctx context.Context, buyerID int64, fileID *int64, c Checked) (store.SupplierHistory, bool, error) {
	if fileID == nil {
		return store.SupplierHistory{}, false, nil
	}
	f, err := s.Store.InvoiceFile(ctx, buyerID, *fileID)
	if err != nil {
		return store.SupplierHistory{}, false, err
	}
	var read invoiceread.Fields
	if f.OCRStatus != store.OCRDone || len(f.OCRFields) == 0 || json.Unmarshal(f.OCRFields, &read) != nil {
		return store.SupplierHistory{}, false, nil
	}
	places, err := s.places(ctx, buyerID, f.ID, c.Invoice)
	if err != nil {
		return store.SupplierHistory{}, false, err
	}
	used := invoiceread.Remembered{
		IssuerName: c.Supplier.Name, RegistrationNumber: c.Invoice.RegistrationNumber,
		BankCode: c.Account.BankCode, BankName: c.Account.BankName, BranchCode: c.Account.BranchCode,
		BranchName: c.Account.BranchName, AccountType: c.Account.AccountType, AccountNumber: c.Account.AccountNumber,
		AccountHolder: c.Account.HolderName,
	}
	return store.SupplierHistory{
		RegistrationNumber: used.RegistrationNumber, CorporateNumber: c.Supplier.CorporateNumber, IssuerName: used.IssuerName,
		BankCode: used.BankCode, BankName: used.BankName, BranchCode: used.BranchCode, BranchName: used.BranchName,
		AccountType: used.AccountType, AccountNumber: used.AccountNumber, HolderName: used.AccountHolder,
		Corrected: invoiceread.Corrections(read, used, c.Supplier.BusinessName, c.Supplier.NameKana),
		Places:    places,
	}, true, nil
}

// places are where the file's reading found the amount and the dates submitted
// (invoiceread.Learn), as the supplier's history keeps them; nil when the reading kept no
// lines (a PDF's text layer, a file read before they were kept) or found none.
func (s *Payments) places(ctx context.Context, buyerID, fileID int64, inv pay.CheckedInvoice) (json.RawMessage, error) {
	raw, err := s.Store.InvoiceFileLines(ctx, buyerID, fileID)
	if err != nil {
		return nil, err
	}
	lines, err := invoiceread.UnmarshalLines(raw)
	if err != nil || len(lines) == 0 {
		return nil, nil // an older file's lines that do not decode teach nothing
	}
	k := invoiceread.Known{Total: inv.Amount, DueDate: inv.DueDate.Format(time.DateOnly)}
	if inv.InvoiceDate != nil {
		k.InvoiceDate = inv.InvoiceDate.Format(time.DateOnly)
	}
	ps := invoiceread.Learn(lines, k)
	if len(ps) == 0 {
		return nil, nil
	}
	return json.Marshal(ps)
}

// evidence compares the entry with the invoice file as read; a file not read (yet, or
// at all) warns of nothing.
func evidence(f store.InvoiceFile, c Checked, names []string) []invoiceread.Warning {
	var read invoiceread.Fields
	if f.OCRStatus != store.OCRDone || len(f.OCRFields) == 0 || json.Unmarshal(f.OCRFields, &read) != nil {
		return nil
	}
	e := invoiceread.Entered{
		Amount: c.Invoice.Amount, PayeeName: c.Supplier.Name,
		BankCode: c.Account.BankCode, BankName: c.Account.BankName, BranchCode: c.Account.BranchCode,
		BranchName: c.Account.BranchName, AccountType: c.Account.AccountType, AccountNumber: c.Account.AccountNumber,
		AccountHolder: c.Account.HolderName,
	}
	return invoiceread.Evidence(e, read, names)
}
