package api_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

// A requester sends through the API, the customer reads the key from the mail, looks it
// up, links it and pays; the requester reads and lists it; a third buyer sees nothing.
func TestCollectionsThroughTheAPI(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ru := webtest.NewBuyer(t, pay.Corporation, "4180001099993")
	rq := e.client(t)
	rq.login(ru.EmailAddress)
	buyerPath := fmt.Sprintf("/buyers/%d/accounts", ru.BuyerID)

	// The receiving account: added, listed, refused twice and for another buyer's path.
	acct := map[string]any{"bank_code": "0005", "branch_code": "001", "account_type": 2, "account_number": "2223334", "holder_name": "ｶ)ｲﾗｲﾓﾄ"}
	r := rq.post(buyerPath, acct)
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	accountID := int64(r.num("id"))
	assert.Equal(t, "三菱ＵＦＪ銀行", r.str("bank_name"))
	assert.Equal(t, http.StatusUnprocessableEntity, rq.post(buyerPath, acct).Status)
	assert.Equal(t, http.StatusNotFound, rq.get(fmt.Sprintf("/buyers/%d/accounts", ru.BuyerID+1000)).Status)
	r = rq.get(buyerPath)
	require.Equal(t, http.StatusOK, r.Status)
	assert.Len(t, r.Body["accounts"], 1)

	flow := map[string]any{"account_id": accountID, "request": map[string]any{"customer_name": "株式会社お客さま",
		"customer_email": "keiri-api@customer.example", "amount": "80000", "deadline": pay.ISODate(time.Now().AddDate(0, 0, 15)),
		"invoice_number": "API-REQ"}}
	assert.Equal(t, http.StatusBadRequest, rq.post("/invoices/request_sellers", flow).Status, "an Idempotency-Key is required")
	rq.headers["Idempotency-Key"] = "send-1"
	bad := rq.post("/invoices/request_sellers", map[string]any{"account_id": accountID, "request": map[string]any{"amount": "x"}})
	require.Equal(t, http.StatusUnprocessableEntity, bad.Status, bad.String())
	assert.NotEmpty(t, bad.fieldErrors()["amount"])
	assert.NotEmpty(t, bad.fieldErrors()["customer_email"])
	r = rq.post("/invoices/request_sellers", flow)
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	reqID := int64(r.num("id"))
	assert.Equal(t, float64(1), r.num("status"))
	assert.Equal(t, float64(3), r.num("invoice_type"))
	assert.Equal(t, float64(82400), r.num("customer_charge"))
	again := rq.post("/invoices/request_sellers", flow)
	require.Equal(t, http.StatusCreated, again.Status)
	assert.Equal(t, float64(reqID), again.num("id"), "the same key: the same request")
	delete(rq.headers, "Idempotency-Key")

	r = rq.get("/invoices/request_sellers?status=request&page=0&size=1")
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, float64(1), r.num("total_count_invoice_requests"))
	assert.Equal(t, float64(0), rq.get("/invoices/request_sellers?status=history").num("total_count_invoice_requests"))
	assert.Equal(t, http.StatusUnprocessableEntity, rq.get("/invoices/request_sellers?status=everything").Status)

	// The mail's key.
	m := e.Mail.WaitFor(t, "keiri-api@customer.example", 10*time.Second)
	key := regexp.MustCompile(`/payments/request/([A-Za-z0-9_-]{43})`).FindStringSubmatch(m.Text)
	require.NotNil(t, key, m.Text)

	cu := webtest.NewBuyer(t, pay.SoleProprietor, "")
	cs := e.client(t)
	cs.login(cu.EmailAddress)
	card := addCard(t, e, cs, "4111111111111111")
	r = cs.get("/invoices/request_keys/" + key[1])
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, float64(1), r.num("key_status"))
	assert.Equal(t, false, r.Body["is_used"])
	assert.Nil(t, r.Body["invoice_id"])
	assert.Equal(t, float64(3), cs.get("/invoices/request_keys/not-a-key").num("key_status"))
	assert.Equal(t, http.StatusUnprocessableEntity, cs.post("/invoices/request_keys", map[string]any{}).Status)
	r = cs.post("/invoices/request_keys", map[string]any{"request_key": key[1]})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	payID := int64(r.num("invoice_id"))
	assert.Equal(t, pay.InvoiceNumber(payID), r.str("buyer_document_number"))
	r = cs.get("/invoices/request_keys/" + key[1])
	assert.Equal(t, true, r.Body["is_used"])
	assert.Equal(t, float64(payID), r.num("invoice_id"))

	// A third buyer: the used key is refused with the server's message (status "2").
	tu := webtest.NewBuyer(t, pay.Corporation, "2010401099991")
	th := e.client(t)
	th.login(tu.EmailAddress)
	r = th.post("/invoices/request_keys", map[string]any{"request_key": key[1]})
	require.Equal(t, http.StatusBadRequest, r.Status, r.String())
	assert.Equal(t, "2", r.str("status"))
	assert.Contains(t, r.str("message"), "既に別のアカウントで受け取られています")
	assert.Nil(t, th.get("/invoices/request_keys/" + key[1]).Body["invoice_id"])
	assert.Equal(t, http.StatusNotFound, th.get(fmt.Sprintf("/invoices/%d/request_seller", reqID)).Status)
	assert.Equal(t, http.StatusNotFound, th.put(fmt.Sprintf("/invoices/%d/request_seller/cancel", reqID), nil).Status)
	th.headers["Idempotency-Key"] = "steal"
	assert.Equal(t, http.StatusNotFound, th.put(fmt.Sprintf("/invoices/%d/requestbuyer", payID), map[string]any{"card_id": card}).Status)

	// The customer pays: once, whatever the number of calls.
	assert.Equal(t, http.StatusBadRequest, cs.put(fmt.Sprintf("/invoices/%d/requestbuyer", payID), map[string]any{"card_id": card}).Status)
	cs.headers["Idempotency-Key"] = "pay-1"
	assert.Equal(t, http.StatusBadRequest, cs.put(fmt.Sprintf("/invoices/%d/requestbuyer", payID), map[string]any{"card_id": "x"}).Status)
	assert.Equal(t, http.StatusUnprocessableEntity, cs.put(fmt.Sprintf("/invoices/%d/requestbuyer", payID), map[string]any{"card_id": 0}).Status)
	r = cs.put(fmt.Sprintf("/invoices/%d/requestbuyer", payID), map[string]any{"card_id": card})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, float64(1), r.num("status"))
	assert.Equal(t, float64(2), r.num("invoice_type"))
	r = cs.put(fmt.Sprintf("/invoices/%d/requestbuyer", payID), map[string]any{"card_id": card})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	pm, err := webtest.Store().Payment(ctx, cu.BuyerID, payID)
	require.NoError(t, err)
	assert.Equal(t, int64(82400), pm.AuthorizedAmount)

	// The requester's view: 審査中 (3), the timeline, too late to cancel.
	r = rq.get(fmt.Sprintf("/invoices/%d/request_seller", reqID))
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, float64(3), r.num("status"))
	assert.Len(t, r.Body["events"], 3)
	assert.NotNil(t, r.Body["paid_at"])
	r = rq.put(fmt.Sprintf("/invoices/%d/request_seller/cancel", reqID), nil)
	assert.Equal(t, http.StatusConflict, r.Status, r.String())
}

