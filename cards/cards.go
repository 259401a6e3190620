// Package cards holds the rules of a buyer's saved cards that the pages and the JSON API
// share: adding a card (the PSP turns a one-time token into a card, which is verified
// with a zero-amount authorisation, with a 3-D Secure challenge when the PSP asks,
// before it is saved), the list with expired cards marked, deleting, the default card,
// an authorisation (与信) on a saved card, and the PSP's webhooks. Handlers stay thin
// adapters around it.
//
// No card number or security code ever reaches this package: the browser sends them to
// the PSP, and what comes back is a token.
package cards

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"cardpay/gateway"
	"cardpay/pay"
	"cardpay/store"
)

// Paths of the add-card flow the PSP sends the buyer back to (routed in
// handlers/routes.go, served by handlers/myaccount).
const (
	// HostedReturnPath receives ?setup=… (or Stripe.js's ?setup_intent=…) from the PSP's
	// hosted card page, or after a 3-D Secure challenge during a setup.
	HostedReturnPath = "/myaccount/creditcards/new/return"
	// VerifyReturnPath receives ?payment_id=… after a 3-D Secure challenge.
	VerifyReturnPath = "/myaccount/creditcards/verify/return"
	// checkPrefix starts the payment id of every card check ("cardcheck-<id>"); callers
	// of Approve may not use it.
	checkPrefix = "cardcheck-"
)

// Service carries the card rules' dependencies.
type Service struct {
	Store   *store.Store
	Gateway gateway.Gateway
	// BaseURL is the app's public origin, for the return URLs the PSP sends buyers to.
	BaseURL string
	Logger  *slog.Logger
	Now     func() time.Time
	// QueueEvents hands each stored webhook to a background job (PSPEventJobKind, run by
	// RunEventJob) instead of processing it inside the webhook's request. Set it only
	// where a jobs.Runner has that kind registered.
	QueueEvents bool
	// Payments acts on webhooks about card payments of invoices (payment ids "inv-…");
	// nil leaves them to the payment's own calls and its reconciler.
	Payments PaymentEvents
	// Limiter caps card checks per buyer and IP (account.Service); nil does not limit
	// (tests of other rules, the background jobs that only finish checks).
	Limiter Limiter
	// DeclineLimit is how many declined checks a buyer may have in a Japan day before
	// adding cards is locked; 0 means the Limiter's (card_decline.target), or
	// DeclineLimit without one.
	DeclineLimit int
}

// Limiter is the rate limiter's part that card checks use (account.Service).
type Limiter interface {
	// LimitCardCheck counts a check of the buyer from the caller's IP, or refuses it
	// with an *account.Limited.
	LimitCardCheck(ctx context.Context, buyerID int64) error
	// CountCardDecline counts a declined check against the caller's IP.
	CountCardDecline(ctx context.Context) error
	// CardDeclineLimit is the declines in a Japan day that lock a buyer (RATE_LIMITS'
	// card_decline.target); 0 turns the lock off.
	CardDeclineLimit() int
}

// DeclineLimit is the default number of declined card checks a buyer may have in a
// Japan day: a buyer who mistypes a card or two gets there rarely; someone trying
// stolen cards reads five declines, then no more until the next day or an operator
// looks.
const DeclineLimit = 5

// DeclineLimitOrDefault is the number of declined checks that locks a buyer's day; 0
// when the lock is off (RATE_LIMITS turned card_decline.target off).
func (s *Service) DeclineLimitOrDefault() int {
	switch {
	case s.DeclineLimit > 0:
		return s.DeclineLimit
	case s.Limiter != nil:
		return s.Limiter.CardDeclineLimit()
	}
	return DeclineLimit
}

// Day is the Japan day of t (YYYY-MM-DD), the day of the card-check locks.
func Day(t time.Time) string { return t.In(pay.Tokyo()).Format(time.DateOnly) }

// Locked says whether adding cards is locked for the buyer today (Japan time).
func (s *Service) Locked(ctx context.Context, buyerID int64) (bool, error) {
	l, err := s.Store.CardCheckLock(ctx, buyerID, Day(s.now()))
	return l.Locked(), err
}

// Unlock lifts the buyer's card-check lock of today, with the operator's audit row;
// store.ErrStateChanged when the buyer is not locked (any more).
func (s *Service) Unlock(ctx context.Context, buyerID, operatorID int64, reason string) error {
	return s.Store.UnlockCardChecks(ctx, buyerID, Day(s.now()), operatorID, reason, s.now())
}

