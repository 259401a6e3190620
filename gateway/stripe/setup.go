package stripe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	stripeapi "github.com/stripe/stripe-go/v85"

	"cardpay/gateway"
)

// Card setup (issue 27): the card is typed into Stripe's own fields or page, never ours.
//
//   - Fields (Hosted=false): a SetupIntent for a new Customer. Its client secret goes into
//     our page, where Stripe.js mounts the Payment Element and confirms the SetupIntent
//     with the card; Stripe checks the card with the issuer (3-D Secure when asked) and
//     attaches the PaymentMethod to the Customer. The setup's id is the SetupIntent's
//     (seti_…).
//   - Hosted page (Hosted=true, for buyers without JavaScript): a Checkout Session in
//     setup mode for a new Customer; Stripe sends the buyer back to
//     ReturnURL?setup=<cs_…>. The setup's id is the Checkout Session's (cs_…); Checkout
//     creates the SetupIntent itself when the buyer submits a card.
//
// Either way the saved card is a PaymentMethod attached to its own Customer, as SaveCard
// makes it, so Authorize treats both alike.
//
// A setup the buyer abandons leaves an empty Customer behind (the add-card page starts a
// setup on every visit, and the Customer has to exist before the card is entered); the
// metadata marks where such Customers came from.

// metaPurpose marks the Customers, SetupIntents and Checkout Sessions card setup
// creates, so that they can be told apart in the Dashboard.
const (
	metaPurpose  = "purpose"
	purposeSetup = "card_setup"
)

// id prefixes of the two kinds of setup.
const (
	prefixSetupIntent = "seti_"
	prefixCheckout    = "cs_"
)

// checkoutSessionIDTemplate is Stripe's placeholder in a Checkout success URL, replaced
// by the session's id when it redirects. It must reach Stripe with its braces as they
// are, so the URL is built by hand, not with url.Values (which would escape them).
const checkoutSessionIDTemplate = "{CHECKOUT_SESSION_ID}"

// StartCardSetup implements gateway.Gateway: a Customer, then a SetupIntent for Stripe.js
// (ID seti_…, ClientSecret) or a Checkout Session in setup mode (ID cs_…, RedirectURL).
func (g *Gateway) StartCardSetup(ctx context.Context, r gateway.CardSetupRequest) (gateway.CardSetup, error) {
	if r.ReturnURL == "" {
		return gateway.CardSetup{}, errors.New("stripe: card setup without a return URL")
	}
	meta := map[string]string{metaPurpose: purposeSetup}
	cus, err := g.sc.V1Customers.Create(ctx, &stripeapi.CustomerCreateParams{Metadata: meta})
	if err != nil {
		return gateway.CardSetup{}, apiErr(err)
	}
	var s gateway.CardSetup
	if r.Hosted {
		s, err = g.startCheckout(ctx, cus.ID, r.ReturnURL, meta)
	} else {
		s, err = g.startSetupIntent(ctx, cus.ID, meta)
	}
	if err != nil {
		return gateway.CardSetup{}, err
	}
	// Not the client secret: it lets whoever holds it confirm the setup.
	g.log.InfoContext(ctx, "stripe: card setup started", slog.String("setup", s.ID), slog.Bool("hosted", r.Hosted))
	return s, nil
}

func (g *Gateway) startSetupIntent(ctx context.Context, customer string, meta map[string]string) (gateway.CardSetup, error) {
	p := &stripeapi.SetupIntentCreateParams{
		Customer:           stripeapi.String(customer),
		PaymentMethodTypes: []*string{stripeapi.String(string(stripeapi.PaymentMethodTypeCard))},
		// The card is charged later without the buyer present (every order is
		// authorised from the saved card), which is what off_session sets it up for.
		Usage:    stripeapi.String(string(stripeapi.SetupIntentUsageOffSession)),
		Metadata: meta,
		PaymentMethodOptions: &stripeapi.SetupIntentCreatePaymentMethodOptionsParams{
			Card: &stripeapi.SetupIntentCreatePaymentMethodOptionsCardParams{
				// As on every authorisation: EMV 3-D Secure whenever the card supports it
				// (割賦販売法 security guidelines), so the card is verified with the issuer
				// when it is registered.
				RequestThreeDSecure: stripeapi.String(string(stripeapi.SetupIntentPaymentMethodOptionsCardRequestThreeDSecureAny)),
			},
		},
	}
	si, err := g.sc.V1SetupIntents.Create(ctx, p)
	if err != nil {
		return gateway.CardSetup{}, apiErr(err)
	}
	if si.ClientSecret == "" {
		return gateway.CardSetup{}, fmt.Errorf("stripe: setup intent %s came without a client secret", si.ID)
	}
	return gateway.CardSetup{ID: si.ID, ClientSecret: si.ClientSecret}, nil
}

