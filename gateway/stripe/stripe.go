// Package stripe is the gateway.Gateway for Stripe, built on stripe-go: a saved card is
// a PaymentMethod attached to its own Customer, an authorisation (与信) is a PaymentIntent
// in JPY with capture_method=manual confirmed on creation, and EMV 3-D Secure is
// requested on every authorisation (the 割賦販売法 security guidelines make it
// mandatory), its challenge reached through next_action.redirect_to_url.
//
// Our payment id is the PaymentIntent's idempotency key and its metadata["payment_id"],
// so a repeated Authorize answers the first PaymentIntent and Lookup finds it by our id.
//
// The stripe-go major version is pinned to the one whose API version (its release train,
// "dahlia") is the one stripe-mock serves, so the tests exercise the same request and
// response shapes as production.
package stripe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	stripeapi "github.com/stripe/stripe-go/v85"

	"cardpay/gateway"
	"cardpay/pay"
)

// Config configures the adapter.
type Config struct {
	// SecretKey is the Stripe secret API key (sk_live_… / sk_test_…).
	SecretKey string
	// WebhookSecret is the signing secret of our webhook endpoint (whsec_…).
	WebhookSecret string
	// APIBase replaces https://api.stripe.com (stripe-mock in tests); empty for Stripe.
	APIBase string
	// HTTPClient makes the calls; nil gives a client with DefaultTimeout.
	HTTPClient *http.Client
	// Logger receives the adapter's own lines (never more of a card than Card.LogValue);
	// nil discards them.
	Logger *slog.Logger
}

// DefaultTimeout bounds one HTTP attempt when Config.HTTPClient is nil. A call's context
// deadline bounds the whole call, retries included.
const DefaultTimeout = 30 * time.Second

// VerifyAmount is what a card check (AuthorizeRequest.VerifyOnly) authorises and then
// releases at once: Stripe's smallest JPY charge. See Authorize for why a card check is a
// PaymentIntent and not a SetupIntent.
const VerifyAmount int64 = 50

// maxNetworkRetries: stripe-go retries a request that got no answer (a dropped
// connection, a timeout) with the same idempotency key, so a retry never moves money
// twice; one retry rides out a blip without making the buyer wait for several timeouts.
const maxNetworkRetries int64 = 1

// metadata keys on our PaymentIntents (Stripe copies them onto the charge).
const (
	metaPaymentID  = "payment_id"
	metaVerifyOnly = "verify_only"
)

// maxRefs bounds the in-process map from our payment id to the PaymentIntent id.
const maxRefs = 10000

// Gateway is the Stripe adapter. It is safe for concurrent use.
type Gateway struct {
	sc            *stripeapi.Client
	webhookSecret string
	log           *slog.Logger

	// refs remembers which PaymentIntent holds each payment this process has seen.
	// Stripe's search (the fallback) is eventually consistent — a new PaymentIntent may
	// take a moment to become searchable — so the payment the buyer is returning to
	// from a challenge on this instance is found at once without it.
	mu   sync.Mutex
	refs map[string]string
}

var _ gateway.Gateway = (*Gateway)(nil)

// New builds the adapter. A secret key is required; without a webhook secret every
// webhook is refused.
func New(cfg Config) (*Gateway, error) {
	if cfg.SecretKey == "" {
		return nil, errors.New("stripe: a secret key is required")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: DefaultTimeout}
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	bc := &stripeapi.BackendConfig{
		HTTPClient:        hc,
		MaxNetworkRetries: stripeapi.Int64(maxNetworkRetries),
		// stripe-go's own logger prints whole error bodies, which can carry a payment
		// method's holder name and fingerprint: silence it and log what we choose.
		LeveledLogger: &stripeapi.LeveledLogger{Level: stripeapi.LevelNull},
	}
	if cfg.APIBase != "" {
		u, err := url.Parse(cfg.APIBase)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("stripe: API base %q is not an http(s) URL", cfg.APIBase)
		}
		bc.URL = stripeapi.String(strings.TrimRight(cfg.APIBase, "/"))
	}
	backends := &stripeapi.Backends{
		API:         stripeapi.GetBackendWithConfig(stripeapi.APIBackend, bc),
		Connect:     stripeapi.GetBackendWithConfig(stripeapi.ConnectBackend, bc),
		Uploads:     stripeapi.GetBackendWithConfig(stripeapi.UploadsBackend, bc),
		MeterEvents: stripeapi.GetBackendWithConfig(stripeapi.MeterEventsBackend, bc),
	}
	return &Gateway{
		sc:            stripeapi.NewClient(cfg.SecretKey, stripeapi.WithBackends(backends)),
		webhookSecret: cfg.WebhookSecret,
		log:           logger,
		refs:          map[string]string{},
	}, nil
}

