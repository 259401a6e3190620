package stripe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"

	stripeapi "github.com/stripe/stripe-go/v85"

	"cardpay/gateway"
)

// txOf maps a PaymentIntent to a Transaction:
//
//	requires_capture                     → authorised (a card check: authorised, amount 0)
//	requires_action                      → requires action, next_action.redirect_to_url.url
//	requires_payment_method              → declined, last_payment_error mapped by resultOf
//	requires_confirmation                → declined G097 (we confirm on creation; it means
//	                                       Stripe stopped half-way)
//	processing                           → ErrUnavailable: not decided yet, look up again
//	succeeded                            → captured, or (partially) refunded
//	canceled after a decline             → declined with that decline's code
//	canceled card check that authorised  → authorised (we released its hold)
//	canceled by Stripe ("automatic")     → lapsed (not captured within 7 days)
//	canceled otherwise                   → voided
func txOf(pi *stripeapi.PaymentIntent) (gateway.Transaction, error) {
	if pi == nil {
		return gateway.Transaction{}, errors.New("stripe: no payment intent")
	}
	verify := isVerify(pi)
	tx := gateway.Transaction{
		PaymentID: pi.Metadata[metaPaymentID],
		PSPRef:    pi.ID,
		Amount:    pi.Amount,
		Captured:  pi.AmountReceived,
	}
	if verify {
		tx.Amount = 0
	}
	// latest_charge is expanded on every call we make; in a webhook it is only an id.
	if pi.LatestCharge != nil {
		tx.Refunded = pi.LatestCharge.AmountRefunded
	}
	if pi.PaymentMethod != nil && pi.PaymentMethod.Card != nil {
		tx.Card = cardOf(pi.PaymentMethod)
	}
	approved := func(s gateway.Status) (gateway.Transaction, error) {
		tx.Status, tx.ResultCode = s, gateway.ResultApproved
		return tx, nil
	}
	declined := func(code gateway.ResultCode) (gateway.Transaction, error) {
		tx.Status, tx.ResultCode = gateway.StatusDeclined, code
		return tx, nil
	}
	switch pi.Status {
	case stripeapi.PaymentIntentStatusRequiresCapture:
		return approved(gateway.StatusAuthorized)
	case stripeapi.PaymentIntentStatusRequiresAction:
		if pi.NextAction == nil || pi.NextAction.RedirectToURL == nil || pi.NextAction.RedirectToURL.URL == "" {
			// Only a redirect can be followed from a server-side confirmation.
			var kind stripeapi.PaymentIntentNextActionType
			if pi.NextAction != nil {
				kind = pi.NextAction.Type
			}
			return gateway.Transaction{}, fmt.Errorf("stripe: payment intent %s requires action %q without a redirect URL", pi.ID, kind)
		}
		tx.Status, tx.ResultCode = gateway.StatusRequiresAction, gateway.ResultActionRequired
		tx.ActionURL = pi.NextAction.RedirectToURL.URL
		return tx, nil
	case stripeapi.PaymentIntentStatusRequiresPaymentMethod:
		return declined(resultOfError(pi.LastPaymentError))
	case stripeapi.PaymentIntentStatusRequiresConfirmation:
		return declined(gateway.ResultProcessorError)
	case stripeapi.PaymentIntentStatusProcessing:
		return gateway.Transaction{}, fmt.Errorf("%w: payment intent %s is still processing", gateway.ErrUnavailable, pi.ID)
	case stripeapi.PaymentIntentStatusSucceeded:
		switch {
		case tx.Refunded > 0 && tx.Refunded >= tx.Captured:
			return approved(gateway.StatusRefunded)
		case tx.Refunded > 0:
			return approved(gateway.StatusPartiallyRefunded)
		}
		return approved(gateway.StatusCaptured)
	case stripeapi.PaymentIntentStatusCanceled:
		switch {
		case pi.LastPaymentError != nil:
			return declined(resultOfError(pi.LastPaymentError))
		case verify && pi.LatestCharge != nil:
			// A charge without a payment error is an authorisation that succeeded.
			return approved(gateway.StatusAuthorized)
		case pi.CancellationReason == stripeapi.PaymentIntentCancellationReasonAutomatic:
			return approved(gateway.StatusLapsed)
		}
		return approved(gateway.StatusVoided)
	}
	return gateway.Transaction{}, fmt.Errorf("stripe: payment intent %s has unknown status %q", pi.ID, pi.Status)
}