func TestCancelledKeysAndRequesterRefusals(t *testing.T) {
	e := newEnv(t)
	ru := webtest.NewBuyer(t, pay.Corporation, "4180001099993")
	rq := e.client(t)
	rq.login(ru.EmailAddress)
	a, err := webtest.Store().CreateBuyerAccount(context.Background(), ru.BuyerID, store.AccountFields{BankCode: "0001", BankName: "みずほ銀行",
		BranchCode: "001", BranchName: "東京営業部", AccountType: pay.AccountOrdinary, AccountNumber: "3334445", HolderName: "ｶ)ｲﾗｲﾓﾄ"})
	require.NoError(t, err)
	rq.headers["Idempotency-Key"] = "cancel-me"
	r := rq.post("/invoices/request_sellers", map[string]any{"account_id": a.ID, "request": map[string]any{"customer_name": "株式会社取消",
		"customer_email": "cancel-api@customer.example", "amount": "9000", "deadline": pay.ISODate(time.Now().AddDate(0, 0, 5))}})
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	id := int64(r.num("id"))
	m := e.Mail.WaitFor(t, "cancel-api@customer.example", 10*time.Second)
	key := regexp.MustCompile(`/payments/request/([A-Za-z0-9_-]{43})`).FindStringSubmatch(m.Text)[1]
	r = rq.put(fmt.Sprintf("/invoices/%d/request_seller/cancel", id), nil)
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, float64(7), r.num("status"))
	assert.Equal(t, http.StatusConflict, rq.put(fmt.Sprintf("/invoices/%d/request_seller/cancel", id), nil).Status)

	cs := e.client(t)
	cs.login(webtest.NewBuyer(t, pay.SoleProprietor, "").EmailAddress)
	assert.Equal(t, float64(2), cs.get("/invoices/request_keys/"+key).num("key_status"), "a cancelled request's key is expired")
	r = cs.post("/invoices/request_keys", map[string]any{"request_key": key})
	require.Equal(t, http.StatusBadRequest, r.Status)
	assert.NotEqual(t, "2", r.str("status"), "the client's own dialog")

	// Sole proprietors and excluded corporations may not request: 403, nothing written.
	for _, u := range []store.User{webtest.NewBuyer(t, pay.SoleProprietor, ""), webtest.NewBuyer(t, pay.Corporation, "2000012010019")} {
		c := e.client(t)
		c.login(u.EmailAddress)
		c.headers["Idempotency-Key"] = "refused"
		bp := fmt.Sprintf("/buyers/%d/accounts", u.BuyerID)
		for _, res := range []result{
			c.post("/invoices/request_sellers", map[string]any{"request": map[string]any{"customer_name": "x"}}),
			c.get("/invoices/request_sellers"),
			c.post(bp, map[string]any{"bank_code": "0001", "branch_code": "001", "account_type": 2, "account_number": "1112223", "holder_name": "ﾃｽﾄ"}),
			c.get(bp),
			c.post("/invoice_request_drafts", map[string]any{"request": map[string]any{"customer_name": "x"}}),
			c.get("/invoice_request_drafts"),
		} {
			assert.Equal(t, http.StatusForbidden, res.Status, res.String())
		}
		_, total, err := webtest.Store().Requests(context.Background(), store.RequestFilter{RequesterID: u.BuyerID})
		require.NoError(t, err)
		assert.Zero(t, total)
		accts, err := webtest.Store().BuyerAccounts(context.Background(), u.BuyerID)
		require.NoError(t, err)
		assert.Empty(t, accts)
		_, n, err := webtest.Store().Drafts(context.Background(), u.BuyerID, store.RequestDraft, 0, 0)
		require.NoError(t, err)
		assert.Zero(t, n)
	}
}