// Name implements gateway.Gateway.
func (g *Gateway) Name() string { return "stripe" }

// SaveCard turns a Stripe.js card token into a PaymentMethod attached to a new Customer:
// Stripe lets a PaymentMethod that belongs to no Customer be used only once, and a saved
// card is charged again and again. A token is single use: saving it twice is
// ErrBadToken, so there is deliberately no idempotency key derived from the token
// (stripe-go's own key still covers its retries within the call).
//
// The brand is reported as it is (AMEX, DINERS, …); refusing brands we do not accept is
// the service's decision (pay.CardBrand.Accepted), as it is for the sandbox.
func (g *Gateway) SaveCard(ctx context.Context, token string) (gateway.Card, error) {
	if token == "" {
		return gateway.Card{}, gateway.ErrBadToken
	}
	pmp := &stripeapi.PaymentMethodCreateParams{
		Type: stripeapi.String(string(stripeapi.PaymentMethodTypeCard)),
		Card: &stripeapi.PaymentMethodCreateCardParams{Token: stripeapi.String(token)},
	}
	pm, err := g.sc.V1PaymentMethods.Create(ctx, pmp)
	if err != nil {
		return gateway.Card{}, tokenErr(err)
	}
	if pm.Card == nil {
		return gateway.Card{}, fmt.Errorf("stripe: payment method %s is not a card", pm.ID)
	}
	cp := &stripeapi.CustomerCreateParams{PaymentMethod: stripeapi.String(pm.ID)}
	if _, err := g.sc.V1Customers.Create(ctx, cp); err != nil {
		return gateway.Card{}, tokenErr(err)
	}
	card := cardOf(pm)
	g.log.InfoContext(ctx, "stripe: card saved", slog.Any("card", card))
	return card, nil
}

