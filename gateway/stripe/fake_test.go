package stripe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"cardpay/gateway/gatewaytest"
)

// statefulMock gives stripe-mock the memory it lacks. stripe-mock checks every request
// against the OpenAPI spec of the API version stripe-go speaks and answers with a
// fixture; it cannot decline, remember a payment or refuse a used token. statefulMock
// sits between the adapter and stripe-mock: it forwards each call unchanged (a call that
// stripe-mock refuses is recorded and fails the test), then overwrites the fixture's
// state fields — status, amounts, metadata, next_action, last_payment_error, the card —
// with those of a small model of Stripe's PaymentIntent state machine, and answers
// Stripe's own errors (402 card_error with the PaymentIntent, resource_missing,
// payment_intent_unexpected_state, amount_too_large, token_already_used, idempotent
// replay). The test cards behave as Stripe's test cards of the same last 4 digits do.
//
// Card setup (setup_fake_test.go) is modelled the same way: SetupIntents that Stripe.js
// confirms with a PaymentMethod and the client secret, and Checkout Sessions in setup
// mode whose page (/checkout/<id> on this server) takes a test card and sends the buyer
// to the success URL.
type statefulMock struct {
	t       *testing.T
	mockURL string
	srv     *httptest.Server
	client  *http.Client

	mu       sync.Mutex
	n        int
	tokens   map[string]fakeCard // unused tokens
	used     map[string]bool
	pms      map[string]*fakePM
	pis      map[string]*fakePI
	idem     map[string]idemEntry
	attempts map[string]int
	refused  []string // requests stripe-mock refused

	customers map[string]bool
	sis       map[string]*fakeSI
	sessions  map[string]*fakeCS
	// forms keeps the last form posted to each path, for tests of what the adapter sends.
	forms map[string]url.Values
}

type fakeCard struct {
	card        gatewaytest.Card
	brand       string
	last4       string
	expMonth    int
	expYear     int
	fingerprint string
	holder      string
}

type fakePM struct {
	id       string
	card     fakeCard
	customer string
}

type fakePI struct {
	id                      string
	pm                      *fakePM
	customer                string
	amount                  int64
	capturable, received    int64
	refunded                int64
	status                  string
	metadata                map[string]string
	charge                  string
	lastErr                 map[string]any
	cancelReason, returnURL string
}

type idemEntry struct {
	request []byte
	status  int
	body    []byte
}

// stripeCards are Stripe's test cards for our scenarios (brand, last 4 digits, and the
// decline Stripe answers for them).
var stripeCards = map[gatewaytest.Card]struct {
	brand, last4      string
	code, declineCode string
}{
	gatewaytest.CardVISA:              {"visa", "4242", "", ""},
	gatewaytest.CardJCB:               {"jcb", "0505", "", ""},
	gatewaytest.CardMASTER:            {"mastercard", "4444", "", ""},
	gatewaytest.CardChallenge:         {"visa", "3220", "", ""},
	gatewaytest.CardChallengeFails:    {"visa", "1629", "", ""},
	gatewaytest.CardInsufficientFunds: {"visa", "9995", "card_declined", "insufficient_funds"},
	gatewaytest.CardStolen:            {"visa", "9979", "card_declined", "stolen_card"},
	gatewaytest.CardExpired:           {"visa", "0069", "expired_card", "expired_card"},
	gatewaytest.CardSecurityCodeWrong: {"visa", "0127", "incorrect_cvc", "incorrect_cvc"},
	gatewaytest.CardOverLimit:         {"visa", "6975", "card_declined", "card_velocity_exceeded"},
	gatewaytest.CardProcessorError:    {"visa", "0119", "processing_error", "processing_error"},
	gatewaytest.CardTimeout:           {"visa", "0259", "", ""},
}

const fakeHolder = "TARO YAMADA"

func newStatefulMock(t *testing.T, mockURL string) *statefulMock {
	f := &statefulMock{
		t: t, mockURL: mockURL, client: &http.Client{Timeout: 30 * time.Second},
		tokens: map[string]fakeCard{}, used: map[string]bool{}, pms: map[string]*fakePM{},
		pis: map[string]*fakePI{}, idem: map[string]idemEntry{}, attempts: map[string]int{},
		customers: map[string]bool{}, sis: map[string]*fakeSI{}, sessions: map[string]*fakeCS{}, forms: map[string]url.Values{},
	}
	f.srv = httptest.NewServer(f)
	t.Cleanup(f.srv.Close)
	return f
}

