package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/cards"
	"cardpay/gateway"
	"cardpay/gateway/sandbox"
	"cardpay/handlers/api"
	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

// Test cards of the sandbox PSP (README "Test cards").
const (
	visaNumber      = "4111 1111 1111 1111"
	jcbNumber       = "3530 1113 3330 0000"
	challengeNumber = "4000 0000 0000 3220"
	insufficient    = "4000 0000 0000 9995"
)

func savedCards(t *testing.T, buyerID int64) []store.Card {
	t.Helper()
	list, err := webtest.Store().Cards(context.Background(), buyerID)
	require.NoError(t, err)
	return list
}

// addCard saves a test card through the API and answers its id.
func addCard(t *testing.T, e *env, c *client, number string) int64 {
	t.Helper()
	r := c.post("/invoices/credit_cards", map[string]any{"token": e.PSP.CardToken(t, number)})
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	card := r.Body["credit_card"].(map[string]any)
	return int64(card["id"].(float64))
}

func TestCreditCardsAPI(t *testing.T) {
	e := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := e.signedInAs(t, u)

	r := c.get("/invoices/credit_cards")
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Empty(t, r.Body["credit_cards"])
	assert.EqualValues(t, pay.MaxSavedCards, r.num("max_count"))

	r = c.post("/invoices/credit_cards", map[string]any{"token": e.PSP.CardToken(t, visaNumber)})
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	assert.Equal(t, "saved", r.str("status"))
	card := r.Body["credit_card"].(map[string]any)
	assert.Equal(t, "VISA", card["brand"])
	assert.Equal(t, "1111", card["last4"])
	assert.Equal(t, true, card["is_default"])
	assert.Equal(t, false, card["expired"])
	assert.Equal(t, fmt.Sprintf("12/%02d", (time.Now().Year()+3)%100), card["expiry"])
	assert.NotContains(t, r.Raw, "4111111111111111")

	jcb := addCard(t, e, c, jcbNumber)
	r = c.get("/invoices/credit_cards")
	list := r.Body["credit_cards"].([]any)
	require.Len(t, list, 2)
	assert.Equal(t, "VISA", list[0].(map[string]any)["brand"], "the default first")

	// The pages' rules: a duplicate, a decline, no token.
	r = c.post("/invoices/credit_cards", map[string]any{"token": e.PSP.CardToken(t, visaNumber)})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, "validation_error", r.str("status"))
	assert.Equal(t, cards.MsgDuplicate, r.fieldErrors()["token"])
	r = c.post("/invoices/credit_cards", map[string]any{"token": e.PSP.CardToken(t, insufficient)})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, "card_declined", r.str("status"))
	assert.Equal(t, "G012", r.str("result_code"))
	assert.Equal(t, gateway.ResultMessage(gateway.ResultInsufficientFunds), r.str("message"))
	r = c.post("/invoices/credit_cards", map[string]any{})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, cards.MsgTokenMissing, r.fieldErrors()["token"])
	r = c.post("/invoices/credit_cards", map[string]any{"token": "tok_nonsense"})
	assert.Equal(t, cards.MsgTokenUnusable, r.fieldErrors()["token"])

	// Delete: the default moves to the remaining card.
	visaID := int64(list[0].(map[string]any)["id"].(float64))
	r = c.delete("/invoices/credit_cards/" + strconv.FormatInt(visaID, 10))
	require.Equal(t, http.StatusNoContent, r.Status, r.String())
	left := savedCards(t, u.BuyerID)
	require.Len(t, left, 1)
	assert.Equal(t, jcb, left[0].ID)
	assert.True(t, left[0].IsDefault)
	assert.Equal(t, http.StatusNotFound, c.delete("/invoices/credit_cards/"+strconv.FormatInt(visaID, 10)).Status)
	assert.Equal(t, http.StatusNotFound, c.delete("/invoices/credit_cards/abc").Status)

	anon := e.client(t)
	assert.Equal(t, http.StatusUnauthorized, anon.get("/invoices/credit_cards").Status)
}

// A card that needs a challenge, added by an outside client: the buyer's browser passes
// the challenge at the PSP, and the PSP's webhook (processed by a background job) saves
// the card, since the browser that comes back holds no session of ours.
func TestCreditCardChallengeThroughTheAPIAndTheWebhook(t *testing.T) {
	e := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := e.signedInAs(t, u)

	r := c.post("/invoices/credit_cards", map[string]any{"token": e.PSP.CardToken(t, challengeNumber)})
	require.Equal(t, http.StatusAccepted, r.Status, r.String())
	assert.Equal(t, "requires_action", r.str("status"))
	paymentID := r.str("payment_id")
	assert.True(t, strings.HasPrefix(paymentID, "cardcheck-"))
	back := e.PSP.Challenge(t, r.str("challenge_url"), true)
	assert.Equal(t, "/myaccount/creditcards/verify/return?payment_id="+paymentID, back)
	assert.Empty(t, savedCards(t, u.BuyerID))

	assert.Positive(t, e.PSP.DeliverWebhooks(t))
	require.Eventually(t, func() bool { return len(savedCards(t, u.BuyerID)) == 1 }, 10*time.Second, 20*time.Millisecond,
		"the webhook's job saves the card")
	// The job marks the event processed just after it saved the card.
	e.Settle(t)
	var processed int
	require.NoError(t, webtest.Store().DB.Get(&processed, `SELECT count(*) FROM psp_events WHERE payment_id = $1 AND processed_at IS NOT NULL`, paymentID))
	assert.Equal(t, 1, processed)
}

