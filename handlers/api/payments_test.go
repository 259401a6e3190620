package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/calendar"
	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

// payingBuyer is a signed-in API client with a supplier, its account and a saved card.
type payingBuyer struct {
	c                       *client
	u                       store.User
	supplier, account, card int64
}

func newPayingBuyer(t *testing.T, e *env, cardNumber string) payingBuyer {
	t.Helper()
	ctx := context.Background()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := e.client(t)
	c.login(u.EmailAddress)
	sup, err := webtest.Store().CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation, Name: "株式会社APIテスト",
		NameKana: "エーピーアイテスト", CorporateNumber: "1180301018771"}, &store.AccountFields{BankCode: "0001", BankName: "みずほ",
		BranchCode: "001", BranchName: "東京営業部", AccountType: pay.AccountOrdinary, AccountNumber: "1234567", HolderName: "ｶ)ｴ-ﾋﾟ-ｱｲ"})
	require.NoError(t, err)
	accts, err := webtest.Store().SupplierAccounts(ctx, u.BuyerID, sup.ID)
	require.NoError(t, err)
	b := payingBuyer{c: c, u: u, supplier: sup.ID, account: accts[0].ID}
	if cardNumber != "" {
		b.card = addCard(t, e, c, cardNumber)
	}
	return b
}

func apiDates() (transfer, due string) {
	d := pay.EarliestTransferDate(time.Now()).AddDate(0, 0, 7)
	for calendar.IsBankHoliday(d) {
		d = d.AddDate(0, 0, 1)
	}
	return pay.ISODate(d), pay.ISODate(d.AddDate(0, 0, 7))
}

func (b payingBuyer) flow(amount string) map[string]any {
	transfer, due := apiDates()
	return map[string]any{"supplier_id": b.supplier, "account_id": b.account, "card_id": b.card,
		"invoice": map[string]any{"amount": amount, "due_date": due, "transfer_date": transfer, "invoice_number": "API-1"}}
}

func (b payingBuyer) submit(key string, body any) result {
	b.c.headers["Idempotency-Key"] = key
	defer delete(b.c.headers, "Idempotency-Key")
	return b.c.post("/invoices", body)
}

func id(r result) string { return fmt.Sprint(int64(r.num("id"))) }