func (g *Gateway) startCheckout(ctx context.Context, customer, returnURL string, meta map[string]string) (gateway.CardSetup, error) {
	p := &stripeapi.CheckoutSessionCreateParams{
		Mode:     stripeapi.String(string(stripeapi.CheckoutSessionModeSetup)),
		Customer: stripeapi.String(customer),
		// Setup mode with explicit payment method types needs the currency the card will
		// be charged in.
		Currency:           stripeapi.String(string(stripeapi.CurrencyJPY)),
		PaymentMethodTypes: []*string{stripeapi.String(string(stripeapi.PaymentMethodTypeCard))},
		SuccessURL:         stripeapi.String(withParam(returnURL, "setup="+checkoutSessionIDTemplate)),
		// The same cancel marker as the sandbox's hosted page, so our return handler
		// treats both alike.
		CancelURL: stripeapi.String(withParam(returnURL, "hosted_cancel=1")),
		Locale:    stripeapi.String("ja"),
		Metadata:  meta,
		// The SetupIntent Checkout creates carries the same marker as ours.
		SetupIntentData: &stripeapi.CheckoutSessionCreateSetupIntentDataParams{Metadata: meta},
	}
	cs, err := g.sc.V1CheckoutSessions.Create(ctx, p)
	if err != nil {
		return gateway.CardSetup{}, apiErr(err)
	}
	if cs.URL == "" {
		return gateway.CardSetup{}, fmt.Errorf("stripe: checkout session %s came without a URL", cs.ID)
	}
	return gateway.CardSetup{ID: cs.ID, RedirectURL: cs.URL}, nil
}

// withParam appends a query parameter (already encoded) to base, before any fragment.
func withParam(base, param string) string {
	frag := ""
	if i := strings.IndexByte(base, '#'); i >= 0 {
		base, frag = base[:i], base[i:]
	}
	sep := "?"
	switch {
	case strings.HasSuffix(base, "?") || strings.HasSuffix(base, "&"):
		sep = ""
	case strings.Contains(base, "?"):
		sep = "&"
	}
	return base + sep + param + frag
}

// FinishCardSetup implements gateway.Gateway. A cs_… id reads the Checkout Session and,
// once it is complete, its SetupIntent; a seti_… id reads the SetupIntent. Reading never
// changes anything at Stripe, so finishing twice answers the same card.
func (g *Gateway) FinishCardSetup(ctx context.Context, setupID string) (gateway.CardSetupResult, error) {
	var (
		res gateway.CardSetupResult
		err error
	)
	switch {
	case strings.HasPrefix(setupID, prefixCheckout):
		res, err = g.finishCheckout(ctx, setupID)
	case strings.HasPrefix(setupID, prefixSetupIntent):
		res, err = g.finishSetupIntent(ctx, setupID)
	default:
		// Not an id we hand out (an old sandbox id, a tampered form): Stripe would
		// answer resource_missing, so do not ask it.
		return gateway.CardSetupResult{}, fmt.Errorf("%w: card setup %q is not a Stripe setup", gateway.ErrNotFound, setupID)
	}
	if err != nil {
		return gateway.CardSetupResult{}, err
	}
	attrs := []any{slog.String("setup", setupID), slog.String("status", string(res.Status))}
	if res.ResultCode != "" {
		attrs = append(attrs, slog.String("result", string(res.ResultCode)))
	}
	if res.Status == gateway.SetupSucceeded {
		attrs = append(attrs, slog.Any("card", res.Card))
	}
	g.log.InfoContext(ctx, "stripe: card setup read", attrs...)
	return res, nil
}

func (g *Gateway) finishSetupIntent(ctx context.Context, id string) (gateway.CardSetupResult, error) {
	p := &stripeapi.SetupIntentRetrieveParams{}
	p.AddExpand("payment_method")
	si, err := g.sc.V1SetupIntents.Retrieve(ctx, id, p)
	if err != nil {
		return gateway.CardSetupResult{}, apiErr(err)
	}
	return setupResultOf(si)
}