// token mints a one-time token for card, as Stripe.js would.
func (f *statefulMock) token(c gatewaytest.Card) (string, fakeCard) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fc := f.newCard(c)
	tok := fmt.Sprintf("tok_%s_%s", strings.ReplaceAll(string(c), "_", ""), strconv.FormatInt(int64(f.n), 36))
	f.tokens[tok] = fc
	return tok, fc
}

// newCard is test card c as Stripe would store it. Called with f.mu held.
func (f *statefulMock) newCard(c gatewaytest.Card) fakeCard {
	f.n++
	sc := stripeCards[c]
	return fakeCard{
		card: c, brand: sc.brand, last4: sc.last4, expMonth: 12, expYear: time.Now().Year() + 3,
		fingerprint: "fp" + strings.ReplaceAll(string(c), "_", ""), holder: fakeHolder,
	}
}

// authorizations counts the PaymentIntents that hold our payment id.
func (f *statefulMock) authorizations(paymentID string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, pi := range f.pis {
		if pi.metadata[metaPaymentID] == paymentID {
			n++
		}
	}
	return n
}

func (f *statefulMock) refusedRequests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.refused...)
}

// timeoutAttempts: the timeout card's creation answers too late this many times — every
// attempt of one Authorize call (stripe-go retries with the same idempotency key).
const timeoutAttempts = 1 + int(maxNetworkRetries)

