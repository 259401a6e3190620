package stripe

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	stripeapi "github.com/stripe/stripe-go/v85"

	"cardpay/gateway"
	"cardpay/gateway/gatewaytest"
)

// The card-setup half of statefulMock: SetupIntents and Checkout Sessions in setup mode,
// as far as the adapter and the browser use them.

type fakeSI struct {
	id, customer, secret, status string
	pm                           *fakePM // the card once it is set up (or waits for 3-D Secure)
	lastErr                      map[string]any
	metadata                     map[string]string
}

type fakeCS struct {
	id, customer, status    string
	successURL, cancelURL   string
	si                      *fakeSI // created when the buyer first submits a card, as Checkout does
	metadata, setupMetadata map[string]string
}

var (
	siPathRE = regexp.MustCompile(`^/v1/setup_intents/([^/]+)(/confirm|/cancel)?$`)
	csPathRE = regexp.MustCompile(`^/v1/checkout/sessions/([^/]+)(/expire)?$`)
)

// routeSetup is route for the card-setup endpoints; ok is false for any other. Called
// with f.mu held.
func (f *statefulMock) routeSetup(method, path string, form url.Values, obj map[string]any) (status int, out []byte, ok bool) {
	switch {
	case method == http.MethodPost && path == "/v1/setup_intents":
		if !f.customers[form.Get("customer")] {
			status, out = missing("customer", form.Get("customer"))
			return status, out, true
		}
		si := &fakeSI{id: obj["id"].(string), customer: form.Get("customer"), status: "requires_payment_method", metadata: metadataOf(form, "metadata")}
		si.secret = fmt.Sprintf("%s_secret_%s", si.id, strconv.FormatInt(int64(len(f.sis)+1), 36))
		f.sis[si.id] = si
		status, out = ok200(f.dressSI(obj, si, expansions(form)))
		return status, out, true

	case siPathRE.MatchString(path):
		m := siPathRE.FindStringSubmatch(path)
		si, found := f.sis[m[1]]
		if !found {
			status, out = missing("setup_intent", m[1])
			return status, out, true
		}
		switch {
		case method == http.MethodGet && m[2] == "":
		case method == http.MethodPost && m[2] == "/confirm":
			return f.confirmSI(si, form, obj)
		case method == http.MethodPost && m[2] == "/cancel":
			if si.status == "succeeded" || si.status == "canceled" {
				status, out = stripeError(http.StatusBadRequest, map[string]any{"type": "invalid_request_error", "code": "setup_intent_unexpected_state",
					"message": "You cannot cancel this SetupIntent because it has a status of " + si.status + "."})
				return status, out, true
			}
			si.status = "canceled"
		default:
			return 0, nil, false
		}
		status, out = ok200(f.dressSI(obj, si, expansions(form)))
		return status, out, true

	case method == http.MethodPost && path == "/v1/checkout/sessions":
		if !f.customers[form.Get("customer")] {
			status, out = missing("customer", form.Get("customer"))
			return status, out, true
		}
		if form.Get("mode") != "setup" {
			status, out = stripeError(http.StatusBadRequest, map[string]any{"type": "invalid_request_error",
				"message": "the model knows only Checkout Sessions in setup mode"})
			return status, out, true
		}
		cs := &fakeCS{id: obj["id"].(string), customer: form.Get("customer"), status: "open",
			successURL: form.Get("success_url"), cancelURL: form.Get("cancel_url"),
			metadata: metadataOf(form, "metadata"), setupMetadata: metadataOf(form, "setup_intent_data[metadata]")}
		f.sessions[cs.id] = cs
		status, out = ok200(f.dressCS(obj, cs, expansions(form)))
		return status, out, true

	case csPathRE.MatchString(path):
		m := csPathRE.FindStringSubmatch(path)
		cs, found := f.sessions[m[1]]
		if !found {
			status, out = missing("checkout.session", m[1])
			return status, out, true
		}
		switch {
		case method == http.MethodGet && m[2] == "":
		case method == http.MethodPost && m[2] == "/expire":
			if cs.status != "open" {
				status, out = stripeError(http.StatusBadRequest, map[string]any{"type": "invalid_request_error",
					"message": "Only Checkout Sessions with a status in [\"open\"] can be expired."})
				return status, out, true
			}
			cs.status = "expired"
		default:
			return 0, nil, false
		}
		status, out = ok200(f.dressCS(obj, cs, expansions(form)))
		return status, out, true
	}
	return 0, nil, false
}

