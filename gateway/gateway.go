// Package gateway is the card layer's contract with a payment service provider (PSP):
// exchanging a one-time card token for a reusable card, authorising an amount in yen
// (with EMV 3-D Secure when the PSP asks), capture, void, refund, looking a payment up
// by our own id, and checking a webhook's signature. The sandbox PSP (gateway/sandbox)
// and the Stripe adapter (gateway/stripe) implement it; gateway/gatewaytest is the one
// contract table both pass.
//
// Card numbers and security codes never reach this interface: the browser sends them to
// the PSP, which answers with a token. Nothing here carries more of a card than its
// brand, last 4 digits, expiry, holder name and the PSP's fingerprint, and only those
// may appear in a log line (Card.LogValue).
package gateway

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"cardpay/pay"
)

// Gateway is a PSP as the service uses it. Every call that moves money carries our own
// payment id as its idempotency key: calling Authorize twice with one PaymentID answers
// the first authorisation again and never charges twice.
type Gateway interface {
	// Name is "sandbox" or "stripe", for logs and the admin.
	Name() string
	// SaveCard turns a one-time token (from the PSP's tokenisation endpoint or its hosted
	// card page) into a reusable card reference with the details we may keep.
	SaveCard(ctx context.Context, token string) (Card, error)
	// Authorize reserves Amount yen on a saved card (与信). The answer is authorised,
	// requires action (send the buyer to ActionURL for the 3-D Secure challenge; the PSP
	// sends them back to ReturnURL) or declined with a result code.
	Authorize(ctx context.Context, r AuthorizeRequest) (Transaction, error)
	// Capture takes amount (at most the authorised amount) of an authorised payment.
	Capture(ctx context.Context, paymentID string, amount int64) (Transaction, error)
	// Void releases an authorisation that was not captured.
	Void(ctx context.Context, paymentID string) (Transaction, error)
	// Refund returns amount (the whole captured amount or a part) of a captured payment.
	Refund(ctx context.Context, paymentID string, amount int64) (Transaction, error)
	// Lookup reads a payment by our id: after a timeout, and after the buyer comes back
	// from a challenge. ErrNotFound when the PSP never saw it.
	Lookup(ctx context.Context, paymentID string) (Transaction, error)
	// VerifyWebhook checks a webhook's signature (HMAC-SHA256 over the timestamp and the
	// body) and its age against the replay window, and decodes it.
	VerifyWebhook(header http.Header, body []byte, now time.Time) (Event, error)

	// StartCardSetup opens a card setup: the PSP's own fields (embedded in our page, on the
	// PSP's origin) or its hosted card page (r.Hosted, for buyers without JavaScript) take
	// the card, so that no card number or security code passes through our page's script
	// or our server. Our server keeps the setup's ID with the buyer's session and later
	// reads the outcome with FinishCardSetup.
	StartCardSetup(ctx context.Context, r CardSetupRequest) (CardSetup, error)
	// FinishCardSetup reads a setup's outcome and, once the buyer has entered a card,
	// answers it saved as a reusable card (SetupSucceeded). Calling it again answers the
	// same card. An unknown setup is ErrNotFound; one that expired or was cancelled
	// ErrBadToken.
	FinishCardSetup(ctx context.Context, setupID string) (CardSetupResult, error)
}

// CardSetupRequest opens a card setup.
type CardSetupRequest struct {
	// ReturnURL is where the PSP sends the buyer back from its hosted page (or from a
	// 3-D Secure challenge during the setup). The PSP adds the setup's id: ?setup=<id>
	// (the sandbox, Stripe Checkout through {CHECKOUT_SESSION_ID}) or
	// ?setup_intent=<id> (Stripe.js after a redirect).
	ReturnURL string
	// Hosted asks for the PSP's hosted page (RedirectURL) instead of embeddable fields.
	Hosted bool
}

// CardSetup is an open card setup.
type CardSetup struct {
	// ID is the PSP's id of the setup (the sandbox's setup_…, Stripe's seti_… or, hosted,
	// the Checkout Session's cs_…).
	ID string
	// FieldsURL is the PSP's card-fields page, for an iframe on our page (the sandbox).
	FieldsURL string
	// ClientSecret is what the PSP's script needs to confirm the setup in the browser
	// (Stripe.js). It is the buyer's, not ours: it goes into the page, never into a log.
	ClientSecret string
	// RedirectURL is the PSP's hosted card page (CardSetupRequest.Hosted).
	RedirectURL string
}

// SetupStatus is where a card setup stands.
type SetupStatus string

const (
	// SetupOpen: no card has been entered yet (or the buyer went back from the page).
	SetupOpen SetupStatus = "open"
	// SetupRequiresAction: the issuer asked for a 3-D Secure challenge that the buyer
	// has not passed (yet).
	SetupRequiresAction SetupStatus = "requires_action"
	// SetupDeclined: the card was refused during the setup (ResultCode).
	SetupDeclined SetupStatus = "declined"
	// SetupSucceeded: the card is saved (CardSetupResult.Card).
	SetupSucceeded SetupStatus = "succeeded"
)