func TestSubmitListAndReadInvoices(t *testing.T) {
	e := newEnv(t)
	b := newPayingBuyer(t, e, "4111111111111111")
	r := b.submit("k-1", b.flow("100000"))
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	assert.Equal(t, float64(103000), r.num("total"))
	assert.Equal(t, float64(pay.InProgress), r.num("status"))
	// The same key again: the same invoice, one authorisation.
	again := b.submit("k-1", b.flow("100000"))
	require.Equal(t, http.StatusCreated, again.Status, again.String())
	assert.Equal(t, r.num("id"), again.num("id"))
	var auths int
	require.NoError(t, webtest.Store().DB.Get(&auths, `SELECT count(*) FROM sandbox_authorizations a JOIN invoices i ON i.payment_ref = a.payment_id WHERE i.buyer_id = $1`, b.u.BuyerID))
	assert.Equal(t, 1, auths)
	// No key: refused.
	assert.Equal(t, http.StatusBadRequest, b.c.post("/invoices", b.flow("100000")).Status)

	list := b.c.get("/invoices?bucket=review&page=0&size=20")
	require.Equal(t, http.StatusOK, list.Status, list.String())
	assert.Equal(t, float64(1), list.num("total_count"))
	stats := b.c.get("/invoices?bucket=history&page=0&size=1")
	assert.Equal(t, float64(0), stats.num("total_count"))
	one := b.c.get("/invoices/" + id(r) + "?invoice_display_type=payment")
	require.Equal(t, http.StatusOK, one.Status, one.String())
	assert.Equal(t, pay.InvoiceNumber(int64(r.num("id"))), one.str("invoice_number_display"))
	assert.Equal(t, "1111", one.Body["card"].(map[string]any)["last4"])
	assert.Len(t, one.Body["events"], 1)
	assert.Equal(t, http.StatusNotFound, b.c.get("/invoices/"+id(r)+"?invoice_display_type=request_buyer").Status)

	// Sent back: in action_required, with the count; corrected (same amount) → 審査中 again.
	_, err := webtest.Store().Transition(context.Background(), b.u.BuyerID, int64(r.num("id")), pay.ActSendBack, "operator:1", "請求書番号が違います", time.Now(), nil)
	require.NoError(t, err)
	ar := b.c.get("/invoices?bucket=action_required")
	assert.Equal(t, float64(1), ar.num("total_count"))
	assert.Equal(t, float64(1), ar.num("total_count_is_action_required"))
	transfer, due := apiDates()
	fixed := b.c.put("/invoices/"+id(r), map[string]any{"invoice": map[string]any{"amount": "100000", "due_date": due, "transfer_date": transfer, "invoice_number": "API-2"}})
	require.Equal(t, http.StatusOK, fixed.Status, fixed.String())
	assert.Equal(t, "API-2", fixed.str("invoice_number"))
	assert.False(t, fixed.Body["action_required"].(bool))
	// Not sent back any more: 409.
	assert.Equal(t, http.StatusConflict, b.c.put("/invoices/"+id(r), map[string]any{"invoice": map[string]any{"amount": "100000", "due_date": due, "transfer_date": transfer}}).Status)

	// Cancel, then again: 409.
	c := b.c.put("/invoices/"+id(r)+"/cancel", nil)
	require.Equal(t, http.StatusOK, c.Status, c.String())
	assert.Equal(t, float64(pay.Cancel), c.num("status"))
	assert.Equal(t, http.StatusConflict, b.c.put("/invoices/"+id(r)+"/cancel", nil).Status)

	// Another buyer: 404 everywhere, and nothing listed.
	other := newPayingBuyer(t, e, "")
	for _, call := range []result{
		other.c.get("/invoices/" + id(r)), other.c.put("/invoices/"+id(r)+"/cancel", nil),
		other.c.put("/invoices/"+id(r), map[string]any{"invoice": map[string]any{"amount": "1000"}}),
		other.c.get("/invoices/commission?invoice_id=" + id(r)),
	} {
		assert.Equal(t, http.StatusNotFound, call.Status, call.String())
	}
	assert.Equal(t, float64(0), other.c.get("/invoices?bucket=history").num("total_count"))
	theirs := other.flow("5000")
	theirs["supplier_id"], theirs["account_id"] = b.supplier, b.account
	assert.Equal(t, http.StatusNotFound, other.submit("x", theirs).Status)
}

func TestSubmitRefusals(t *testing.T) {
	e := newEnv(t)
	b := newPayingBuyer(t, e, "4111111111111111")
	bad := b.flow("12.5")
	bad["invoice"].(map[string]any)["transfer_date"] = "2020-01-01"
	r := b.submit("bad", bad)
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.Equal(t, "validation_error", r.str("status"))
	assert.Equal(t, "請求金額は半角数字で、円単位で入力してください（例：123456）", r.fieldErrors()["amount"])
	// A declined card: card_declined with the code, and nothing listed.
	r = b.submit("decline", b.flow("100050"))
	require.Equal(t, http.StatusUnprocessableEntity, r.Status, r.String())
	assert.Equal(t, "card_declined", r.str("status"))
	assert.Equal(t, "G012", r.str("result_code"))
	assert.Equal(t, float64(0), b.c.get("/invoices?bucket=review").num("total_count"))
	// A new account that does not check out names its field.
	f := b.flow("5000")
	f["is_new_account"] = true
	f["new_account"] = map[string]any{"bank_code": "0001", "branch_code": "001", "account_type": 2, "account_number": "12", "holder_name": "ｱ"}
	r = b.submit("acct", f)
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	assert.NotEmpty(t, r.fieldErrors()["new_account.account_number"])
	// A challenge: 202 with the PSP's page.
	c3 := newPayingBuyer(t, e, "")
	r = c3.c.post("/invoices/credit_cards", map[string]any{"token": e.PSP.CardToken(t, "4000000000003220")})
	require.Equal(t, http.StatusAccepted, r.Status, r.String())
	back := e.PSP.Challenge(t, r.str("challenge_url"), true)
	c3.c.cookieSignIn(c3.u)
	require.Equal(t, http.StatusSeeOther, c3.c.browser.Get(back).StatusCode)
	c3.card = savedCards(t, c3.u.BuyerID)[0].ID
	r = c3.submit("3ds", c3.flow("20000"))
	require.Equal(t, http.StatusAccepted, r.Status, r.String())
	assert.Equal(t, "requires_action", r.str("status"))
	assert.Contains(t, r.str("action_url"), e.PSP.URL)
}