func TestCreditCardApproval(t *testing.T) {
	e := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := e.signedInAs(t, u)
	visa := addCard(t, e, c, visaNumber)
	approve := func(c *client, cardID, amount int64, paymentID string) result {
		return c.post("/invoices/credit_cards/approval", map[string]any{
			"credit_card_id": cardID, "amount": amount, "payment_id": paymentID, "return_url": "/payments/waiting/1/creditcard"})
	}

	r := approve(c, visa, 110_000, "pay-api-1")
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "authorized", r.str("status"))
	assert.Equal(t, "A001", r.str("result_code"))
	assert.EqualValues(t, 110_000, r.num("amount"))
	r = approve(c, visa, 110_000, "pay-api-1")
	require.Equal(t, http.StatusOK, r.Status, "the same payment id answers the same authorisation")
	var auths int
	require.NoError(t, webtest.Store().DB.Get(&auths, `SELECT count(*) FROM sandbox_authorizations WHERE payment_id = 'pay-api-1'`))
	assert.Equal(t, 1, auths, "authorised once at the PSP")

	// Out of range, missing, and not the caller's.
	for _, amount := range []int64{999, 10_000_001} {
		r = approve(c, visa, amount, "pay-api-2")
		assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
		assert.Equal(t, "お支払い金額は¥1,000から¥10,000,000までの範囲で指定してください", r.fieldErrors()["amount"])
	}
	r = c.post("/invoices/credit_cards/approval", map[string]any{"amount": 5000, "payment_id": "x", "return_url": "/x"})
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Contains(t, r.fieldErrors(), "credit_card_id")
	r = c.post("/invoices/credit_cards/approval", map[string]any{"credit_card_id": visa, "amount": 5000, "payment_id": "pay-api-3", "return_url": "https://evil.example/"})
	assert.Contains(t, r.fieldErrors(), "return_url")

	// A card that declines now (it was fine when it was saved).
	declining := saveWithoutVerifying(t, e, u.BuyerID, insufficient)
	r = approve(c, declining, 5_000, "pay-api-4")
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	assert.Equal(t, "card_declined", r.str("status"))
	assert.Equal(t, "G012", r.str("result_code"))
	assert.Equal(t, gateway.ResultMessage(gateway.ResultInsufficientFunds), r.str("message"))

	// A card that asks for a challenge for every payment.
	challenge := saveWithoutVerifying(t, e, u.BuyerID, challengeNumber)
	r = approve(c, challenge, 5_000, "pay-api-5")
	require.Equal(t, http.StatusAccepted, r.Status, r.String())
	assert.Equal(t, "requires_action", r.str("status"))
	assert.True(t, strings.HasPrefix(r.str("challenge_url"), e.PSP.URL+"/3ds/"))
	back := e.PSP.Challenge(t, r.str("challenge_url"), true)
	assert.Equal(t, "/payments/waiting/1/creditcard?payment_id=pay-api-5", back)

	// Another buyer can use neither the card nor the payment id.
	other := webtest.NewBuyer(t, pay.Corporation, "")
	oc := e.signedInAs(t, other)
	assert.Equal(t, http.StatusNotFound, approve(oc, visa, 5_000, "pay-api-6").Status)
	mine := addCard(t, e, oc, visaNumber)
	r = approve(oc, mine, 110_000, "pay-api-1")
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, cards.MsgPaymentIDTaken, r.fieldErrors()["payment_id"])
	assert.Equal(t, http.StatusNotFound, oc.delete("/invoices/credit_cards/"+strconv.FormatInt(visa, 10)).Status)
	r = oc.get("/invoices/credit_cards")
	require.Len(t, r.Body["credit_cards"], 1)
	assert.EqualValues(t, mine, r.Body["credit_cards"].([]any)[0].(map[string]any)["id"])
	assert.Len(t, savedCards(t, u.BuyerID), 3, "nothing of the first buyer's changed")

	// An expired card is listed as such and cannot be chosen.
	old, err := webtest.Store().CreateCard(context.Background(), u.BuyerID, store.NewCard{Gateway: "sandbox", Ref: "card_old",
		Brand: pay.BrandJCB, Last4: "0000", ExpMonth: 1, ExpYear: 2020, Fingerprint: "fp_old"}, time.Now())
	require.NoError(t, err)
	r = approve(c, old.ID, 5_000, "pay-api-7")
	assert.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, cards.MsgExpiredChosen, r.fieldErrors()["credit_card_id"])
	for _, cd := range c.get("/invoices/credit_cards").Body["credit_cards"].([]any) {
		m := cd.(map[string]any)
		assert.Equal(t, m["id"] == float64(old.ID), m["expired"])
	}
}