// finishCheckout maps a Checkout Session in setup mode:
//
//	open     → open: the buyer has not submitted a card that passed. Checkout shows a
//	           decline or a 3-D Secure challenge on its own page and keeps the session
//	           open for another try, so its SetupIntent's state is not the setup's
//	           outcome yet.
//	complete → its SetupIntent, mapped by setupResultOf (succeeded)
//	expired  → ErrBadToken: Stripe expires a session after 24 hours, or when we expire it
func (g *Gateway) finishCheckout(ctx context.Context, id string) (gateway.CardSetupResult, error) {
	p := &stripeapi.CheckoutSessionRetrieveParams{}
	p.AddExpand("setup_intent.payment_method")
	cs, err := g.sc.V1CheckoutSessions.Retrieve(ctx, id, p)
	if err != nil {
		return gateway.CardSetupResult{}, apiErr(err)
	}
	switch cs.Status {
	case stripeapi.CheckoutSessionStatusExpired:
		return gateway.CardSetupResult{}, fmt.Errorf("%w: checkout session %s expired", gateway.ErrBadToken, cs.ID)
	case stripeapi.CheckoutSessionStatusOpen:
		return gateway.CardSetupResult{Status: gateway.SetupOpen}, nil
	case stripeapi.CheckoutSessionStatusComplete:
		switch {
		case cs.SetupIntent == nil || cs.SetupIntent.ID == "":
			// Checkout creates the SetupIntent when the buyer submits; a complete
			// session without one is not something Stripe answers, but it holds no card.
			return gateway.CardSetupResult{Status: gateway.SetupOpen}, nil
		case cs.SetupIntent.Status == "":
			// Only its id came back (not expanded): read it.
			return g.finishSetupIntent(ctx, cs.SetupIntent.ID)
		}
		return setupResultOf(cs.SetupIntent)
	}
	return gateway.CardSetupResult{}, fmt.Errorf("stripe: checkout session %s has unknown status %q", cs.ID, cs.Status)
}

// setupResultOf maps a SetupIntent:
//
//	succeeded                                      → succeeded, the card (its PaymentMethod,
//	                                                 attached to the setup's Customer), verified
//	requires_action                                → requires action (3-D Secure in Stripe.js)
//	requires_payment_method with last_setup_error  → declined, the error mapped as for a
//	                                                 payment (resultOfError)
//	requires_payment_method without one            → open: no card entered yet
//	requires_confirmation, processing              → open: not decided yet, read again
//	canceled                                       → ErrBadToken: it can never take a card
func setupResultOf(si *stripeapi.SetupIntent) (gateway.CardSetupResult, error) {
	if si == nil {
		return gateway.CardSetupResult{}, errors.New("stripe: no setup intent")
	}
	switch si.Status {
	case stripeapi.SetupIntentStatusSucceeded:
		card := cardOf(si.PaymentMethod)
		if card.Ref == "" {
			return gateway.CardSetupResult{}, fmt.Errorf("stripe: setup intent %s succeeded without a card payment method", si.ID)
		}
		// Stripe confirmed the SetupIntent with the issuer (and 3-D Secure when asked):
		// no zero-amount authorisation is needed on top.
		return gateway.CardSetupResult{Status: gateway.SetupSucceeded, Card: card, Verified: true}, nil
	case stripeapi.SetupIntentStatusRequiresAction:
		return gateway.CardSetupResult{Status: gateway.SetupRequiresAction}, nil
	case stripeapi.SetupIntentStatusRequiresPaymentMethod:
		if si.LastSetupError != nil {
			return gateway.CardSetupResult{Status: gateway.SetupDeclined, ResultCode: resultOfError(si.LastSetupError)}, nil
		}
		return gateway.CardSetupResult{Status: gateway.SetupOpen}, nil
	case stripeapi.SetupIntentStatusRequiresConfirmation, stripeapi.SetupIntentStatusProcessing:
		return gateway.CardSetupResult{Status: gateway.SetupOpen}, nil
	case stripeapi.SetupIntentStatusCanceled:
		return gateway.CardSetupResult{}, fmt.Errorf("%w: setup intent %s was canceled", gateway.ErrBadToken, si.ID)
	}
	return gateway.CardSetupResult{}, fmt.Errorf("stripe: setup intent %s has unknown status %q", si.ID, si.Status)
}