// countsAsDecline says whether a check's result is the issuer's (or the 3-D Secure
// challenge's) refusal of the card, which is what someone trying stolen cards reads;
// a processor error or a timeout says nothing about the card and is not counted.
func countsAsDecline(code gateway.ResultCode) bool {
	return code.IsDecline() && code != gateway.ResultProcessorError && code != gateway.ResultTimeout
}

// withDecline marks a declined outcome to be counted against the buyer's day.
func (s *Service) withDecline(o store.CardCheckOutcome) store.CardCheckOutcome {
	if !o.Authorized && countsAsDecline(gateway.ResultCode(o.ResultCode)) {
		if limit := s.DeclineLimitOrDefault(); limit > 0 {
			o.Decline = &store.DeclineCount{Day: Day(s.now()), Limit: limit}
		}
	}
	return o
}

// PaymentEvents is the part of the payment service that webhooks reach (invoices.Payments).
type PaymentEvents interface {
	ApplyEvent(ctx context.Context, buyerID int64, ev gateway.Event) error
}

// paymentPrefix starts the PSP payment id of every invoice payment ("inv-<id>-<n>").
const paymentPrefix = "inv-"

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

// Refusal is an expected "no" with a Japanese message for the buyer: a declined card, a
// brand the service does not take, a duplicate, the limit. Nothing was saved. Field is
// the form or JSON field it concerns; Code is the gateway result code when there is one.
type Refusal struct {
	Field   string
	Message string
	Code    gateway.ResultCode
	// Locked: adding cards is locked for the buyer today (MsgLocked).
	Locked bool
}

func (r *Refusal) Error() string { return r.Message }

// AsRefusal unwraps a Refusal.
func AsRefusal(err error) (*Refusal, bool) {
	var r *Refusal
	ok := errors.As(err, &r)
	return r, ok
}

// Messages of the card rules.
const (
	MsgTokenMissing    = "カード情報を入力してください"
	MsgTokenUnusable   = "カード情報の有効期限が切れたか、既に使用されています。お手数ですが、もう一度カード情報を入力してください"
	MsgDuplicate       = "このカードは既に登録されています。登録済みのカードは「お支払い方法」の一覧からお選びいただけます"
	MsgExpiredChosen   = "このカードは有効期限が切れているため選択できません。別のカードを選択するか、新しいカードを追加してください"
	MsgChallengeUnfin  = "カード会社の本人認証（3-Dセキュア）が完了していません。お手数ですが、もう一度カードを追加してください"
	MsgPaymentIDTaken  = "このお支払い番号は使用できません。別のお支払い番号を指定してください"
	MsgPaymentIDReused = "このお支払い番号では、既に別のカードまたは金額で与信を行っています"
	MsgLocked          = "カードの確認でお断りが続いたため、本日はカードの追加を停止しています。明日以降にもう一度お試しいただくか、お問い合わせ窓口までご連絡ください"
)

// MsgTooMany is the refusal of a card over the limit of saved cards.
var MsgTooMany = fmt.Sprintf("登録できるカードは%d枚までです。新しいカードを追加するには、使わなくなったカードを削除してください", pay.MaxSavedCards)

func refuse(field, msg string, code gateway.ResultCode) *Refusal {
	return &Refusal{Field: field, Message: msg, Code: code}
}

func declined(field string, code gateway.ResultCode) *Refusal {
	return refuse(field, gateway.ResultMessage(code), code)
}

// ResultMessage is the buyer's Japanese message for a gateway result code
// (GET /api/v1/v_result_message/{id}); ok is false for a code the service does not know.
func ResultMessage(code string) (msg string, ok bool) {
	return gateway.ResultCode(code).Message()
}

// IsDecline says whether a result code is a refusal the buyer must act on.
func IsDecline(code string) bool { return gateway.ResultCode(code).IsDecline() }

// Card is a saved card as the pages and the API show it.
type Card struct {
	store.Card
	// Expired cards are shown (期限切れ) but cannot be chosen.
	Expired bool
}

// Expiry is MM/YY as printed on the card.
func (c Card) Expiry() string { return pay.CardExpiry(c.ExpMonth, c.ExpYear) }

