package stripe

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	stripeapi "github.com/stripe/stripe-go/v85"

	"cardpay/gateway"
	"cardpay/gateway/gatewaytest"
	"cardpay/pay"
)

// TestSetupResultOf pins how a SetupIntent's status becomes the setup's outcome.
func TestSetupResultOf(t *testing.T) {
	pm := &stripeapi.PaymentMethod{ID: "pm_1", Customer: &stripeapi.Customer{ID: "cus_1"},
		Card:           &stripeapi.PaymentMethodCard{Brand: "mastercard", Last4: "4444", ExpMonth: 3, ExpYear: 2032, Fingerprint: "fpM"},
		BillingDetails: &stripeapi.PaymentMethodBillingDetails{Name: "HANAKO SATO"}}
	card := gateway.Card{Ref: "pm_1", Brand: pay.BrandMASTER, Last4: "4444", ExpMonth: 3, ExpYear: 2032, Holder: "HANAKO SATO", Fingerprint: "fpM"}
	for _, tc := range []struct {
		name string
		si   stripeapi.SetupIntent
		want gateway.CardSetupResult
	}{
		{"succeeded is the card, verified", stripeapi.SetupIntent{Status: "succeeded", PaymentMethod: pm},
			gateway.CardSetupResult{Status: gateway.SetupSucceeded, Card: card, Verified: true}},
		{"requires_action is the 3-D Secure challenge", stripeapi.SetupIntent{Status: "requires_action", PaymentMethod: pm,
			NextAction: &stripeapi.SetupIntentNextAction{Type: "use_stripe_sdk"}},
			gateway.CardSetupResult{Status: gateway.SetupRequiresAction}},
		{"requires_payment_method without an error is open", stripeapi.SetupIntent{Status: "requires_payment_method"},
			gateway.CardSetupResult{Status: gateway.SetupOpen}},
		{"requires_confirmation is open", stripeapi.SetupIntent{Status: "requires_confirmation", PaymentMethod: pm},
			gateway.CardSetupResult{Status: gateway.SetupOpen}},
		{"processing is open", stripeapi.SetupIntent{Status: "processing", PaymentMethod: pm},
			gateway.CardSetupResult{Status: gateway.SetupOpen}},
		{"failed 3-D Secure", stripeapi.SetupIntent{Status: "requires_payment_method",
			LastSetupError: &stripeapi.Error{Type: stripeapi.ErrorTypeInvalidRequest, Code: "setup_intent_authentication_failure"}},
			gateway.CardSetupResult{Status: gateway.SetupDeclined, ResultCode: gateway.ResultChallengeFailed}},
		{"a refusal without a known reason", stripeapi.SetupIntent{Status: "requires_payment_method",
			LastSetupError: &stripeapi.Error{Type: stripeapi.ErrorTypeCard, Code: "card_declined", DeclineCode: "do_not_honor"}},
			gateway.CardSetupResult{Status: gateway.SetupDeclined, ResultCode: gateway.ResultDeclined}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			si := tc.si
			si.ID = "seti_1"
			got, err := setupResultOf(&si)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	// Every decline the contract knows, with the code Stripe's test card gives.
	for _, d := range gatewaytest.Declines {
		sc := stripeCards[d.Card]
		t.Run("declined "+string(d.Card), func(t *testing.T) {
			got, err := setupResultOf(&stripeapi.SetupIntent{ID: "seti_1", Status: "requires_payment_method",
				LastSetupError: &stripeapi.Error{Type: stripeapi.ErrorTypeCard, Code: stripeapi.ErrorCode(sc.code), DeclineCode: stripeapi.DeclineCode(sc.declineCode)}})
			require.NoError(t, err)
			assert.Equal(t, gateway.CardSetupResult{Status: gateway.SetupDeclined, ResultCode: d.Code}, got)
		})
	}
	t.Run("canceled is a bad token", func(t *testing.T) {
		_, err := setupResultOf(&stripeapi.SetupIntent{ID: "seti_1", Status: "canceled", CancellationReason: "abandoned"})
		require.ErrorIs(t, err, gateway.ErrBadToken)
	})
	t.Run("succeeded without a card is an error, not a card", func(t *testing.T) {
		_, err := setupResultOf(&stripeapi.SetupIntent{ID: "seti_1", Status: "succeeded"})
		require.Error(t, err)
	})
	t.Run("unknown status", func(t *testing.T) {
		_, err := setupResultOf(&stripeapi.SetupIntent{ID: "seti_1", Status: "someday"})
		require.Error(t, err)
	})
}

// TestCardSetupStripeMock plays against stripe-mock what its fixtures can: both kinds of
// setup are created with requests stripe-mock accepts, and read back as their fixtures
// say. See TestContractStripeMock for why the contract's Setup rows do not run there.
func TestCardSetupStripeMock(t *testing.T) {
	base := stripeMockURL(t)
	gw := newGateway(t, base, 10*time.Second, nil)
	t.Run("fields", func(t *testing.T) {
		s, err := gw.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: contractReturnURL})
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(s.ID, "seti_"), s.ID)
		assert.Contains(t, s.ClientSecret, "_secret_")
		assert.Empty(t, s.RedirectURL)
		assert.Empty(t, s.FieldsURL, "Stripe's fields are mounted by Stripe.js, not framed from a URL")
		// The data that decides TestContractStripeMock's scenarios. Should a stripe-mock
		// upgrade give a SetupIntent without a setup error, declare Setup there.
		fx := fixture(t, base, "/v1/setup_intents/"+s.ID)
		require.Equal(t, "requires_payment_method", fx["status"], "stripe-mock's SetupIntent fixture changed: revisit TestContractStripeMock")
		require.NotNil(t, fx["last_setup_error"], "stripe-mock's SetupIntent fixture changed: revisit TestContractStripeMock")
		got, err := gw.FinishCardSetup(t.Context(), s.ID)
		require.NoError(t, err)
		assert.Equal(t, gateway.SetupDeclined, got.Status, "a setup error on the SetupIntent is a refused card")
		assert.True(t, got.ResultCode.IsDecline())
	})
	t.Run("hosted", func(t *testing.T) {
		s, err := gw.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: contractReturnURL, Hosted: true})
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(s.ID, "cs_"), s.ID)
		assert.True(t, strings.HasPrefix(s.RedirectURL, "https://checkout.stripe.com/"), s.RedirectURL)
		assert.Empty(t, s.ClientSecret)
		got, err := gw.FinishCardSetup(t.Context(), s.ID)
		require.NoError(t, err)
		assert.Equal(t, gateway.SetupOpen, got.Status, "stripe-mock's Checkout Session fixture is open")
	})
}