// confirmSI is Stripe.js confirming a SetupIntent with a PaymentMethod it made from the
// Payment Element, authenticated by the client secret. Called with f.mu held.
func (f *statefulMock) confirmSI(si *fakeSI, form url.Values, obj map[string]any) (int, []byte, bool) {
	if form.Get("client_secret") != si.secret {
		status, out := stripeError(http.StatusBadRequest, map[string]any{"type": "invalid_request_error", "param": "client_secret",
			"message": "The client_secret provided does not match the client_secret associated with the SetupIntent."})
		return status, out, true
	}
	if si.status != "requires_payment_method" && si.status != "requires_confirmation" {
		status, out := stripeError(http.StatusBadRequest, map[string]any{"type": "invalid_request_error", "code": "setup_intent_unexpected_state",
			"message": "You cannot confirm this SetupIntent because it has a status of " + si.status + "."})
		return status, out, true
	}
	pm, ok := f.pms[form.Get("payment_method")]
	if !ok {
		status, out := missing("payment_method", form.Get("payment_method"))
		return status, out, true
	}
	if pm.customer != "" && pm.customer != si.customer {
		status, out := stripeError(http.StatusBadRequest, map[string]any{"type": "invalid_request_error", "param": "payment_method",
			"message": "The provided PaymentMethod belongs to another customer."})
		return status, out, true
	}
	if f.setUp(si, pm) {
		status, out := ok200(f.dressSI(obj, si, expansions(form)))
		return status, out, true
	}
	e := maps.Clone(si.lastErr)
	e["setup_intent"] = f.dressSI(obj, si, nil)
	status, out := stripeError(http.StatusPaymentRequired, e)
	return status, out, true
}

// setUp confirms si with pm as Stripe does for its test cards: a card that declines
// leaves the SetupIntent requires_payment_method with last_setup_error, a challenge card
// asks for 3-D Secure, any other succeeds and attaches the card to the setup's Customer.
// It answers false for a decline. Called with f.mu held.
func (f *statefulMock) setUp(si *fakeSI, pm *fakePM) bool {
	sc := stripeCards[pm.card.card]
	si.lastErr = nil
	switch {
	case pm.card.card == gatewaytest.CardChallenge || pm.card.card == gatewaytest.CardChallengeFails:
		si.status, si.pm = "requires_action", pm
	case sc.code != "":
		si.status, si.pm = "requires_payment_method", nil
		si.lastErr = map[string]any{"type": "card_error", "code": sc.code, "decline_code": sc.declineCode,
			"payment_method": f.dressPM(map[string]any{}, pm), "message": "Your card was declined."}
		return false
	default:
		si.status, si.pm, pm.customer = "succeeded", pm, si.customer
	}
	return true
}