// Cards lists the buyer's saved cards, the default first.
func (s *Service) Cards(ctx context.Context, buyerID int64) ([]Card, error) {
	list, err := s.Store.Cards(ctx, buyerID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	out := make([]Card, len(list))
	for i, c := range list {
		out[i] = Card{Card: c, Expired: c.Expired(now)}
	}
	return out, nil
}

// Card is one of the buyer's saved cards; another buyer's is store.ErrNotFound.
func (s *Service) Card(ctx context.Context, buyerID, id int64) (Card, error) {
	c, err := s.Store.Card(ctx, buyerID, id)
	if err != nil {
		return Card{}, err
	}
	return Card{Card: c, Expired: c.Expired(s.now())}, nil
}

// Delete removes one of the buyer's cards; when it was the default, the newest remaining
// card becomes the default. The PSP keeps its reference: payments made with the card
// still point at it.
func (s *Service) Delete(ctx context.Context, buyerID, id int64) error {
	return s.Store.DeleteCard(ctx, buyerID, id)
}

// SetDefault makes one of the buyer's cards the default. An expired card cannot be
// chosen.
func (s *Service) SetDefault(ctx context.Context, buyerID, id int64) error {
	c, err := s.Card(ctx, buyerID, id)
	if err != nil {
		return err
	}
	if c.Expired {
		return refuse("card", MsgExpiredChosen, gateway.ResultExpiredCard)
	}
	return s.Store.SetDefaultCard(ctx, buyerID, id)
}

// Added is the outcome of adding a card that was not refused: either the card is saved,
// or the PSP asks for a 3-D Secure challenge first (send the buyer to ActionURL; the PSP
// sends them back to VerifyReturnPath?payment_id=PaymentID).
type Added struct {
	Card      *Card
	ActionURL string
	PaymentID string
}

// maxToken bounds a token or a setup id: the PSPs' are far shorter.
const maxToken = 255

// AddCard saves a card from a one-time token (a JSON API client's, from the PSP's
// tokenisation endpoint), after the checks that need no PSP (the limit), the PSP's
// answer (brand, expiry, a card already saved) and a zero-amount verification. A
// *Refusal says why nothing was saved.
func (s *Service) AddCard(ctx context.Context, buyerID int64, token string) (Added, error) {
	token = strings.TrimSpace(token)
	if token == "" || len(token) > maxToken {
		return Added{}, refuse("token", MsgTokenMissing, "")
	}
	if err := s.admit(ctx, buyerID); err != nil {
		return Added{}, err
	}
	gc, err := s.Gateway.SaveCard(ctx, token)
	if err != nil {
		return Added{}, saveErr(err)
	}
	return s.check(ctx, buyerID, gc, false)
}

// StartSetup opens a card setup at the PSP for the add page: its fields for the
// card-entry island, or its hosted page (hosted) for a buyer without JavaScript. The
// PSP sends the buyer back to HostedReturnPath with the setup's id. The caller keeps
// the id with the buyer's session: only a setup this session started is finished.
func (s *Service) StartSetup(ctx context.Context, hosted bool) (gateway.CardSetup, error) {
	cs, err := s.Gateway.StartCardSetup(ctx, gateway.CardSetupRequest{ReturnURL: s.BaseURL + HostedReturnPath, Hosted: hosted})
	if err != nil {
		return gateway.CardSetup{}, fmt.Errorf("cards: start card setup: %w", err)
	}
	return cs, nil
}

// AddSetupCard saves the card the buyer entered into the PSP's fields or hosted page
// for setup (StartSetup), with the same checks as AddCard. A card the PSP verified
// during the setup (Stripe's SetupIntent, 3-D Secure included) is saved without a
// second verification; any other is verified with a zero-amount authorisation.
func (s *Service) AddSetupCard(ctx context.Context, buyerID int64, setupID string) (Added, error) {
	setupID = strings.TrimSpace(setupID)
	if setupID == "" || len(setupID) > maxToken {
		return Added{}, refuse("token", MsgTokenMissing, "")
	}
	if err := s.admit(ctx, buyerID); err != nil {
		return Added{}, err
	}
	res, err := s.Gateway.FinishCardSetup(ctx, setupID)
	if err != nil {
		return Added{}, saveErr(err)
	}
	switch res.Status {
	case gateway.SetupSucceeded:
		return s.check(ctx, buyerID, res.Card, res.Verified)
	case gateway.SetupRequiresAction:
		return Added{}, refuse("token", MsgChallengeUnfin, gateway.ResultActionRequired)
	case gateway.SetupDeclined:
		if s.Limiter != nil && countsAsDecline(res.ResultCode) {
			if err := s.Limiter.CountCardDecline(ctx); err != nil {
				return Added{}, err
			}
		}
		return Added{}, declined("token", resultOr(res.ResultCode, gateway.ResultDeclined))
	}
	// Open: the buyer came back without entering a card.
	return Added{}, refuse("token", MsgTokenMissing, "")
}

// admit runs the checks of an added card that need no PSP: the number of saved cards,
// the day's lock, and the rate limiter.
func (s *Service) admit(ctx context.Context, buyerID int64) error {
	n, err := s.Store.CardCount(ctx, buyerID)
	if err != nil {
		return err
	}
	if n >= pay.MaxSavedCards {
		return refuse("token", MsgTooMany, "")
	}
	// The lock first: a locked buyer's attempts reach neither the limiter nor the PSP.
	if locked, err := s.Locked(ctx, buyerID); err != nil {
		return err
	} else if locked {
		return &Refusal{Field: "token", Message: MsgLocked, Locked: true}
	}
	if s.Limiter != nil {
		// Every attempt that reaches the PSP counts, whatever its outcome: a token
		// the PSP turns into a card already tells whether the number exists.
		if err := s.Limiter.LimitCardCheck(ctx, buyerID); err != nil {
			return err
		}
	}
	return nil
}

// saveErr is the buyer's answer when the PSP would not give the card.
func saveErr(err error) error {
	switch {
	case errors.Is(err, gateway.ErrBadToken), errors.Is(err, gateway.ErrNotFound):
		return refuse("token", MsgTokenUnusable, "")
	case errors.Is(err, gateway.ErrUnavailable):
		return declined("token", gateway.ResultProcessorError)
	}
	return fmt.Errorf("cards: save card: %w", err)
}

// check refuses a card the service does not take (brand, expiry, already saved), then
// records the card check and verifies the card with the issuer, unless the PSP already
// did (verified).
func (s *Service) check(ctx context.Context, buyerID int64, gc gateway.Card, verified bool) (Added, error) {
	if msg := gc.Brand.RefusalMessage(); msg != "" {
		return Added{}, refuse("token", msg, gateway.ResultBrandNotAccepted)
	}
	if pay.CardExpired(gc.ExpMonth, gc.ExpYear, s.now()) {
		return Added{}, declined("token", gateway.ResultExpiredCard)
	}
	if _, err := s.Store.CardByFingerprint(ctx, buyerID, s.Gateway.Name(), gc.Fingerprint); err == nil {
		return Added{}, refuse("token", MsgDuplicate, "")
	} else if !errors.Is(err, store.ErrNotFound) {
		return Added{}, err
	}
	check, err := s.Store.CreateCardCheck(ctx, buyerID, store.NewCard{
		Gateway: s.Gateway.Name(), Ref: gc.Ref, Brand: gc.Brand, Last4: gc.Last4,
		ExpMonth: gc.ExpMonth, ExpYear: gc.ExpYear, HolderName: gc.Holder, Fingerprint: gc.Fingerprint,
	})
	if err != nil {
		return Added{}, err
	}
	if verified {
		// The check's row still records the card and its outcome, as for a card the
		// service verified itself.
		return s.finishCheck(ctx, buyerID, check.PaymentID, store.CardCheckOutcome{Authorized: true, ResultCode: string(gateway.ResultApproved)})
	}
	tx, err := s.Gateway.Authorize(ctx, gateway.AuthorizeRequest{
		PaymentID: check.PaymentID, CardRef: gc.Ref, VerifyOnly: true,
		ReturnURL: s.BaseURL + VerifyReturnPath + "?payment_id=" + url.QueryEscape(check.PaymentID),
	})
	if errors.Is(err, gateway.ErrUnavailable) {
		// The PSP may have verified the card before the answer was lost: ask it what
		// happened under the same id, never verify again under a new one.
		s.logger().Warn("cards: verification unanswered; looking it up", "payment_id", check.PaymentID, "card", gc)
		tx, err = s.Gateway.Lookup(ctx, check.PaymentID)
	}
	if err != nil {
		return Added{}, s.unanswered(ctx, buyerID, check.PaymentID, err)
	}
	return s.checkAnswered(ctx, buyerID, check.PaymentID, tx)
}

// unanswered handles a verification whose outcome the PSP did not tell: never seen by
// the PSP (nothing happened; the buyer may try again), or still unknown (the check stays
// pending and the webhook finishes it; the card may appear in the list later).
func (s *Service) unanswered(ctx context.Context, buyerID int64, paymentID string, err error) error {
	switch {
	case errors.Is(err, gateway.ErrNotFound):
		if _, ferr := s.Store.FinishCardCheck(ctx, buyerID, paymentID, store.CardCheckOutcome{ResultCode: string(gateway.ResultProcessorError)}, s.now()); ferr != nil {
			return ferr
		}
		return declined("token", gateway.ResultProcessorError)
	case errors.Is(err, gateway.ErrUnavailable):
		s.logger().Warn("cards: verification outcome unknown; waiting for the webhook", "payment_id", paymentID)
		return declined("token", gateway.ResultTimeout)
	}
	return fmt.Errorf("cards: verify %s: %w", paymentID, err)
}

// checkAnswered acts on the PSP's answer to a card check.
func (s *Service) checkAnswered(ctx context.Context, buyerID int64, paymentID string, tx gateway.Transaction) (Added, error) {
	switch tx.Status {
	case gateway.StatusRequiresAction:
		if tx.ActionURL == "" {
			return Added{}, fmt.Errorf("cards: verify %s: challenge without a URL", paymentID)
		}
		if err := s.Store.SetCardCheckAction(ctx, buyerID, paymentID, tx.ActionURL); err != nil {
			return Added{}, err
		}
		return Added{ActionURL: tx.ActionURL, PaymentID: paymentID}, nil
	case gateway.StatusAuthorized:
		return s.finishCheck(ctx, buyerID, paymentID, store.CardCheckOutcome{Authorized: true, ResultCode: string(resultOr(tx.ResultCode, gateway.ResultApproved))})
	}
	return s.finishCheck(ctx, buyerID, paymentID, store.CardCheckOutcome{ResultCode: string(declineCode(tx))})
}

// declineCode is the result code of a transaction that did not authorise.
func declineCode(tx gateway.Transaction) gateway.ResultCode {
	if tx.ResultCode.IsDecline() {
		return tx.ResultCode
	}
	return gateway.ResultDeclined
}

func resultOr(code, def gateway.ResultCode) gateway.ResultCode {
	if code == "" {
		return def
	}
	return code
}

func (s *Service) finishCheck(ctx context.Context, buyerID int64, paymentID string, o store.CardCheckOutcome) (Added, error) {
	o = s.withDecline(o)
	cc, err := s.Store.FinishCardCheck(ctx, buyerID, paymentID, o, s.now())
	if err != nil {
		return Added{}, err
	}
	if s.Limiter != nil && cc.Status == store.CardCheckDeclined && !o.Authorized && countsAsDecline(gateway.ResultCode(o.ResultCode)) {
		// The caller's IP read this decline (the webhook's declines have no IP).
		if err := s.Limiter.CountCardDecline(ctx); err != nil {
			return Added{}, err
		}
	}
	return s.checkOutcome(ctx, cc)
}

// checkOutcome is what a finished (or still open) card check means for the buyer.
func (s *Service) checkOutcome(ctx context.Context, cc store.CardCheck) (Added, error) {
	switch cc.Status {
	case store.CardCheckAuthorized:
		c, err := s.Card(ctx, cc.BuyerID, *cc.CardID)
		if errors.Is(err, store.ErrNotFound) {
			// Saved, then deleted since: the check itself went well.
			return Added{PaymentID: cc.PaymentID}, nil
		}
		if err != nil {
			return Added{}, err
		}
		return Added{Card: &c, PaymentID: cc.PaymentID}, nil
	case store.CardCheckRefused:
		if cc.Refusal == store.RefusalTooMany {
			return Added{}, refuse("token", MsgTooMany, "")
		}
		return Added{}, refuse("token", MsgDuplicate, "")
	case store.CardCheckDeclined:
		return Added{}, declined("token", gateway.ResultCode(cc.ResultCode))
	}
	return Added{}, declined("token", gateway.ResultTimeout)
}

// FinishCheck is the return from a 3-D Secure challenge: the PSP adds nothing we trust
// to the return URL, so the outcome is looked up by our payment id. A check that
// already has its outcome (the webhook came first, or the page is reloaded) answers it
// again. Another buyer's payment id is store.ErrNotFound.
func (s *Service) FinishCheck(ctx context.Context, buyerID int64, paymentID string) (Added, error) {
	cc, err := s.Store.CardCheck(ctx, buyerID, paymentID)
	if err != nil {
		return Added{}, err
	}
	if cc.Finished() {
		return s.checkOutcome(ctx, cc)
	}
	tx, err := s.Gateway.Lookup(ctx, paymentID)
	if err != nil {
		return Added{}, s.unanswered(ctx, buyerID, paymentID, err)
	}
	if tx.Status == gateway.StatusRequiresAction {
		// Back without finishing the challenge (the browser's back button): nothing is
		// saved until the PSP says the buyer passed it.
		return Added{}, refuse("token", MsgChallengeUnfin, gateway.ResultActionRequired)
	}
	return s.checkAnswered(ctx, buyerID, paymentID, tx)
}