// TestCardSetupRequests: what the adapter asks Stripe for.
func TestCardSetupRequests(t *testing.T) {
	fake := newStatefulMock(t, stripeMockURL(t))
	gw := newGateway(t, fake.srv.URL, 5*time.Second, nil)

	s, err := gw.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: "https://app.example/myaccount/creditcards/new/return"})
	require.NoError(t, err)
	si := fake.lastForm("/v1/setup_intents")
	require.NotNil(t, si)
	assert.Equal(t, fake.setupIntent(s.ID).customer, si.Get("customer"))
	assert.NotEmpty(t, si.Get("customer"), "a Customer of its own, to attach the card to")
	assert.Equal(t, []string{"card"}, si["payment_method_types[0]"])
	assert.Equal(t, "off_session", si.Get("usage"))
	assert.Equal(t, "any", si.Get("payment_method_options[card][request_three_d_secure]"))
	assert.Equal(t, purposeSetup, si.Get("metadata["+metaPurpose+"]"))
	assert.Equal(t, fake.setupIntent(s.ID).secret, s.ClientSecret)

	for _, tc := range []struct{ returnURL, success, cancel string }{
		{"https://app.example/myaccount/creditcards/new/return",
			"https://app.example/myaccount/creditcards/new/return?setup={CHECKOUT_SESSION_ID}",
			"https://app.example/myaccount/creditcards/new/return?hosted_cancel=1"},
		{"https://app.example/return?next=%2Fcheckout",
			"https://app.example/return?next=%2Fcheckout&setup={CHECKOUT_SESSION_ID}",
			"https://app.example/return?next=%2Fcheckout&hosted_cancel=1"},
	} {
		_, err := gw.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: tc.returnURL, Hosted: true})
		require.NoError(t, err)
		cs := fake.lastForm("/v1/checkout/sessions")
		require.NotNil(t, cs)
		assert.Equal(t, "setup", cs.Get("mode"))
		assert.NotEmpty(t, cs.Get("customer"))
		assert.Equal(t, "jpy", cs.Get("currency"))
		assert.Equal(t, []string{"card"}, cs["payment_method_types[0]"])
		assert.Equal(t, "ja", cs.Get("locale"))
		// The braces reach Stripe as they are, for it to put the session's id in.
		assert.Equal(t, tc.success, cs.Get("success_url"))
		assert.Equal(t, tc.cancel, cs.Get("cancel_url"))
		assert.Equal(t, purposeSetup, cs.Get("setup_intent_data[metadata]["+metaPurpose+"]"))
	}
	assert.Empty(t, fake.refusedRequests(), "stripe-mock refused requests the adapter made")
}