// Authorize creates and confirms a PaymentIntent (JPY, capture_method=manual, 3-D Secure
// requested) with our payment id as the idempotency key and in its metadata.
//
// A card check (VerifyOnly) is a PaymentIntent for VerifyAmount that is cancelled as
// soon as it is authorised, rather than a SetupIntent: Stripe cannot search SetupIntents,
// so a card check whose answer was lost (a timeout, or a buyer returning from a challenge
// to another instance) could not be found by our id, while a PaymentIntent is found
// like any payment. The price is a ¥50 hold that is released at once. The transaction
// reports an amount of 0 and status authorised when the card passed.
func (g *Gateway) Authorize(ctx context.Context, r gateway.AuthorizeRequest) (gateway.Transaction, error) {
	switch {
	case r.PaymentID == "":
		return gateway.Transaction{}, errors.New("stripe: authorize without a payment id")
	case r.CardRef == "":
		return gateway.Transaction{}, errors.New("stripe: authorize without a card")
	case !r.VerifyOnly && r.Amount <= 0:
		return gateway.Transaction{}, fmt.Errorf("stripe: authorize %d yen", r.Amount)
	}
	// Seen here before: answer the PaymentIntent as it is now. Stripe would replay the
	// first response for the same idempotency key, which is stale after a challenge.
	if id, ok := g.ref(r.PaymentID); ok {
		return g.fetch(ctx, id)
	}
	pm, err := g.sc.V1PaymentMethods.Retrieve(ctx, r.CardRef, nil)
	if err != nil {
		return gateway.Transaction{}, apiErr(err)
	}
	amount := r.Amount
	if r.VerifyOnly {
		amount = VerifyAmount
	}
	p := &stripeapi.PaymentIntentCreateParams{
		Amount:             stripeapi.Int64(amount),
		Currency:           stripeapi.String(string(stripeapi.CurrencyJPY)),
		CaptureMethod:      stripeapi.String(string(stripeapi.PaymentIntentCaptureMethodManual)),
		Confirm:            stripeapi.Bool(true),
		PaymentMethod:      stripeapi.String(pm.ID),
		PaymentMethodTypes: []*string{stripeapi.String("card")},
		ReturnURL:          stripeapi.String(returnURL(r.ReturnURL, r.PaymentID)),
		Metadata:           map[string]string{metaPaymentID: r.PaymentID},
		PaymentMethodOptions: &stripeapi.PaymentIntentCreatePaymentMethodOptionsParams{
			Card: &stripeapi.PaymentIntentCreatePaymentMethodOptionsCardParams{
				// "any": ask for EMV 3-D Secure whenever the card supports it, not only
				// when Radar or the issuer requires it; the issuer may still approve
				// frictionlessly.
				RequestThreeDSecure: stripeapi.String(string(stripeapi.PaymentIntentPaymentMethodOptionsCardRequestThreeDSecureAny)),
			},
		},
	}
	if pm.Customer != nil && pm.Customer.ID != "" {
		p.Customer = stripeapi.String(pm.Customer.ID)
	}
	if r.VerifyOnly {
		p.Metadata[metaVerifyOnly] = "true"
	}
	p.AddExpand("latest_charge")
	p.AddExpand("payment_method")
	p.SetIdempotencyKey(r.PaymentID)
	pi, err := g.sc.V1PaymentIntents.Create(ctx, p)
	if err != nil {
		// A refused card is an HTTP 402 whose body carries the PaymentIntent, now
		// requires_payment_method with the decline in last_payment_error.
		var se *stripeapi.Error
		if !errors.As(err, &se) || se.PaymentIntent == nil || se.PaymentIntent.ID == "" {
			return gateway.Transaction{}, apiErr(err)
		}
		pi = se.PaymentIntent
	}
	g.remember(r.PaymentID, pi.ID)
	if pi.LastResponse != nil && pi.LastResponse.Header.Get("Idempotent-Replayed") == "true" {
		return g.fetch(ctx, pi.ID)
	}
	tx, err := g.settle(ctx, pi)
	if err != nil {
		return gateway.Transaction{}, err
	}
	if tx.Card.Ref == "" {
		tx.Card = cardOf(pm)
	}
	g.log.InfoContext(ctx, "stripe: authorize", slog.String("payment_id", r.PaymentID),
		slog.String("status", string(tx.Status)), slog.String("result", string(tx.ResultCode)), slog.Any("card", tx.Card))
	return tx, nil
}

// Capture implements gateway.Gateway with amount_to_capture; Stripe releases the rest of
// the authorisation.
func (g *Gateway) Capture(ctx context.Context, paymentID string, amount int64) (gateway.Transaction, error) {
	pi, err := g.current(ctx, paymentID)
	if err != nil {
		return gateway.Transaction{}, err
	}
	if isVerify(pi) || pi.Status != stripeapi.PaymentIntentStatusRequiresCapture || amount <= 0 || amount > pi.AmountCapturable {
		return gateway.Transaction{}, fmt.Errorf("%w: capture %d yen of a %s payment intent (capturable %d)",
			gateway.ErrInvalidState, amount, pi.Status, pi.AmountCapturable)
	}
	p := &stripeapi.PaymentIntentCaptureParams{AmountToCapture: stripeapi.Int64(amount)}
	p.AddExpand("latest_charge")
	p.AddExpand("payment_method")
	pi, err = g.sc.V1PaymentIntents.Capture(ctx, pi.ID, p)
	if err != nil {
		return gateway.Transaction{}, apiErr(err)
	}
	return txOf(pi)
}