// checkoutPage is Checkout's hosted page reduced to its outcome: POST card=<test card>
// enters that card. A card that sets up completes the session and sends the buyer to
// the success URL with Stripe's {CHECKOUT_SESSION_ID} replaced; a declined one is shown
// on the page (402) and the session stays open for another try, as on Checkout.
func (f *statefulMock) checkoutPage(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cs, ok := f.sessions[strings.TrimPrefix(r.URL.Path, "/checkout/")]
	if !ok || r.Method != http.MethodPost || cs.status != "open" {
		http.NotFound(w, r)
		return
	}
	c := gatewaytest.Card(r.FormValue("card"))
	if _, known := stripeCards[c]; !known {
		http.Error(w, "unknown test card", http.StatusBadRequest)
		return
	}
	f.n++
	pm := &fakePM{id: "pm_checkout" + strconv.FormatInt(int64(f.n), 36), card: f.newCard(c)}
	f.pms[pm.id] = pm
	if cs.si == nil {
		cs.si = &fakeSI{id: "seti_checkout" + strconv.FormatInt(int64(f.n), 36), customer: cs.customer,
			status: "requires_payment_method", metadata: cs.setupMetadata}
		cs.si.secret = cs.si.id + "_secret_checkout"
		f.sis[cs.si.id] = cs.si
	}
	if !f.setUp(cs.si, pm) || cs.si.status != "succeeded" {
		w.WriteHeader(http.StatusPaymentRequired)
		_, _ = io.WriteString(w, "カードを登録できませんでした。")
		return
	}
	cs.status = "complete"
	http.Redirect(w, r, strings.ReplaceAll(cs.successURL, checkoutSessionIDTemplate, cs.id), http.StatusSeeOther)
}

// dressSI writes the model's state over a SetupIntent fixture (or an empty object).
func (f *statefulMock) dressSI(obj map[string]any, si *fakeSI, expand map[string]bool) map[string]any {
	obj = clone(obj)
	obj["id"], obj["object"], obj["status"], obj["customer"] = si.id, "setup_intent", si.status, si.customer
	obj["client_secret"], obj["usage"], obj["payment_method_types"] = si.secret, "off_session", []string{"card"}
	obj["metadata"] = si.metadata
	if si.metadata == nil {
		obj["metadata"] = map[string]string{}
	}
	obj["last_setup_error"], obj["next_action"], obj["cancellation_reason"], obj["payment_method"] = nil, nil, nil, nil
	if si.lastErr != nil {
		obj["last_setup_error"] = si.lastErr
	}
	if si.status == "requires_action" {
		// Stripe.js handles the challenge itself (confirmSetup), so no redirect URL.
		obj["next_action"] = map[string]any{"type": "use_stripe_sdk", "use_stripe_sdk": map[string]any{}}
	}
	if si.status == "canceled" {
		obj["cancellation_reason"] = "requested_by_customer"
	}
	if si.pm != nil {
		obj["payment_method"] = si.pm.id
		if expand["payment_method"] {
			obj["payment_method"] = f.dressPM(map[string]any{}, si.pm)
		}
	}
	return obj
}

// dressCS writes the model's state over a Checkout Session fixture.
func (f *statefulMock) dressCS(obj map[string]any, cs *fakeCS, expand map[string]bool) map[string]any {
	base, _ := obj["setup_intent"].(map[string]any)
	obj = clone(obj)
	obj["id"], obj["object"], obj["status"], obj["mode"] = cs.id, "checkout.session", cs.status, "setup"
	obj["customer"], obj["currency"], obj["success_url"], obj["cancel_url"] = cs.customer, "jpy", cs.successURL, cs.cancelURL
	obj["payment_intent"], obj["subscription"], obj["metadata"] = nil, nil, cs.metadata
	obj["url"] = nil
	if cs.status == "open" {
		obj["url"] = f.srv.URL + "/checkout/" + cs.id
	}
	obj["setup_intent"] = nil
	if cs.si != nil {
		obj["setup_intent"] = cs.si.id
		if expand["setup_intent"] || expand["setup_intent.payment_method"] {
			if base == nil {
				base = map[string]any{}
			}
			obj["setup_intent"] = f.dressSI(base, cs.si, map[string]bool{"payment_method": expand["setup_intent.payment_method"]})
		}
	}
	return obj
}

func metadataOf(form url.Values, prefix string) map[string]string {
	out := map[string]string{}
	for k, v := range form {
		if strings.HasPrefix(k, prefix+"[") {
			out[strings.TrimSuffix(strings.TrimPrefix(k, prefix+"["), "]")] = v[0]
		}
	}
	return out
}