func TestWithParam(t *testing.T) {
	for in, want := range map[string]string{
		"https://app.example/r":          "https://app.example/r?x=1",
		"https://app.example/r?a=b":      "https://app.example/r?a=b&x=1",
		"https://app.example/r?":         "https://app.example/r?x=1",
		"https://app.example/r?a=b&":     "https://app.example/r?a=b&x=1",
		"https://app.example/r#top":      "https://app.example/r?x=1#top",
		"https://app.example/r?a=b#frag": "https://app.example/r?a=b&x=1#frag",
	} {
		assert.Equal(t, want, withParam(in, "x=1"), in)
	}
}

// TestCardSetupOutcomes plays, through the model, what a buyer can do with each kind of
// setup beyond the contract's approved card.
func TestCardSetupOutcomes(t *testing.T) {
	fake := newStatefulMock(t, stripeMockURL(t))
	gw := newGateway(t, fake.srv.URL, 5*time.Second, nil)
	start := func(t *testing.T, hosted bool) gateway.CardSetup {
		t.Helper()
		s, err := gw.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: contractReturnURL, Hosted: hosted})
		require.NoError(t, err)
		return s
	}
	finish := func(t *testing.T, id string) gateway.CardSetupResult {
		t.Helper()
		got, err := gw.FinishCardSetup(t.Context(), id)
		require.NoError(t, err)
		return got
	}
	for _, d := range gatewaytest.Declines {
		t.Run("fields declined "+string(d.Card), func(t *testing.T) {
			s := start(t, false)
			_, err := fake.stripeJS(t, s.ClientSecret, d.Card, contractReturnURL)
			require.Error(t, err, "Stripe.js shows the refusal")
			got := finish(t, s.ID)
			assert.Equal(t, gateway.SetupDeclined, got.Status)
			assert.Equal(t, d.Code, got.ResultCode)
			assert.Empty(t, got.Card.Ref)
		})
	}
	t.Run("fields: another card after a decline", func(t *testing.T) {
		s := start(t, false)
		_, err := fake.stripeJS(t, s.ClientSecret, gatewaytest.CardInsufficientFunds, contractReturnURL)
		require.Error(t, err)
		_, err = fake.stripeJS(t, s.ClientSecret, gatewaytest.CardJCB, contractReturnURL)
		require.NoError(t, err)
		got := finish(t, s.ID)
		assert.Equal(t, gateway.SetupSucceeded, got.Status)
		assert.Equal(t, pay.BrandJCB, got.Card.Brand)
		assert.True(t, got.Verified, "a SetupIntent checked the card with the issuer")
	})
	t.Run("fields: 3-D Secure pending", func(t *testing.T) {
		s := start(t, false)
		_, err := fake.stripeJS(t, s.ClientSecret, gatewaytest.CardChallenge, contractReturnURL)
		require.NoError(t, err)
		assert.Equal(t, gateway.SetupRequiresAction, finish(t, s.ID).Status)
	})
	t.Run("fields: the saved card belongs to the setup's Customer", func(t *testing.T) {
		s := start(t, false)
		fake.enterCard(t, s, gatewaytest.CardVISA, contractReturnURL)
		got := finish(t, s.ID)
		fake.mu.Lock()
		owner := fake.pms[got.Card.Ref].customer
		fake.mu.Unlock()
		assert.Equal(t, fake.setupIntent(s.ID).customer, owner)
	})
	t.Run("hosted: a decline keeps the buyer on Checkout", func(t *testing.T) {
		s := start(t, true)
		res, err := http.PostForm(s.RedirectURL, map[string][]string{"card": {string(gatewaytest.CardStolen)}})
		require.NoError(t, err)
		_ = res.Body.Close()
		assert.Equal(t, http.StatusPaymentRequired, res.StatusCode)
		assert.Equal(t, gateway.SetupOpen, finish(t, s.ID).Status, "Checkout shows the refusal and the session stays open")
		want := fake.enterCard(t, s, gatewaytest.CardMASTER, contractReturnURL)
		got := finish(t, s.ID)
		require.Equal(t, gateway.SetupSucceeded, got.Status)
		assert.Equal(t, want.Last4, got.Card.Last4)
		assert.True(t, got.Verified)
	})
	t.Run("hosted: expired", func(t *testing.T) {
		s := start(t, true)
		_, err := gw.sc.V1CheckoutSessions.Expire(t.Context(), s.ID, nil)
		require.NoError(t, err)
		_, err = gw.FinishCardSetup(t.Context(), s.ID)
		require.ErrorIs(t, err, gateway.ErrBadToken)
	})
	t.Run("fields: canceled", func(t *testing.T) {
		s := start(t, false)
		_, err := gw.sc.V1SetupIntents.Cancel(t.Context(), s.ID, nil)
		require.NoError(t, err)
		_, err = gw.FinishCardSetup(t.Context(), s.ID)
		require.ErrorIs(t, err, gateway.ErrBadToken)
	})
	t.Run("unknown at Stripe", func(t *testing.T) {
		for _, id := range []string{"seti_unknown", "cs_test_unknown"} {
			_, err := gw.FinishCardSetup(t.Context(), id)
			require.ErrorIs(t, err, gateway.ErrNotFound, id)
		}
	})
	t.Run("not a Stripe setup id", func(t *testing.T) {
		for _, id := range []string{"", "setup_abc", "pi_123", "../v1/customers"} {
			_, err := gw.FinishCardSetup(t.Context(), id)
			require.ErrorIs(t, err, gateway.ErrNotFound, id)
		}
	})
	assert.Empty(t, fake.refusedRequests(), "stripe-mock refused requests the adapter or Stripe.js made")
}