// Void implements gateway.Gateway by cancelling the PaymentIntent.
func (g *Gateway) Void(ctx context.Context, paymentID string) (gateway.Transaction, error) {
	pi, err := g.current(ctx, paymentID)
	if err != nil {
		return gateway.Transaction{}, err
	}
	if isVerify(pi) || pi.Status != stripeapi.PaymentIntentStatusRequiresCapture {
		return gateway.Transaction{}, fmt.Errorf("%w: void a %s payment intent", gateway.ErrInvalidState, pi.Status)
	}
	return g.cancel(ctx, pi.ID)
}

// Refund implements gateway.Gateway: a Refund of amount against the PaymentIntent, whole
// or part, as often as something captured is left.
func (g *Gateway) Refund(ctx context.Context, paymentID string, amount int64) (gateway.Transaction, error) {
	pi, err := g.current(ctx, paymentID)
	if err != nil {
		return gateway.Transaction{}, err
	}
	var refunded int64
	if pi.LatestCharge != nil {
		refunded = pi.LatestCharge.AmountRefunded
	}
	if pi.Status != stripeapi.PaymentIntentStatusSucceeded || amount <= 0 || amount > pi.AmountReceived-refunded {
		return gateway.Transaction{}, fmt.Errorf("%w: refund %d yen of a %s payment intent (captured %d, refunded %d)",
			gateway.ErrInvalidState, amount, pi.Status, pi.AmountReceived, refunded)
	}
	p := &stripeapi.RefundCreateParams{
		PaymentIntent: stripeapi.String(pi.ID),
		Amount:        stripeapi.Int64(amount),
		Metadata:      map[string]string{metaPaymentID: paymentID},
	}
	if _, err := g.sc.V1Refunds.Create(ctx, p); err != nil {
		return gateway.Transaction{}, apiErr(err)
	}
	return g.fetch(ctx, pi.ID)
}

// Lookup implements gateway.Gateway. It finds the PaymentIntent by our id — from this
// process's memory, else with Stripe's search on metadata["payment_id"] — and reads it
// afresh. A card check found authorised is released here, as Authorize would have.
//
// Stripe's search lags writes by up to about a minute, so a payment created moments ago
// on another instance may still answer ErrNotFound; retrying Authorize with the same
// payment id is then safe, since the idempotency key makes Stripe answer the original.
func (g *Gateway) Lookup(ctx context.Context, paymentID string) (gateway.Transaction, error) {
	id, err := g.resolve(ctx, paymentID)
	if err != nil {
		return gateway.Transaction{}, err
	}
	return g.fetch(ctx, id)
}

// fetch reads a PaymentIntent with what the Transaction needs and settles a card check.
func (g *Gateway) fetch(ctx context.Context, id string) (gateway.Transaction, error) {
	pi, err := g.retrieve(ctx, id)
	if err != nil {
		return gateway.Transaction{}, err
	}
	return g.settle(ctx, pi)
}

func (g *Gateway) retrieve(ctx context.Context, id string) (*stripeapi.PaymentIntent, error) {
	p := &stripeapi.PaymentIntentRetrieveParams{}
	p.AddExpand("latest_charge")
	p.AddExpand("payment_method")
	pi, err := g.sc.V1PaymentIntents.Retrieve(ctx, id, p)
	if err != nil {
		return nil, apiErr(err)
	}
	return pi, nil
}

// current is the PaymentIntent for our payment id as Stripe has it now.
func (g *Gateway) current(ctx context.Context, paymentID string) (*stripeapi.PaymentIntent, error) {
	id, err := g.resolve(ctx, paymentID)
	if err != nil {
		return nil, err
	}
	return g.retrieve(ctx, id)
}

// settle maps a PaymentIntent and releases a card check's hold once it is authorised.
// When the release fails the card has still passed: the answer stays authorised, the
// next Lookup tries again, and Stripe releases the hold itself after 7 days at worst.
func (g *Gateway) settle(ctx context.Context, pi *stripeapi.PaymentIntent) (gateway.Transaction, error) {
	if isVerify(pi) && pi.Status == stripeapi.PaymentIntentStatusRequiresCapture {
		tx, err := g.cancel(ctx, pi.ID)
		if err == nil {
			return tx, nil
		}
		g.log.WarnContext(ctx, "stripe: card check authorised but its hold was not released",
			slog.String("payment_id", pi.Metadata[metaPaymentID]), slog.String("error", err.Error()))
	}
	return txOf(pi)
}

