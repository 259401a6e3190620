package stripe

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	stripeapi "github.com/stripe/stripe-go/v85"

	"cardpay/gateway"
)

// SignatureHeader is the header Stripe signs its webhooks in.
const SignatureHeader = "Stripe-Signature"

// VerifyWebhook implements gateway.Gateway for Stripe's signing scheme: the header is
// "t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>" (several v1 while a secret is
// being rolled). stripe-go checks the signature; the age is checked here against now
// (stripe-go can only compare with the wall clock), refusing a signature older — or
// further in the future — than gateway.WebhookTolerance.
//
// The event's API version must be of the release train stripe-go was built for, or its
// objects could be misread: that is an error, not a bad signature.
//
// Stripe events become ours:
//
//	payment_intent.amount_capturable_updated → payment.authorized
//	payment_intent.payment_failed            → payment.declined (payment.action_failed when
//	                                           3-D Secure failed)
//	payment_intent.succeeded                 → payment.captured
//	payment_intent.canceled                  → payment.voided (payment.lapsed when Stripe
//	                                           released it after 7 days; payment.authorized
//	                                           for a card check we released)
//	charge.refunded                          → payment.refunded
//
// Any other event, or one about a payment that is not ours (no payment_id), is answered
// with Type "stripe:<type>" and no transaction: acknowledge it and do nothing.
func (g *Gateway) VerifyWebhook(header http.Header, body []byte, now time.Time) (gateway.Event, error) {
	sig := header.Get(SignatureHeader)
	if g.webhookSecret == "" || sig == "" {
		return gateway.Event{}, gateway.ErrBadSignature
	}
	if err := stripeapi.ValidatePayload(body, sig, g.webhookSecret, stripeapi.WithIgnoreTolerance()); err != nil {
		return gateway.Event{}, fmt.Errorf("%w: %v", gateway.ErrBadSignature, err)
	}
	signed, ok := signedAt(sig)
	if !ok {
		return gateway.Event{}, gateway.ErrBadSignature
	}
	if age := now.Sub(signed); age > gateway.WebhookTolerance || age < -gateway.WebhookTolerance {
		return gateway.Event{}, fmt.Errorf("%w: signed %s ago", gateway.ErrBadSignature, age.Round(time.Second))
	}
	ev, err := stripeapi.ConstructEvent(body, sig, g.webhookSecret, stripeapi.WithIgnoreTolerance())
	if err != nil {
		return gateway.Event{}, fmt.Errorf("stripe: webhook event: %w", err)
	}
	return eventOf(ev)
}

// signedAt reads the t= part of a Stripe-Signature header.
func signedAt(sig string) (time.Time, bool) {
	for part := range strings.SplitSeq(sig, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok && k == "t" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(n, 0), true
		}
	}
	return time.Time{}, false
}

func eventOf(ev stripeapi.Event) (gateway.Event, error) {
	out := gateway.Event{ID: ev.ID, Type: gateway.EventType("stripe:" + string(ev.Type)), Created: time.Unix(ev.Created, 0)}
	if ev.Data == nil {
		return out, nil
	}
	switch ev.Type {
	case stripeapi.EventTypePaymentIntentAmountCapturableUpdated, stripeapi.EventTypePaymentIntentPaymentFailed,
		stripeapi.EventTypePaymentIntentSucceeded, stripeapi.EventTypePaymentIntentCanceled:
		var pi stripeapi.PaymentIntent
		if err := json.Unmarshal(ev.Data.Raw, &pi); err != nil {
			return gateway.Event{}, fmt.Errorf("stripe: webhook %s: %w", ev.ID, err)
		}
		if pi.Metadata[metaPaymentID] == "" {
			return out, nil
		}
		tx, err := txOf(&pi)
		if err != nil {
			return gateway.Event{}, fmt.Errorf("stripe: webhook %s: %w", ev.ID, err)
		}
		t, ok := eventTypes[tx.Status]
		if !ok {
			return out, nil
		}
		if tx.Status == gateway.StatusDeclined && tx.ResultCode == gateway.ResultChallengeFailed {
			t = gateway.EventActionFailed
		}
		out.Type, out.Transaction = t, tx
	case stripeapi.EventTypeChargeRefunded:
		var ch stripeapi.Charge
		if err := json.Unmarshal(ev.Data.Raw, &ch); err != nil {
			return gateway.Event{}, fmt.Errorf("stripe: webhook %s: %w", ev.ID, err)
		}
		if ch.Metadata[metaPaymentID] == "" {
			return out, nil
		}
		tx := gateway.Transaction{
			PaymentID:  ch.Metadata[metaPaymentID],
			Amount:     ch.Amount,
			Captured:   ch.AmountCaptured,
			Refunded:   ch.AmountRefunded,
			Status:     gateway.StatusPartiallyRefunded,
			ResultCode: gateway.ResultApproved,
		}
		if ch.PaymentIntent != nil {
			tx.PSPRef = ch.PaymentIntent.ID
		}
		if ch.Refunded || ch.AmountRefunded >= ch.AmountCaptured {
			tx.Status = gateway.StatusRefunded
		}
		out.Type, out.Transaction = gateway.EventRefunded, tx
	}
	return out, nil
}

// eventTypes names the event for the state a PaymentIntent event leaves the payment in.
var eventTypes = map[gateway.Status]gateway.EventType{
	gateway.StatusAuthorized:        gateway.EventAuthorized,
	gateway.StatusDeclined:          gateway.EventDeclined,
	gateway.StatusCaptured:          gateway.EventCaptured,
	gateway.StatusVoided:            gateway.EventVoided,
	gateway.StatusLapsed:            gateway.EventLapsed,
	gateway.StatusRefunded:          gateway.EventRefunded,
	gateway.StatusPartiallyRefunded: gateway.EventRefunded,
}