func (f *statefulMock) setupIntent(id string) fakeSI {
	f.mu.Lock()
	defer f.mu.Unlock()
	return *f.sis[id]
}

func (f *statefulMock) lastForm(path string) url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.forms[path]
}

// enterCard is gatewaytest.Env.EnterCard for the model: the buyer types card c into
// Stripe's fields (Stripe.js confirms the SetupIntent) or onto Checkout's page.
func (f *statefulMock) enterCard(t *testing.T, s gateway.CardSetup, c gatewaytest.Card, returnURL string) gateway.Card {
	t.Helper()
	var fc fakeCard
	if s.RedirectURL != "" {
		fc = f.checkout(t, s, c, returnURL)
	} else {
		var err error
		fc, err = f.stripeJS(t, s.ClientSecret, c, returnURL)
		require.NoError(t, err)
	}
	return gateway.Card{Brand: brandOf(stripeapi.PaymentMethodCardBrand(fc.brand)), Last4: fc.last4,
		ExpMonth: fc.expMonth, ExpYear: fc.expYear, Holder: fc.holder}
}

// stripeJS does what Stripe.js does on stripe.confirmSetup: make a PaymentMethod from
// the Payment Element, then confirm the SetupIntent named by the client secret (Stripe.js
// knows nothing else of the setup). Both calls go through the model to stripe-mock,
// which checks them against the API spec; stripe-mock only takes secret keys, so they
// carry the test secret key where Stripe.js would send the publishable one. A decline
// (402) is returned as an error with the card.
func (f *statefulMock) stripeJS(t *testing.T, clientSecret string, c gatewaytest.Card, returnURL string) (fakeCard, error) {
	t.Helper()
	id, _, ok := strings.Cut(clientSecret, "_secret_")
	require.True(t, ok, "a SetupIntent client secret names its SetupIntent")
	tok, fc := f.token(c)
	var pm struct {
		ID string `json:"id"`
	}
	code := f.post(t, "/v1/payment_methods", url.Values{"type": {"card"}, "card[token]": {tok}}, &pm)
	require.Equal(t, http.StatusOK, code)
	code = f.post(t, "/v1/setup_intents/"+id+"/confirm", url.Values{"client_secret": {clientSecret},
		"payment_method": {pm.ID}, "return_url": {returnURL}}, nil)
	switch code {
	case http.StatusOK:
		return fc, nil
	case http.StatusPaymentRequired:
		return fc, fmt.Errorf("card %s declined", c)
	}
	return fc, fmt.Errorf("confirm answered %d", code)
}

func (f *statefulMock) post(t *testing.T, path string, form url.Values, out any) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, f.srv.URL+path, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+testKey)
	res, err := f.client.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	if out != nil && res.StatusCode == http.StatusOK {
		require.NoError(t, json.NewDecoder(res.Body).Decode(out))
	}
	return res.StatusCode
}

// checkout submits card c on Checkout's page and checks that Stripe sends the buyer back
// to the return URL naming the session.
func (f *statefulMock) checkout(t *testing.T, s gateway.CardSetup, c gatewaytest.Card, returnURL string) fakeCard {
	t.Helper()
	noRedirect := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	res, err := noRedirect.PostForm(s.RedirectURL, url.Values{"card": {string(c)}})
	require.NoError(t, err)
	_ = res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "Checkout took card %s", c)
	back, err := url.Parse(res.Header.Get("Location"))
	require.NoError(t, err)
	want, err := url.Parse(returnURL)
	require.NoError(t, err)
	assert.Equal(t, want.Host+want.Path, back.Host+back.Path, "back to the return URL")
	assert.Equal(t, s.ID, back.Query().Get("setup"), "the return URL names the setup")
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[s.ID].si.pm.card
}