// CardSetupResult is a setup's outcome.
type CardSetupResult struct {
	Status SetupStatus
	// Card is the saved card (SetupSucceeded).
	Card Card
	// Verified: the PSP checked the card with the issuer as part of the setup (with
	// 3-D Secure when the issuer asked: Stripe's SetupIntent), so no zero-amount
	// authorisation is needed. The sandbox's setups only tokenise: the service verifies
	// the card with Authorize(VerifyOnly) as it does for a token.
	Verified bool
	// ResultCode says why the card was declined (SetupDeclined).
	ResultCode ResultCode
}

// AuthorizeRequest asks for an authorisation.
type AuthorizeRequest struct {
	// PaymentID is our id for the payment (or the card check), the idempotency key.
	PaymentID string
	// CardRef is the PSP's reference of a saved card (Card.Ref).
	CardRef string
	// Amount in yen. Zero with VerifyOnly checks the card without reserving money.
	Amount     int64
	VerifyOnly bool
	// ReturnURL is where the PSP sends the buyer after a 3-D Secure challenge; the PSP
	// adds nothing secret to it, so our page looks the payment up (Lookup).
	ReturnURL string
}

// Status is where a payment stands at the PSP.
type Status string

const (
	StatusAuthorized        Status = "authorized"
	StatusRequiresAction    Status = "requires_action"
	StatusDeclined          Status = "declined"
	StatusCaptured          Status = "captured"
	StatusVoided            Status = "voided"
	StatusRefunded          Status = "refunded"
	StatusPartiallyRefunded Status = "partially_refunded"
	// StatusLapsed: the authorisation was not captured in time and the PSP released it.
	StatusLapsed Status = "lapsed"
)

// Transaction is a payment as the PSP sees it.
type Transaction struct {
	PaymentID string // ours
	PSPRef    string // the PSP's own id
	Status    Status
	Amount    int64 // authorised, yen
	Captured  int64
	Refunded  int64
	// ResultCode is the gateway result code of the last outcome (ResultApproved, a
	// decline, …); ResultMessage gives the buyer's message for it.
	ResultCode ResultCode
	// ActionURL is the 3-D Secure challenge page when Status is StatusRequiresAction.
	ActionURL string
	Card      Card
}

// Card is everything of a card the service may keep or show.
type Card struct {
	// Ref is the PSP's reusable reference (a payment method id).
	Ref      string
	Brand    pay.CardBrand
	Last4    string
	ExpMonth int
	ExpYear  int
	Holder   string
	// Fingerprint is the same for the same card number at one PSP, so a buyer saves a
	// card once.
	Fingerprint string
}

// LogValue keeps log lines to what may be logged about a card.
func (c Card) LogValue() slog.Value {
	return slog.GroupValue(slog.String("ref", c.Ref), slog.String("brand", string(c.Brand)),
		slog.String("last4", c.Last4), slog.Int("exp_month", c.ExpMonth), slog.Int("exp_year", c.ExpYear))
}

// EventType names a webhook.
type EventType string

const (
	EventAuthorized   EventType = "payment.authorized"
	EventDeclined     EventType = "payment.declined"
	EventCaptured     EventType = "payment.captured"
	EventVoided       EventType = "payment.voided"
	EventRefunded     EventType = "payment.refunded"
	EventLapsed       EventType = "payment.lapsed"
	EventActionFailed EventType = "payment.action_failed"
)

// Event is a verified webhook.
type Event struct {
	ID          string // the PSP's event id, unique: a redelivery has the same id
	Type        EventType
	Created     time.Time
	Transaction Transaction
}

var (
	// ErrNotFound: the PSP has no payment (or card token) by that id.
	ErrNotFound = errors.New("gateway: not found")
	// ErrUnavailable: the PSP did not answer in time or answered with a server error.
	// The outcome is unknown: look the payment up before anything else, never retry
	// blindly with a new id.
	ErrUnavailable = errors.New("gateway: PSP unavailable")
	// ErrBadToken: the token is unknown, used or expired.
	ErrBadToken = errors.New("gateway: card token unknown, used or expired")
	// ErrInvalidState: the call does not fit the payment's state (capturing a voided
	// payment, refunding more than was captured).
	ErrInvalidState = errors.New("gateway: payment is not in a state for that")
	// ErrBadSignature: a webhook whose signature does not match, or that is too old.
	ErrBadSignature = errors.New("gateway: webhook signature invalid or outside the replay window")
)

// WebhookTolerance is the replay window: a webhook signed longer ago than this is refused.
const WebhookTolerance = 5 * time.Minute