func TestRequestDraftsAPI(t *testing.T) {
	e := newEnv(t)
	ru := webtest.NewBuyer(t, pay.Corporation, "4180001099993")
	c := e.client(t)
	c.login(ru.EmailAddress)
	r := c.post("/invoice_request_drafts", map[string]any{"request": map[string]any{"customer_name": "株式会社下書き", "amount": "7,000"},
		"step": "/collections/add/bank"})
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	id := int64(r.num("id"))
	assert.Equal(t, http.StatusUnprocessableEntity, c.post("/invoice_request_drafts", map[string]any{"step": "/elsewhere"}).Status)
	r = c.get(fmt.Sprintf("/invoice_request_drafts/%d", id))
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, "/collections/add/bank", r.str("step"))
	r = c.put(fmt.Sprintf("/invoice_request_drafts/%d", id), map[string]any{"request": map[string]any{"customer_name": "株式会社更新"}, "fee_bearer": "requester"})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, "requester", r.str("fee_bearer"))
	r = c.get("/invoice_request_drafts")
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, float64(1), r.num("count"))

	other := e.client(t)
	other.login(webtest.NewBuyer(t, pay.Corporation, "2010401099991").EmailAddress)
	assert.Equal(t, http.StatusNotFound, other.get(fmt.Sprintf("/invoice_request_drafts/%d", id)).Status)
	r = other.call(http.MethodDelete, "/invoice_request_drafts", map[string]any{"invoice_request_drafts": []int64{id}})
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, float64(0), r.num("deleted"), "another buyer's ids are ignored")

	assert.Equal(t, http.StatusUnprocessableEntity, c.call(http.MethodDelete, "/invoice_request_drafts", map[string]any{}).Status)
	r = c.call(http.MethodDelete, "/invoice_request_drafts", map[string]any{"invoice_request_drafts": []int64{id}})
	require.Equal(t, http.StatusOK, r.Status)
	assert.Equal(t, float64(1), r.num("deleted"))
}