// TestCardSetupUnavailable: no answer or a 5xx while starting or reading a setup is
// ErrUnavailable.
func TestCardSetupUnavailable(t *testing.T) {
	serve := func(t *testing.T, h http.HandlerFunc) *Gateway {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		return newGateway(t, srv.URL, 500*time.Millisecond, nil)
	}
	fail := serve(t, func(w http.ResponseWriter, r *http.Request) {
		writeStripeError(w, http.StatusServiceUnavailable, map[string]any{"type": "api_error", "message": "down"})
	})
	hang := serve(t, func(w http.ResponseWriter, r *http.Request) { waitForClient(r) })
	for name, gw := range map[string]*Gateway{"5xx": fail, "timeout": hang} {
		t.Run(name, func(t *testing.T) {
			for _, hosted := range []bool{false, true} {
				_, err := gw.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: contractReturnURL, Hosted: hosted})
				require.ErrorIs(t, err, gateway.ErrUnavailable)
			}
			for _, id := range []string{"seti_1", "cs_test_1"} {
				_, err := gw.FinishCardSetup(t.Context(), id)
				require.ErrorIs(t, err, gateway.ErrUnavailable, id)
			}
		})
	}
	t.Run("no return URL", func(t *testing.T) {
		_, err := fail.StartCardSetup(t.Context(), gateway.CardSetupRequest{})
		require.Error(t, err)
		assert.NotErrorIs(t, err, gateway.ErrUnavailable)
	})
}

// TestCardSetupLogs: a setup's log lines name the setup and the card's brand, last 4 and
// expiry, and never the client secret, the holder or the fingerprint.
func TestCardSetupLogs(t *testing.T) {
	fake := newStatefulMock(t, stripeMockURL(t))
	var buf bytes.Buffer
	gw := newGateway(t, fake.srv.URL, 5*time.Second, slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	s, err := gw.StartCardSetup(t.Context(), gateway.CardSetupRequest{ReturnURL: contractReturnURL})
	require.NoError(t, err)
	fake.enterCard(t, s, gatewaytest.CardJCB, contractReturnURL)
	got, err := gw.FinishCardSetup(t.Context(), s.ID)
	require.NoError(t, err)
	require.Equal(t, gateway.SetupSucceeded, got.Status)
	out := buf.String()
	assert.Contains(t, out, s.ID)
	assert.Contains(t, out, "last4="+got.Card.Last4)
	assert.Contains(t, out, "brand=JCB")
	assert.NotContains(t, out, s.ClientSecret)
	assert.NotContains(t, out, "_secret_")
	assert.NotContains(t, out, got.Card.Holder)
	assert.NotContains(t, out, got.Card.Fingerprint)
}
