package ops_test

import (
	"context"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/pay"
)

var totalsRow = regexp.MustCompile(`<th scope="row"[^>]*>([^<]+)</th><td[^>]*>([^<]+)</td><td[^>]*>([^<]+)</td><td[^>]*>\s*(一致|<strong>不一致</strong>)`)

// The reconciliation's three ways: the PSP's charges and refunds, the transfer files and
// the ledger, side by side; the daily run keeps its result for the page; a refund made
// at the PSP behind the service's back is found, with its cause.
func TestReconciliationThreeWaysAndTheDailyRun(t *testing.T) {
	ctx := context.Background()
	env := webtest.New(t)
	p := newPaid(t, env)
	pm := screened(t, env, p)
	apart(t, p, 3)
	pm, err := webtest.Store().Payment(ctx, p.u.BuyerID, pm.ID)
	require.NoError(t, err)
	mover := signIn(t, env, newOperator(t, env, pay.RoleTransfers))
	day := *pm.TransferDate
	_, err = env.App.Invoices.MakeTransferFile(ctx, newOperator(t, env, pay.RoleTransfers), day, env.App.Remitter)
	require.NoError(t, err)

	from, to := pay.ISODate(day.AddDate(0, 0, -1)), pay.ISODate(day.AddDate(0, 0, 1))
	page := mover.Get("/ops/reconciliation?from=" + from + "&to=" + to)
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	assert.Contains(t, page.Body, "三者の合計")
	rows := totalsRow.FindAllStringSubmatch(page.Body, -1)
	require.Len(t, rows, 5, page.Body)
	assert.Equal(t, []string{"¥103,000", "¥103,000", "一致"}, rows[0][2:], "captured: PSP and ledger")
	assert.Equal(t, []string{"¥100,000", "¥100,000", "一致"}, rows[2][2:], "the file and the ledger")
	assert.Contains(t, page.Body, "不一致はありません")

	// The daily run, kept for the page.
	r, err := env.App.Invoices.ReconcileDay(ctx, day)
	require.NoError(t, err)
	assert.Empty(t, r.Mismatches)
	assert.True(t, r.Totals.Agree())
	page = mover.Get("/ops/reconciliation")
	assert.Contains(t, page.Body, "毎日の照合")
	assert.Contains(t, page.Body, "カード会社・振込ファイル・会計記録の三者は一致しています")

	// Someone refunds the charge at the PSP directly: the service's books did not move.
	_, err = env.App.Gateway.Refund(ctx, pm.PaymentRef, 103_000)
	require.NoError(t, err)
	page = mover.Get("/ops/reconciliation?from=" + from + "&to=" + to)
	rows = totalsRow.FindAllStringSubmatch(page.Body, -1)
	require.Len(t, rows, 5)
	assert.Equal(t, []string{"¥103,000", "¥0", "<strong>不一致</strong>"}, rows[1][2:], "refunds: PSP and ledger")
	assert.Contains(t, page.Body, "カード会社の売上 ¥103,000・返金 ¥103,000 に対し、会計記録は売上 ¥103,000・返金 ¥0 です")
	assert.Contains(t, page.Body, "会計記録と不一致")
	r, err = env.App.Invoices.ReconcileDay(ctx, day.Add(24*time.Hour))
	require.NoError(t, err)
	assert.False(t, r.Totals.Agree())
	page = mover.Get("/ops/reconciliation")
	assert.Contains(t, page.Body, "不一致2件", "the daily run lists them too")
}