func TestCommissionAndPromotion(t *testing.T) {
	e := newEnv(t)
	b := newPayingBuyer(t, e, "4111111111111111")
	r := b.c.get("/invoices/commission?amount=1033")
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.Equal(t, float64(30), r.num("fee"), "rounded down")
	assert.Equal(t, float64(1063), r.num("total"))
	assert.Equal(t, http.StatusUnprocessableEntity, b.c.get("/invoices/commission?amount=999").Status)
	assert.Equal(t, http.StatusUnprocessableEntity, b.c.get("/invoices/commission?amount=abc").Status)
	require.NoError(t, webtest.Store().CreatePromotion(context.Background(), pay.Promotion{Code: "APIHALF", DiscountBasisPoints: 150,
		ValidFrom: time.Now().Add(-time.Hour), ValidTo: time.Now().Add(time.Hour)}))
	p := b.c.post("/invoices/promotion", map[string]any{"promotion_code": "apihalf", "amount": 100000})
	require.Equal(t, http.StatusOK, p.Status, p.String())
	assert.Equal(t, float64(1500), p.Body["commission"].(map[string]any)["fee"])
	r = b.c.get("/invoices/commission?amount=100000&promotion_code=APIHALF")
	assert.Equal(t, float64(1500), r.num("discount"))
	unknown := b.c.post("/invoices/promotion", map[string]any{"promotion_code": "NOPE"})
	require.Equal(t, http.StatusUnprocessableEntity, unknown.Status)
	assert.Equal(t, pay.MsgPromotionUnknown, unknown.fieldErrors()["promotion_code"])
	f := b.flow("100000")
	f["promotion_code"] = "APIHALF"
	require.Equal(t, http.StatusCreated, b.submit("promo", f).Status)
	used := b.c.post("/invoices/promotion", map[string]any{"promotion_code": "APIHALF"})
	assert.Equal(t, pay.MsgPromotionUsed, used.fieldErrors()["promotion_code"], "once per buyer")
}

func TestDraftsAPI(t *testing.T) {
	e := newEnv(t)
	b := newPayingBuyer(t, e, "")
	r := b.c.post("/drafts", map[string]any{"supplier_id": b.supplier, "invoice": map[string]any{"amount": "12345"}, "step": "/payments/add/invoice"})
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	d := id(r)
	list := b.c.get("/drafts?page=0&size=1")
	require.Equal(t, http.StatusOK, list.Status)
	assert.Equal(t, float64(1), list.num("count"))
	one := b.c.get("/drafts/" + d)
	require.Equal(t, http.StatusOK, one.Status, one.String())
	assert.Equal(t, "12345", one.Body["invoice"].(map[string]any)["amount"])
	assert.Equal(t, "/payments/add/invoice", one.str("step"))
	up := b.c.put("/drafts/"+d, map[string]any{"supplier_id": b.supplier, "invoice": map[string]any{"amount": "54321"}})
	require.Equal(t, http.StatusOK, up.Status, up.String())
	assert.Equal(t, "54321", up.Body["invoice"].(map[string]any)["amount"])
	assert.Equal(t, http.StatusUnprocessableEntity, b.c.post("/drafts", map[string]any{"step": "/elsewhere"}).Status)

	// The pages resume it.
	b.c.cookieSignIn(b.u)
	res := b.c.browser.Get("/payments/draft/" + d)
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)

	other := newPayingBuyer(t, e, "")
	assert.Equal(t, http.StatusNotFound, other.c.get("/drafts/"+d).Status)
	assert.Equal(t, http.StatusNotFound, other.c.put("/drafts/"+d, map[string]any{}).Status)
	gone := other.c.call(http.MethodDelete, "/drafts", map[string]any{"drafts": []int64{int64(r.num("id"))}})
	require.Equal(t, http.StatusOK, gone.Status, gone.String())
	assert.Equal(t, float64(0), gone.num("deleted"), "another buyer's ids are ignored")
	assert.Equal(t, http.StatusUnprocessableEntity, b.c.call(http.MethodDelete, "/drafts", map[string]any{"drafts": []int64{}}).Status)
	del := b.c.call(http.MethodDelete, "/drafts", map[string]any{"drafts": []int64{int64(r.num("id"))}})
	assert.Equal(t, float64(1), del.num("deleted"))
	assert.Equal(t, float64(0), b.c.get("/drafts").num("count"))
}
