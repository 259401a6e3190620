package ops_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/invoices"
	"cardpay/pay"
)

// Once a payment is in a transfer file the buyer can no longer cancel it: the page says
// why and offers no link, the cancel page and action refuse, and the API says so.
func TestABuyerCannotCancelAFiledPayment(t *testing.T) {
	ctx := context.Background()
	env := webtest.New(t)
	p := newPaid(t, env)
	pm := screened(t, env, p)
	apart(t, p, 5)
	pm, err := webtest.Store().Payment(ctx, p.u.BuyerID, pm.ID)
	require.NoError(t, err)
	page := fmt.Sprintf("/payments/reserved/%d", pm.ID)
	before := p.c.Get(page)
	require.Equal(t, http.StatusOK, before.StatusCode, before.Body)
	assert.Contains(t, before.Body, page+"/cancel", "before the file: the cancel link")
	assert.NotContains(t, before.Body, invoices.MsgCannotCancel)

	_, err = env.App.Transfers.MakeTransferFile(ctx, newOperator(t, env, pay.RoleTransfers), *pm.TransferDate, env.App.Remitter)
	require.NoError(t, err)

	after := p.c.Get(page)
	require.Equal(t, http.StatusOK, after.StatusCode)
	assert.NotContains(t, after.Body, page+"/cancel", "no cancel link")
	assert.Contains(t, after.Body, invoices.MsgCannotCancel, "the reason, on the page")
	res := p.c.Get(page + "/cancel")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode, "the question is not asked")
	res = p.c.Post(page+"/cancel", nil)
	assert.Contains(t, []int{http.StatusSeeOther, http.StatusUnprocessableEntity}, res.StatusCode)
	cur, err := webtest.Store().Payment(ctx, p.u.BuyerID, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.InProgressExaminationCompleted, cur.ExaminationStatus, "nothing changed")
	assert.Equal(t, pay.TransferFiled, cur.TransferState)

	// The API, in cookie mode as the islands call it.
	api := func(method, path string) (int, map[string]any) {
		req, err := http.NewRequest(method, p.c.Base+"/api/v1"+path, nil)
		require.NoError(t, err)
		req.Header.Set("X-Requested-With", "fetch")
		req.Header.Set("Origin", p.c.Base)
		r := p.c.Do(req)
		var body map[string]any
		_ = json.Unmarshal([]byte(r.Body), &body)
		return r.StatusCode, body
	}
	status, body := api(http.MethodGet, fmt.Sprintf("/invoices/%d", pm.ID))
	require.Equal(t, http.StatusOK, status, body)
	inv, _ := body["invoice"].(map[string]any)
	if inv == nil {
		inv = body
	}
	assert.Equal(t, false, inv["cancelable"])
	assert.Equal(t, invoices.MsgCannotCancel, inv["cancel_refusal"])
	assert.NotContains(t, after.Body, pay.ActFile.Label(), "the file's own step is the operators'")
	ops := signIn(t, env, newOperator(t, env, pay.RoleScreening))
	assert.Contains(t, ops.Get(fmt.Sprintf("/ops/screening/%d", pm.ID)).Body, pay.ActFile.Label(), "the operators see it")
	status, body = api(http.MethodPut, fmt.Sprintf("/invoices/%d/cancel", pm.ID))
	assert.GreaterOrEqual(t, status, 400, body)
	assert.Contains(t, fmt.Sprint(body), invoices.MsgCannotCancel)
	cur, err = webtest.Store().Payment(ctx, p.u.BuyerID, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.TransferFiled, cur.TransferState, "nothing changed")
	assert.Equal(t, pay.CardCaptured, cur.CardStatus, "nothing refunded")
}