// saveWithoutVerifying saves a test card the way a card saved earlier would be, without
// the verification that a declining card would fail today.
func saveWithoutVerifying(t *testing.T, e *env, buyerID int64, number string) int64 {
	t.Helper()
	gc, err := e.PSP.Client.SaveCard(context.Background(), e.PSP.CardToken(t, number))
	require.NoError(t, err)
	c, err := webtest.Store().CreateCard(context.Background(), buyerID, store.NewCard{Gateway: "sandbox", Ref: gc.Ref,
		Brand: gc.Brand, Last4: gc.Last4, ExpMonth: gc.ExpMonth, ExpYear: gc.ExpYear, HolderName: gc.Holder, Fingerprint: gc.Fingerprint}, time.Now())
	require.NoError(t, err)
	return c.ID
}

func TestResultMessages(t *testing.T) {
	c := newEnv(t).client(t)
	for _, code := range gateway.ResultCodes() {
		r := c.get("/v_result_message/" + string(code))
		require.Equal(t, http.StatusOK, r.Status, r.String())
		assert.Equal(t, string(code), r.str("id"))
		assert.Equal(t, gateway.ResultMessage(code), r.str("message"))
		assert.Equal(t, code.IsDecline(), r.Body["decline"])
	}
	assert.Equal(t, http.StatusNotFound, c.get("/v_result_message/G999").Status)
	assert.Equal(t, http.StatusNotFound, c.get("/v_result_message/%3Cscript%3E").Status)
}

// webhook posts body to the app's webhook URL with the given signature header.
func webhook(t *testing.T, e *env, signature string, body []byte) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.URL+api.WebhookPath, strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if signature != "" {
		req.Header.Set(sandbox.SignatureHeader, signature)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}

func TestWebhookIsVerifiedAndStoredOnce(t *testing.T) {
	e := newEnv(t)
	count := func(id string) (stored, processed int) {
		require.NoError(t, webtest.Store().DB.Get(&stored, `SELECT count(*) FROM psp_events WHERE event_id = $1`, id))
		require.NoError(t, webtest.Store().DB.Get(&processed, `SELECT count(*) FROM psp_events WHERE event_id = $1 AND processed_at IS NOT NULL`, id))
		return
	}
	body := []byte(`{"id":"evt_test_1","type":"payment.captured","created":1,"data":{"payment_id":"pay-unknown","status":"captured","result_code":"A001"}}`)
	now := e.clock.Now()

	assert.Equal(t, http.StatusBadRequest, webhook(t, e, "", body), "no signature")
	assert.Equal(t, http.StatusBadRequest, webhook(t, e, sandbox.Sign("wrong secret", body, now), body), "wrong secret")
	tampered := []byte(strings.Replace(string(body), "captured", "voided", 1))
	assert.Equal(t, http.StatusBadRequest, webhook(t, e, sandbox.Sign(webtest.PSPWebhookSecret, body, now), tampered), "tampered body")
	assert.Equal(t, http.StatusBadRequest, webhook(t, e, sandbox.Sign(webtest.PSPWebhookSecret, body, now.Add(-10*time.Minute)), body), "replayed after the window")
	stored, _ := count("evt_test_1")
	assert.Zero(t, stored, "nothing stored for a refused webhook")

	sig := sandbox.Sign(webtest.PSPWebhookSecret, body, now)
	assert.Equal(t, http.StatusOK, webhook(t, e, sig, body))
	require.Eventually(t, func() bool { _, p := count("evt_test_1"); return p == 1 }, 10*time.Second, 20*time.Millisecond)
	assert.Equal(t, http.StatusOK, webhook(t, e, sig, body), "a redelivery is a no-op 200")
	stored, processed := count("evt_test_1")
	assert.Equal(t, 1, stored)
	assert.Equal(t, 1, processed)
	var jobs int
	require.NoError(t, webtest.Store().DB.Get(&jobs, `SELECT count(*) FROM jobs WHERE kind = $1
		AND (payload->>'event_id')::bigint = (SELECT id FROM psp_events WHERE event_id = 'evt_test_1')`, cards.PSPEventJobKind))
	assert.Equal(t, 1, jobs, "one job for the event")

	// The webhook needs no session and passes the cross-origin check by its signature
	// alone: a GET is not a webhook.
	res, err := http.Get(e.URL + api.WebhookPath)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
}