// SPEC.md §3 keyStatus: a key is valid (1) to the end of its request's deadline day in
// Japan and expired (2) from the next midnight there, before the daily job has expired
// the request; a key that matches nothing is invalid (3). is_used stays false until it
// is linked.
func TestAKeyExpiresAfterItsDeadlineDay(t *testing.T) {
	e := newEnv(t)
	e.clock.Set(time.Date(2026, 12, 1, 10, 0, 0, 0, pay.Tokyo()))
	ru := webtest.NewBuyer(t, pay.Corporation, "4180001099993")
	rq := e.client(t)
	rq.login(ru.EmailAddress)
	a, err := webtest.Store().CreateBuyerAccount(context.Background(), ru.BuyerID, store.AccountFields{BankCode: "0001", BankName: "みずほ銀行",
		BranchCode: "001", BranchName: "東京営業部", AccountType: pay.AccountOrdinary, AccountNumber: "3334446", HolderName: "ｶ)ｲﾗｲﾓﾄ"})
	require.NoError(t, err)
	rq.headers["Idempotency-Key"] = "expire-me"
	r := rq.post("/invoices/request_sellers", map[string]any{"account_id": a.ID, "request": map[string]any{"customer_name": "株式会社期限",
		"customer_email": "expiry-api@customer.example", "amount": "9000", "deadline": "2026-12-10"}})
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	m := e.Mail.WaitFor(t, "expiry-api@customer.example", 10*time.Second)
	key := regexp.MustCompile(`/payments/request/([A-Za-z0-9_-]{43})`).FindStringSubmatch(m.Text)[1]

	cu := webtest.NewBuyer(t, pay.SoleProprietor, "")
	for _, tc := range []struct {
		at   time.Time
		want float64
	}{
		{time.Date(2026, 12, 10, 23, 59, 59, 0, pay.Tokyo()), 1},
		// 15:00 UTC on the 10th is midnight of the 11th in Japan.
		{time.Date(2026, 12, 10, 15, 0, 0, 0, time.UTC), 2},
		{time.Date(2026, 12, 20, 9, 0, 0, 0, pay.Tokyo()), 2},
	} {
		e.clock.Set(tc.at)
		cs := e.client(t)
		cs.login(cu.EmailAddress)
		r = cs.get("/invoices/request_keys/" + key)
		require.Equal(t, http.StatusOK, r.Status, r.String())
		assert.Equal(t, tc.want, r.num("key_status"), "at %s", tc.at)
		assert.Equal(t, false, r.Body["is_used"])
		assert.Equal(t, float64(3), cs.get("/invoices/request_keys/"+otherKey(key)).num("key_status"), "an unknown key")
	}
	cs := e.client(t)
	cs.login(cu.EmailAddress)
	r = cs.post("/invoices/request_keys", map[string]any{"request_key": key})
	require.Equal(t, http.StatusBadRequest, r.Status, r.String())
	assert.NotEqual(t, "2", r.str("status"), "an expired key: the client's own dialog")
}

// otherKey is a well-formed key that differs from key in its last character.
func otherKey(key string) string {
	if strings.HasSuffix(key, "A") {
		return key[:42] + "B"
	}
	return key[:42] + "A"
}
