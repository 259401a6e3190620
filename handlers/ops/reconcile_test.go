package ops_test

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/invoices"
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
	apart(t, p, 8) // a bank day of its own: the package's other tests leave payments too
	pm, err := webtest.Store().Payment(ctx, p.u.BuyerID, pm.ID)
	require.NoError(t, err)
	mover := signIn(t, env, newOperator(t, env, pay.RoleTransfers))
	day := *pm.TransferDate
	_, err = env.App.Transfers.MakeTransferFile(ctx, newOperator(t, env, pay.RoleTransfers), day, env.App.Remitter)
	require.NoError(t, err)

	from, to := pay.ISODate(day), pay.ISODate(day)
	page := mover.Get("/ops/reconciliation?from=" + from + "&to=" + to)
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	assert.Contains(t, page.Body, "三者の合計")
	rows := totalsRow.FindAllStringSubmatch(page.Body, -1)
	require.Len(t, rows, 5, page.Body)
	// The package's other tests leave payments on nearby days: the figures are theirs and
	// ours, and each pair agrees.
	for _, r := range rows[:4] {
		assert.Equal(t, r[2], r[3], "%s: PSP or files and the ledger", r[1])
		assert.Equal(t, "一致", r[4], r[1])
	}
	assert.NotEqual(t, "¥0", rows[0][2], "captured")
	assert.NotEqual(t, "¥0", rows[2][2], "filed")

	// The daily run (a month either side: the package's other payments too), kept for the
	// page.
	mine := func(r []invoices.Mismatch) (n int) {
		for _, m := range r {
			if m.PaymentID == pm.ID {
				n++
			}
		}
		return n
	}
	r, err := env.App.Transfers.ReconcileDay(ctx, day)
	require.NoError(t, err)
	assert.Zero(t, mine(r.Mismatches))
	page = mover.Get("/ops/reconciliation")
	assert.Contains(t, page.Body, "毎日の照合")
	assert.Regexp(t, `振込日 [0-9年月日]+〜[0-9年月日]+ を照合しました：お支払い\d+件`, page.Body)

	// Someone refunds the charge at the PSP directly: the service's books did not move.
	_, err = env.PSP.Client.Refund(ctx, pm.PaymentRef, 103_000)
	require.NoError(t, err)
	page = mover.Get("/ops/reconciliation?from=" + from + "&to=" + to)
	rows = totalsRow.FindAllStringSubmatch(page.Body, -1)
	require.Len(t, rows, 5)
	assert.Equal(t, "<strong>不一致</strong>", rows[1][4], "refunds: PSP and ledger")
	assert.Equal(t, int64(103_000), yen(t, rows[1][2])-yen(t, rows[1][3]), "the PSP refunded ¥103,000 the ledger does not know")
	assert.Contains(t, page.Body, "カード会社の売上 ¥103,000・返金 ¥103,000 に対し、会計記録は売上 ¥103,000・返金 ¥0 です")
	assert.Contains(t, page.Body, "会計記録と不一致")
	r, err = env.App.Transfers.ReconcileDay(ctx, day.Add(24*time.Hour))
	require.NoError(t, err)
	assert.False(t, r.Totals.Agree())
	assert.Equal(t, 2, mine(r.Mismatches), "the ledger's refunds and the card status")
	page = mover.Get("/ops/reconciliation")
	assert.Contains(t, page.Body, "カード会社の売上 ¥103,000・返金 ¥103,000 に対し", "the daily run lists it too")
}

func yen(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.NewReplacer("¥", "", ",", "").Replace(s), 10, 64)
	require.NoError(t, err, s)
	return n
}