// declineCodes maps Stripe's decline_code (the issuer's reason) and the card error codes
// Stripe uses without one to our result codes. Anything else the issuer refuses is
// ResultDeclined.
var declineCodes = map[string]gateway.ResultCode{
	"insufficient_funds":                    gateway.ResultInsufficientFunds,
	"lost_card":                             gateway.ResultCardRestricted,
	"stolen_card":                           gateway.ResultCardRestricted,
	"expired_card":                          gateway.ResultExpiredCard,
	"incorrect_cvc":                         gateway.ResultSecurityCodeWrong,
	"invalid_cvc":                           gateway.ResultSecurityCodeWrong,
	"card_velocity_exceeded":                gateway.ResultOverLimit,
	"processing_error":                      gateway.ResultProcessorError,
	"authentication_required":               gateway.ResultChallengeFailed,
	"payment_intent_authentication_failure": gateway.ResultChallengeFailed,
	"incorrect_number":                      gateway.ResultCardNumberInvalid,
	"invalid_number":                        gateway.ResultCardNumberInvalid,
	// A failed 3-D Secure while setting up a card (a SetupIntent) is a failed challenge too.
	"setup_intent_authentication_failure": gateway.ResultChallengeFailed,
}

// resultOf maps a card error's code and decline_code. The decline_code is the issuer's
// own reason and wins; the code speaks when there is none (Stripe sends expired_card or
// incorrect_cvc as the code alone) or when it is only "card_declined".
func resultOf(code, declineCode string) gateway.ResultCode {
	if r, ok := declineCodes[declineCode]; ok {
		return r
	}
	if r, ok := declineCodes[code]; ok {
		return r
	}
	return gateway.ResultDeclined
}

func resultOfError(e *stripeapi.Error) gateway.ResultCode {
	if e == nil {
		return gateway.ResultDeclined
	}
	return resultOf(string(e.Code), string(e.DeclineCode))
}

// invalidState are the codes with which Stripe refuses a call that does not fit the
// payment's state.
var invalidState = map[stripeapi.ErrorCode]bool{
	stripeapi.ErrorCodePaymentIntentUnexpectedState: true,
	stripeapi.ErrorCodeAmountTooLarge:               true,
	stripeapi.ErrorCodeChargeAlreadyCaptured:        true,
	stripeapi.ErrorCodeChargeAlreadyRefunded:        true,
	"charge_expired_for_capture":                    true,
}

// apiErr sorts an error from stripe-go into the gateway's errors: no answer, a timeout,
// a 5xx or rate limiting → ErrUnavailable (the outcome is unknown); resource_missing →
// ErrNotFound; a state conflict → ErrInvalidState. The Stripe message is kept for the
// log; Stripe never puts a card number in it.
func apiErr(err error) error {
	if err == nil {
		return nil
	}
	var se *stripeapi.Error
	if errors.As(err, &se) {
		switch {
		case se.HTTPStatusCode >= 500 || se.HTTPStatusCode == http.StatusTooManyRequests ||
			se.Type == stripeapi.ErrorTypeAPI || se.Type == stripeapi.ErrorTypeRateLimit:
			return fmt.Errorf("%w: %s %s", gateway.ErrUnavailable, se.Type, se.Msg)
		case se.Code == stripeapi.ErrorCodeResourceMissing || se.HTTPStatusCode == http.StatusNotFound:
			return fmt.Errorf("%w: %s", gateway.ErrNotFound, se.Msg)
		case invalidState[se.Code]:
			return fmt.Errorf("%w: %s", gateway.ErrInvalidState, se.Msg)
		}
		return fmt.Errorf("stripe: %s %s: %s", se.Type, se.Code, se.Msg)
	}
	var ne net.Error
	var ue *url.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) || errors.As(err, &ue) {
		return fmt.Errorf("%w: %v", gateway.ErrUnavailable, err)
	}
	return fmt.Errorf("stripe: %w", err)
}

// tokenErr is apiErr for SaveCard, where a token Stripe does not know, or that was used
// already, is ErrBadToken.
func tokenErr(err error) error {
	var se *stripeapi.Error
	if errors.As(err, &se) && se.HTTPStatusCode < 500 &&
		(se.Code == stripeapi.ErrorCodeResourceMissing || se.Code == stripeapi.ErrorCodeTokenAlreadyUsed || se.Code == "token_in_use") {
		return fmt.Errorf("%w: %s", gateway.ErrBadToken, se.Msg)
	}
	return apiErr(err)
}
