package payments_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// paidSentBackRequest is a request (50,000, the requester bearing the fee) the payer
// paid through the pages and screening then sent back.
func paidSentBackRequest(t *testing.T, p payer) int64 {
	t.Helper()
	ctx := context.Background()
	m := &keyMailer{}
	_, link := sendRequest(t, m, func(sub *invoices.RequestSubmission) { sub.FeeBearer = pay.FeeByRequester })
	p.c.Get(link)
	res := p.c.Get("/payments/waiting")
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	loc := res.Header.Get("Location")
	page := p.c.Get(loc)
	require.Equal(t, http.StatusOK, page.StatusCode)
	cards, err := webtest.Store().Cards(ctx, p.u.BuyerID)
	require.NoError(t, err)
	res = p.c.Post(loc, url.Values{"submit_key": {submitKeyOf(t, page.Body)}, "card_id": {strconv.FormatInt(cards[0].ID, 10)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	id, err := strconv.ParseInt(strings.TrimPrefix(res.Header.Get("Location"), "/payments/review/"), 10, 64)
	require.NoError(t, err)
	op, err := webtest.Store().CreateOperator(ctx, store.NewOperator{EmailAddress: fmt.Sprintf("op-sendback-%d@ops.test.example", id),
		Name: "審査 担当", PasswordHash: "hash", TOTPSecretSealed: "sealed", Roles: []string{pay.RoleScreening}})
	require.NoError(t, err)
	pm, err := p.env.App.Screening.SendBack(ctx, op, id, pay.SendBackOther, "請求書番号が違います")
	require.NoError(t, err)
	require.Equal(t, pay.InvoiceRequestBuyer, pm.InvoiceType)
	require.True(t, pm.ActionRequired)
	return id
}

// apiGet calls the API as the pages' islands do (cookie mode).
func apiGet(t *testing.T, p payer, path string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, p.c.Base+"/api/v1"+path, nil)
	require.NoError(t, err)
	req.Header.Set("X-Requested-With", "fetch")
	res := p.c.Do(req)
	require.Equal(t, http.StatusOK, res.StatusCode, res.Body)
	var body map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.Body), &body))
	return body
}

// A request's customer-side payment sent back by screening needs its customer: counted
// in the tabs and the API as 要対応, and listed in the action-required list.
func TestASentBackRequestPaymentIsCountedAndListed(t *testing.T) {
	p := newPayer(t, "4111111111111111")
	id := paidSentBackRequest(t, p)

	st, err := webtest.Store().Stats(context.Background(), p.u.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, pay.PaymentCounts{ActionRequired: 1}, st.Payments)
	review := p.c.Get("/payments/review")
	require.Equal(t, http.StatusOK, review.StatusCode)
	assert.Contains(t, review.Body, "要対応 1", "the 審査中 tab's badge")

	ar := apiGet(t, p, "/invoices?bucket=action_required")
	assert.Equal(t, float64(1), ar["total_count"])
	assert.Equal(t, float64(1), ar["total_count_is_action_required"])
	require.Len(t, ar["invoices"], 1)
	assert.Equal(t, float64(id), ar["invoices"].([]any)[0].(map[string]any)["id"])
	all := apiGet(t, p, "/invoices?bucket=review")
	assert.Equal(t, float64(1), all["total_count"])
	assert.Equal(t, float64(1), all["total_count_is_action_required"])
}

// The 審査中 page's list (pay.BucketReviewAll) takes the action-required bucket's types
// from pay, so a sent-back request payment is listed first with its action.
func TestASentBackRequestPaymentIsOnTheReviewPage(t *testing.T) {
	p := newPayer(t, "4111111111111111")
	id := paidSentBackRequest(t, p)
	review := p.c.Get("/payments/review")
	require.Equal(t, http.StatusOK, review.StatusCode)
	assert.Contains(t, review.Body, `href="/payments/review/`+strconv.FormatInt(id, 10)+`"`)
	all := apiGet(t, p, "/invoices?bucket=review")
	require.Len(t, all["invoices"], 1)
}

// Correcting a sent-back request: the amount the requester asked for cannot change (the
// form, the confirm page and the API say so next to the amount); the fee the requester
// bears stays theirs.
func TestCorrectingASentBackRequestKeepsItsAmount(t *testing.T) {
	ctx := context.Background()
	p := newPayer(t, "4111111111111111")
	id := paidSentBackRequest(t, p)
	sid := strconv.FormatInt(id, 10)
	before, err := webtest.Store().Payment(ctx, p.u.BuyerID, id)
	require.NoError(t, err)
	require.Equal(t, int64(0), before.Fee)
	require.Equal(t, int64(50000), before.AuthorizedAmount)

	form := p.c.Get("/payments/edit/" + sid + "/invoiceinfo")
	require.Equal(t, http.StatusOK, form.StatusCode)
	fields := url.Values{"amount": {"60000"}, "invoice_number": {"REQ-8"}, "due_date": {pay.ISODate(*before.DueDate)},
		"transfer_date": {pay.ISODate(*before.TransferDate)}}
	res := p.c.Post("/payments/edit/"+sid+"/invoiceinfo", fields)
	webtest.AssertFieldError(t, res, "amount", invoices.MsgRequestAmountFixed)

	// The API's correction: 422 on the amount.
	body, _ := json.Marshal(map[string]any{"invoice": map[string]any{"amount": "60000", "invoice_number": "REQ-8",
		"due_date": pay.ISODate(*before.DueDate), "transfer_date": pay.ISODate(*before.TransferDate)}})
	req, err := http.NewRequest(http.MethodPut, p.c.Base+"/api/v1/invoices/"+sid, strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Requested-With", "fetch")
	req.Header.Set("Origin", p.c.Base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	api := p.c.Do(req)
	require.Equal(t, http.StatusUnprocessableEntity, api.StatusCode, api.Body)
	var answer struct {
		Errors pay.FieldErrors `json:"errors"`
	}
	require.NoError(t, json.Unmarshal([]byte(api.Body), &answer))
	assert.Equal(t, invoices.MsgRequestAmountFixed, answer.Errors.For("amount"))
	unchanged, err := webtest.Store().Payment(ctx, p.u.BuyerID, id)
	require.NoError(t, err)
	assert.True(t, unchanged.ActionRequired)
	assert.Equal(t, "REQ-7", unchanged.InvoiceNumber)

	// The same amount: the fee stays the requester's, no new authorisation.
	fields.Set("amount", "50000")
	res = p.c.Post("/payments/edit/"+sid+"/invoiceinfo", fields)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	confirm := p.c.Get("/payments/edit/" + sid + "/confirm")
	require.Equal(t, http.StatusOK, confirm.StatusCode)
	assert.Contains(t, confirm.Body, "依頼元が負担")
	assert.Contains(t, confirm.Body, "<strong>¥50,000</strong>")
	assert.NotContains(t, confirm.Body, "新しい金額でカードの与信を行い")
	res = p.c.Post("/payments/edit/"+sid+"/confirm", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	after, err := webtest.Store().Payment(ctx, p.u.BuyerID, id)
	require.NoError(t, err)
	assert.False(t, after.ActionRequired)
	assert.Equal(t, "REQ-8", after.InvoiceNumber)
	assert.Equal(t, int64(0), after.Fee)
	assert.Equal(t, int64(50000), after.AuthorizedAmount)
	assert.Equal(t, before.PaymentRef, after.PaymentRef)
}