func (g *Gateway) cancel(ctx context.Context, id string) (gateway.Transaction, error) {
	p := &stripeapi.PaymentIntentCancelParams{}
	p.AddExpand("latest_charge")
	p.AddExpand("payment_method")
	pi, err := g.sc.V1PaymentIntents.Cancel(ctx, id, p)
	if err != nil {
		return gateway.Transaction{}, apiErr(err)
	}
	return txOf(pi)
}

// resolve finds the PaymentIntent id for our payment id.
func (g *Gateway) resolve(ctx context.Context, paymentID string) (string, error) {
	if paymentID == "" {
		return "", gateway.ErrNotFound
	}
	if id, ok := g.ref(paymentID); ok {
		return id, nil
	}
	p := &stripeapi.PaymentIntentSearchParams{}
	p.Query = fmt.Sprintf("metadata['%s']:'%s'", metaPaymentID, searchQuote(paymentID))
	p.Limit = stripeapi.Int64(10)
	for pi, err := range g.sc.V1PaymentIntents.Search(ctx, p).All(ctx) {
		if err != nil {
			return "", apiErr(err)
		}
		// The search language matches exactly on metadata, but check anyway: a wrong
		// PaymentIntent here would capture or refund someone else's payment.
		if pi.Metadata[metaPaymentID] == paymentID {
			g.remember(paymentID, pi.ID)
			return pi.ID, nil
		}
	}
	return "", gateway.ErrNotFound
}

// searchQuote escapes a value for a single-quoted string in Stripe's search language.
func searchQuote(s string) string {
	return strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s)
}

func (g *Gateway) ref(paymentID string) (string, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	id, ok := g.refs[paymentID]
	return id, ok
}

func (g *Gateway) remember(paymentID, id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.refs) >= maxRefs {
		// Forgetting costs a search, never correctness.
		clear(g.refs)
	}
	g.refs[paymentID] = id
}

// returnURL is where Stripe sends the buyer after a challenge, carrying our payment id
// as the sandbox does, so the page knows which payment to look up. Stripe adds its own
// payment_intent parameters, which we do not use.
func returnURL(base, paymentID string) string {
	u, err := url.Parse(base)
	if err != nil || base == "" {
		return base
	}
	q := u.Query()
	if q.Get("payment_id") == "" {
		q.Set("payment_id", paymentID)
		u.RawQuery = q.Encode()
	}
	return u.String()
}

func isVerify(pi *stripeapi.PaymentIntent) bool { return pi.Metadata[metaVerifyOnly] == "true" }

// cardOf keeps what we may keep of a card: never the number, which Stripe never sends.
func cardOf(pm *stripeapi.PaymentMethod) gateway.Card {
	if pm == nil || pm.Card == nil {
		return gateway.Card{}
	}
	c := gateway.Card{
		Ref:         pm.ID,
		Brand:       brandOf(pm.Card.Brand),
		Last4:       pm.Card.Last4,
		ExpMonth:    int(pm.Card.ExpMonth),
		ExpYear:     int(pm.Card.ExpYear),
		Fingerprint: pm.Card.Fingerprint,
	}
	if pm.BillingDetails != nil {
		c.Holder = pm.BillingDetails.Name
	}
	return c
}

// brandOf maps Stripe's brand names to ours; a brand we have no code for keeps Stripe's
// name in capitals, which pay.CardBrand.Accepted refuses.
func brandOf(b stripeapi.PaymentMethodCardBrand) pay.CardBrand {
	switch b {
	case stripeapi.PaymentMethodCardBrandVisa:
		return pay.BrandVISA
	case stripeapi.PaymentMethodCardBrandJCB:
		return pay.BrandJCB
	case stripeapi.PaymentMethodCardBrandMastercard:
		return pay.BrandMASTER
	case stripeapi.PaymentMethodCardBrandAmex:
		return pay.BrandAMEX
	case stripeapi.PaymentMethodCardBrandDiners:
		return pay.BrandDINERS
	}
	return pay.CardBrand(strings.ToUpper(string(b)))
}