func (f *statefulMock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/3ds/") {
		f.challenge(w, r)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/checkout/") {
		f.checkoutPage(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	if r.Method == http.MethodPost && key != "" {
		f.mu.Lock()
		e, seen := f.idem[key]
		f.attempts[key]++
		hang := f.hangs(key)
		f.mu.Unlock()
		if seen {
			if !bytes.Equal(e.request, body) {
				writeStripeError(w, http.StatusBadRequest, map[string]any{"type": "idempotency_error",
					"message": "Keys for idempotent requests can only be used with the same parameters they were first used with."})
				return
			}
			if hang {
				waitForClient(r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(e.status)
			_, _ = w.Write(e.body)
			return
		}
	}
	// Forward to stripe-mock, which validates the request against the API spec.
	req, err := http.NewRequestWithContext(r.Context(), r.Method, f.mockURL+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for _, h := range []string{"Authorization", "Content-Type", "Stripe-Version", "Idempotency-Key"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	res, err := f.client.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	fixture, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if res.StatusCode != http.StatusOK {
		f.mu.Lock()
		f.refused = append(f.refused, fmt.Sprintf("%s %s → %d %s", r.Method, r.URL.Path, res.StatusCode, fixture))
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(res.StatusCode)
		_, _ = w.Write(fixture)
		return
	}
	var obj map[string]any
	if err := json.Unmarshal(fixture, &obj); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	form := r.URL.Query()
	if r.Method == http.MethodPost {
		form, _ = url.ParseQuery(string(body))
	}
	f.mu.Lock()
	if r.Method == http.MethodPost {
		f.forms[r.URL.Path] = form
	}
	status, out := f.route(r.Method, r.URL.Path, form, obj)
	hang := false
	if r.Method == http.MethodPost && key != "" {
		f.idem[key] = idemEntry{request: body, status: status, body: out}
		hang = f.hangs(key)
	}
	f.mu.Unlock()
	if hang {
		waitForClient(r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(out)
}

// hangs says whether the answer to this attempt comes too late: the first attempts to
// create a PaymentIntent on the timeout card. Called with f.mu held.
func (f *statefulMock) hangs(key string) bool {
	for _, pi := range f.pis {
		if pi.metadata[metaPaymentID] == key && pi.pm.card.card == gatewaytest.CardTimeout {
			return f.attempts[key] <= timeoutAttempts
		}
	}
	return false
}

// waitForClient answers nothing until the client gives up.
func waitForClient(r *http.Request) {
	// The server notices a closed connection only once the body has been read.
	_, _ = io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(time.Minute):
	}
}

var (
	pmPathRE     = regexp.MustCompile(`^/v1/payment_methods/([^/]+)$`)
	piPathRE     = regexp.MustCompile(`^/v1/payment_intents/([^/]+)(/capture|/cancel)?$`)
	searchMetaRE = regexp.MustCompile(`^metadata\['payment_id'\]:'((?:[^'\\]|\\.)*)'$`)
)

// route applies a call to the model and dresses stripe-mock's fixture obj with the
// model's state. Called with f.mu held.
func (f *statefulMock) route(method, path string, form url.Values, obj map[string]any) (int, []byte) {
	if status, out, ok := f.routeSetup(method, path, form, obj); ok {
		return status, out
	}
	switch {
	case method == http.MethodPost && path == "/v1/payment_methods":
		tok := form.Get("card[token]")
		fc, ok := f.tokens[tok]
		if !ok {
			if f.used[tok] {
				return stripeError(http.StatusBadRequest, map[string]any{"type": "invalid_request_error", "code": "token_already_used",
					"param": "card[token]", "message": "You cannot use a Stripe token more than once: " + tok + "."})
			}
			return missing("token", tok)
		}
		delete(f.tokens, tok)
		f.used[tok] = true
		pm := &fakePM{id: obj["id"].(string), card: fc}
		f.pms[pm.id] = pm
		return ok200(f.dressPM(obj, pm))

	case method == http.MethodGet && pmPathRE.MatchString(path):
		pm, ok := f.pms[pmPathRE.FindStringSubmatch(path)[1]]
		if !ok {
			return missing("payment_method", pmPathRE.FindStringSubmatch(path)[1])
		}
		return ok200(f.dressPM(obj, pm))

	case method == http.MethodPost && path == "/v1/customers":
		f.customers[obj["id"].(string)] = true
		if form.Get("payment_method") == "" {
			// A Customer for a card setup: the SetupIntent attaches the card later.
			return ok200(obj)
		}
		pm, ok := f.pms[form.Get("payment_method")]
		if !ok {
			return missing("payment_method", form.Get("payment_method"))
		}
		pm.customer = obj["id"].(string)
		return ok200(obj)

	case method == http.MethodPost && path == "/v1/payment_intents":
		return f.createPI(form, obj)

	case method == http.MethodGet && path == "/v1/payment_intents/search":
		m := searchMetaRE.FindStringSubmatch(form.Get("query"))
		if m == nil {
			return stripeError(http.StatusBadRequest, map[string]any{"type": "invalid_request_error", "message": "unsupported query " + form.Get("query")})
		}
		want := strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(m[1])
		tmpl, _ := obj["data"].([]any)
		var data []any
		for _, pi := range f.pis {
			if pi.metadata[metaPaymentID] == want && len(tmpl) > 0 {
				data = append(data, f.dressPI(clone(tmpl[0].(map[string]any)), pi, nil))
			}
		}
		obj["data"], obj["has_more"], obj["next_page"] = data, false, nil
		obj["total_count"] = len(data)
		return ok200(obj)

	case piPathRE.MatchString(path):
		m := piPathRE.FindStringSubmatch(path)
		pi, ok := f.pis[m[1]]
		if !ok {
			return missing("payment_intent", m[1])
		}
		switch {
		case method == http.MethodGet && m[2] == "":
		case method == http.MethodPost && m[2] == "/capture":
			if pi.status != "requires_capture" {
				return unexpectedState(pi, "capture")
			}
			amount := pi.capturable
			if v := form.Get("amount_to_capture"); v != "" {
				amount, _ = strconv.ParseInt(v, 10, 64)
			}
			if amount > pi.capturable {
				return stripeError(http.StatusBadRequest, map[string]any{"type": "invalid_request_error", "code": "amount_too_large",
					"param": "amount_to_capture", "message": "The amount to capture is greater than the capturable amount."})
			}
			pi.status, pi.received, pi.capturable = "succeeded", amount, 0
		case method == http.MethodPost && m[2] == "/cancel":
			switch pi.status {
			case "requires_payment_method", "requires_capture", "requires_confirmation", "requires_action":
			default:
				return unexpectedState(pi, "cancel")
			}
			pi.status, pi.capturable, pi.cancelReason = "canceled", 0, form.Get("cancellation_reason")
		default:
			return stripeError(http.StatusNotFound, map[string]any{"type": "invalid_request_error", "message": "unknown route " + path})
		}
		return ok200(f.dressPI(obj, pi, expansions(form)))

	case method == http.MethodPost && path == "/v1/refunds":
		pi, ok := f.pis[form.Get("payment_intent")]
		if !ok {
			return missing("payment_intent", form.Get("payment_intent"))
		}
		if pi.status != "succeeded" {
			return unexpectedState(pi, "refund")
		}
		left := pi.received - pi.refunded
		if left == 0 {
			return stripeError(http.StatusBadRequest, map[string]any{"type": "invalid_request_error", "code": "charge_already_refunded",
				"message": "Charge " + pi.charge + " has already been refunded."})
		}
		amount := left
		if v := form.Get("amount"); v != "" {
			amount, _ = strconv.ParseInt(v, 10, 64)
		}
		if amount > left {
			return stripeError(http.StatusBadRequest, map[string]any{"type": "invalid_request_error", "code": "amount_too_large",
				"param": "amount", "message": "Refund amount is greater than unrefunded amount on charge."})
		}
		pi.refunded += amount
		obj["amount"], obj["payment_intent"], obj["charge"], obj["status"] = amount, pi.id, pi.charge, "succeeded"
		return ok200(obj)
	}
	return ok200(obj)
}

func (f *statefulMock) createPI(form url.Values, obj map[string]any) (int, []byte) {
	pm, ok := f.pms[form.Get("payment_method")]
	if !ok {
		return missing("payment_method", form.Get("payment_method"))
	}
	if pm.customer != "" && form.Get("customer") != pm.customer {
		return stripeError(http.StatusBadRequest, map[string]any{"type": "invalid_request_error", "param": "customer",
			"message": "The provided PaymentMethod belongs to a customer; pass that customer."})
	}
	if form.Get("confirm") != "true" || form.Get("capture_method") != "manual" || form.Get("currency") != "jpy" {
		return stripeError(http.StatusBadRequest, map[string]any{"type": "invalid_request_error",
			"message": "the model knows only confirmed, manually captured JPY payment intents"})
	}
	amount, _ := strconv.ParseInt(form.Get("amount"), 10, 64)
	pi := &fakePI{
		id: obj["id"].(string), pm: pm, customer: form.Get("customer"), amount: amount,
		metadata: map[string]string{}, returnURL: form.Get("return_url"),
	}
	for k, v := range form {
		if strings.HasPrefix(k, "metadata[") {
			pi.metadata[strings.TrimSuffix(strings.TrimPrefix(k, "metadata["), "]")] = v[0]
		}
	}
	f.pis[pi.id] = pi
	sc := stripeCards[pm.card.card]
	switch {
	case pm.card.card == gatewaytest.CardChallenge || pm.card.card == gatewaytest.CardChallengeFails:
		pi.status = "requires_action"
	case sc.code != "":
		pi.status, pi.charge = "requires_payment_method", "ch_"+strings.TrimPrefix(pi.id, "pi_")
		pi.lastErr = map[string]any{"type": "card_error", "code": sc.code, "decline_code": sc.declineCode,
			"charge": pi.charge, "message": "Your card was declined."}
		e := maps.Clone(pi.lastErr)
		e["payment_intent"] = f.dressPI(obj, pi, nil)
		return stripeError(http.StatusPaymentRequired, e)
	default:
		f.authorise(pi)
	}
	return ok200(f.dressPI(obj, pi, expansions(form)))
}

func (f *statefulMock) authorise(pi *fakePI) {
	pi.status, pi.capturable, pi.charge = "requires_capture", pi.amount, "ch_"+strings.TrimPrefix(pi.id, "pi_")
}

// challenge is the issuer's 3-D Secure page, reduced to its outcome: opening it completes
// the challenge (passed for the challenge card, failed for the failing one) and sends the
// buyer back to the return URL.
func (f *statefulMock) challenge(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	pi, ok := f.pis[strings.TrimPrefix(r.URL.Path, "/3ds/")]
	if !ok || pi.status != "requires_action" {
		f.mu.Unlock()
		http.NotFound(w, r)
		return
	}
	if pi.pm.card.card == gatewaytest.CardChallengeFails {
		pi.status = "requires_payment_method"
		pi.lastErr = map[string]any{"type": "invalid_request_error", "code": "payment_intent_authentication_failure",
			"message": "We are unable to authenticate your payment method."}
	} else {
		f.authorise(pi)
	}
	back := pi.returnURL
	f.mu.Unlock()
	sep := "?"
	if strings.Contains(back, "?") {
		sep = "&"
	}
	http.Redirect(w, r, back+sep+"payment_intent="+pi.id, http.StatusSeeOther)
}

func (f *statefulMock) dressPM(obj map[string]any, pm *fakePM) map[string]any {
	card, _ := obj["card"].(map[string]any)
	if card == nil {
		card = map[string]any{}
	}
	card["brand"], card["display_brand"], card["last4"] = pm.card.brand, pm.card.brand, pm.card.last4
	card["exp_month"], card["exp_year"], card["fingerprint"] = pm.card.expMonth, pm.card.expYear, pm.card.fingerprint
	obj["card"], obj["id"], obj["type"], obj["object"] = card, pm.id, "card", "payment_method"
	bd, _ := obj["billing_details"].(map[string]any)
	if bd == nil {
		bd = map[string]any{}
	}
	bd["name"] = pm.card.holder
	obj["billing_details"] = bd
	obj["customer"] = nil
	if pm.customer != "" {
		obj["customer"] = pm.customer
	}
	obj["metadata"] = map[string]any{}
	return obj
}

// dressPI writes the model's state over a PaymentIntent fixture; expand names the
// fields the request asked to expand.
func (f *statefulMock) dressPI(obj map[string]any, pi *fakePI, expand map[string]bool) map[string]any {
	obj = clone(obj)
	obj["id"], obj["object"], obj["status"], obj["currency"] = pi.id, "payment_intent", pi.status, "jpy"
	obj["amount"], obj["amount_capturable"], obj["amount_received"] = pi.amount, pi.capturable, pi.received
	obj["capture_method"], obj["metadata"] = "manual", pi.metadata
	obj["customer"] = nil
	if pi.customer != "" {
		obj["customer"] = pi.customer
	}
	obj["next_action"] = nil
	if pi.status == "requires_action" {
		obj["next_action"] = map[string]any{"type": "redirect_to_url", "redirect_to_url": map[string]any{
			"url": f.srv.URL + "/3ds/" + pi.id, "return_url": pi.returnURL}}
	}
	obj["last_payment_error"] = nil
	if pi.lastErr != nil {
		obj["last_payment_error"] = pi.lastErr
	}
	obj["cancellation_reason"] = nil
	if pi.cancelReason != "" {
		obj["cancellation_reason"] = pi.cancelReason
	} else if pi.status == "canceled" {
		obj["cancellation_reason"] = "requested_by_customer"
	}
	obj["payment_method"] = pi.pm.id
	if expand["payment_method"] {
		obj["payment_method"] = f.dressPM(map[string]any{}, pi.pm)
	}
	obj["latest_charge"] = nil
	if pi.charge != "" {
		obj["latest_charge"] = pi.charge
		if expand["latest_charge"] {
			ch, _ := obj["latest_charge"].(map[string]any)
			if ch == nil {
				ch = map[string]any{}
			}
			ch["id"], ch["object"], ch["payment_intent"], ch["metadata"] = pi.charge, "charge", pi.id, pi.metadata
			ch["amount"], ch["amount_captured"], ch["amount_refunded"] = pi.amount, pi.received, pi.refunded
			ch["captured"], ch["refunded"] = pi.received > 0, pi.received > 0 && pi.refunded == pi.received
			obj["latest_charge"] = ch
		}
	}
	return obj
}

func expansions(form url.Values) map[string]bool {
	out := map[string]bool{}
	for k, vs := range form {
		if strings.HasPrefix(k, "expand") {
			for _, v := range vs {
				out[v] = true
			}
		}
	}
	return out
}

func clone(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

func ok200(obj map[string]any) (int, []byte) {
	b, _ := json.Marshal(obj)
	return http.StatusOK, b
}

func stripeError(status int, e map[string]any) (int, []byte) {
	b, _ := json.Marshal(map[string]any{"error": e})
	return status, b
}

func writeStripeError(w http.ResponseWriter, status int, e map[string]any) {
	code, b := stripeError(status, e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

func missing(kind, id string) (int, []byte) {
	return stripeError(http.StatusNotFound, map[string]any{"type": "invalid_request_error", "code": "resource_missing",
		"message": fmt.Sprintf("No such %s: '%s'", kind, id)})
}

func unexpectedState(pi *fakePI, action string) (int, []byte) {
	return stripeError(http.StatusBadRequest, map[string]any{"type": "invalid_request_error", "code": "payment_intent_unexpected_state",
		"message": fmt.Sprintf("You cannot %s this PaymentIntent because it has a status of %s.", action, pi.status)})
}
