package ops_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/japanese"

	"cardpay/calendar"
	"cardpay/handlers/webtest"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// screened is p with its screening completed by two operators and the card captured.
func screened(t *testing.T, env *webtest.Env, p paid) store.Payment {
	t.Helper()
	ctx := context.Background()
	a, b := newOperator(t, env, pay.RoleScreening), newOperator(t, env, pay.RoleScreening)
	require.NoError(t, env.App.Screening.ReviewSupplier(ctx, a, p.supplier, pay.SupplierApproved, ""))
	_, err := env.App.Screening.CheckPayment(ctx, a, p.id)
	require.NoError(t, err)
	_, err = env.App.Screening.CompleteScreening(ctx, b, p.id)
	require.NoError(t, err)
	env.Settle(t)
	pm, err := webtest.Store().Payment(ctx, p.u.BuyerID, p.id)
	require.NoError(t, err)
	require.Equal(t, pay.CardCaptured, pm.CardStatus)
	return pm
}

var fileLink = regexp.MustCompile(`href="(/ops/transfers/files/(\d+)/download)"`)

func TestTransferFileSentAndCompleted(t *testing.T) {
	env := webtest.New(t)
	p := newPaid(t, env)
	pm := screened(t, env, p)
	q := newPaid(t, env)
	qm := screened(t, env, q)
	require.Equal(t, pm.TransferDate, qm.TransferDate)
	day := pay.ISODate(*pm.TransferDate)
	mover := signIn(t, env, newOperator(t, env, pay.RoleTransfers))

	page := mover.Get("/ops/transfers?date=" + day)
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	assert.Contains(t, page.Body, pay.InvoiceNumber(p.id))
	assert.Contains(t, page.Body, "振込ファイル未作成")
	assert.Contains(t, page.Body, "総合振込ファイルを作成する")

	// A holiday has no file.
	res := mover.Post("/ops/transfers/files", url.Values{"date": {"2027-01-01"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	assert.Contains(t, res.Body, "銀行の営業日を選んでください")

	res = mover.Post("/ops/transfers/files", url.Values{"date": {day}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	page = mover.Get("/ops/transfers?date=" + day)
	m := fileLink.FindStringSubmatch(page.Body)
	require.NotNil(t, m, page.Body)
	fileID, _ := strconv.ParseInt(m[2], 10, 64)
	// Making it again puts nothing in a second file.
	res = mover.Post("/ops/transfers/files", url.Values{"date": {day}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)

	// The file: Shift_JIS, 120-byte records with CR LF, the two payments in it.
	dl := mover.Get(m[1])
	require.Equal(t, http.StatusOK, dl.StatusCode)
	assert.Contains(t, dl.Header.Get("Content-Disposition"), "sogofurikomi-")
	raw := []byte(dl.Body)
	records := bytes.Split(bytes.TrimSuffix(raw, []byte("\r\n")), []byte("\r\n"))
	require.GreaterOrEqual(t, len(records), 5)
	var mine int
	for _, r := range records {
		require.Len(t, r, invoices.ZenginRecordLen)
		if r[0] == '2' {
			holder, err := japanese.ShiftJIS.NewDecoder().Bytes(r[50:80])
			require.NoError(t, err)
			assert.Equal(t, "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ", string(bytes.TrimRight(holder, " ")))
			assert.Equal(t, "0000100000", string(r[80:90]), "the invoice amount, not the fee")
			code := string(bytes.TrimSpace(r[91:101]))
			if code == fmt.Sprintf("%010d", p.id) || code == fmt.Sprintf("%010d", q.id) {
				mine++
			}
		}
	}
	assert.Equal(t, 2, mine)
	ids, err := webtest.Store().TransferFileIDs(context.Background(), fileID)
	require.NoError(t, err)
	assert.Contains(t, ids, p.id)

	// Not sent yet: no outcome can be recorded.
	res = mover.Post(fmt.Sprintf("/ops/transfers/%d/done", p.id), nil)
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	res = mover.Post(fmt.Sprintf("/ops/transfers/files/%d/sent", fileID), nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	res = mover.Post(fmt.Sprintf("/ops/transfers/files/%d/sent", fileID), nil)
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "sent once")

	res = mover.Post(fmt.Sprintf("/ops/transfers/%d/done", p.id), nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	pm, err = webtest.Store().Payment(context.Background(), p.u.BuyerID, p.id)
	require.NoError(t, err)
	assert.Equal(t, pay.TransferCompleted, pm.ExaminationStatus)
	assert.Contains(t, p.c.Get("/notifications").Body, "取引先へのお振り込みが完了しました")
	// The buyer's receipts: on the payment's page, as PDFs, to the buyer only.
	paidPage := p.c.Get(fmt.Sprintf("/payments/history/%d", p.id))
	assert.Contains(t, paidPage.Body, "支払明細（PDF）")
	assert.Contains(t, paidPage.Body, "手数料の適格請求書（PDF）")
	for _, kind := range []string{"statement", "fee-invoice"} {
		pdf := p.c.Get(fmt.Sprintf("/payments/receipts/%d/%s", p.id, kind))
		require.Equal(t, http.StatusOK, pdf.StatusCode, kind)
		assert.Equal(t, "application/pdf", pdf.Header.Get("Content-Type"))
		assert.Equal(t, "%PDF-", pdf.Body[:5])
		assert.Equal(t, http.StatusNotFound, q.c.Get(fmt.Sprintf("/payments/receipts/%d/%s", p.id, kind)).StatusCode, "another buyer's")
	}
	assert.Equal(t, http.StatusNotFound, q.c.Get(fmt.Sprintf("/payments/receipts/%d/statement", q.id)).StatusCode, "not transferred yet")
	assert.Equal(t, http.StatusNotFound, p.c.Get(fmt.Sprintf("/payments/receipts/%d/other", p.id)).StatusCode)

	// The other one failed: the reason is needed, then retried on a later bank day.
	res = mover.Post(fmt.Sprintf("/ops/transfers/%d/failed", q.id), url.Values{"reason": {""}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	webtest.AssertFieldError(t, res, fmt.Sprintf("reason-%d", q.id), "振込できなかった理由を入力してください")
	res = mover.Post(fmt.Sprintf("/ops/transfers/%d/failed", q.id), url.Values{"reason": {"口座名義相違"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	page = mover.Get("/ops/transfers?date=" + day)
	assert.Contains(t, page.Body, "口座名義相違")
	res = mover.Post(fmt.Sprintf("/ops/transfers/%d/retry", q.id), url.Values{"retry_date": {"2027-01-01"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	next := calendar.AddBankDays(*qm.TransferDate, 1)
	res = mover.Post(fmt.Sprintf("/ops/transfers/%d/retry", q.id), url.Values{"retry_date": {pay.ISODate(next)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	page = mover.Get("/ops/transfers?date=" + pay.ISODate(next))
	assert.Contains(t, page.Body, pay.InvoiceNumber(q.id))

	// On the new day it fails for good and is cancelled: the card is refunded.
	res = mover.Post("/ops/transfers/files", url.Values{"date": {pay.ISODate(next)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	page = mover.Get("/ops/transfers?date=" + pay.ISODate(next))
	m = fileLink.FindStringSubmatch(page.Body)
	require.NotNil(t, m)
	require.Equal(t, http.StatusSeeOther, mover.Post("/ops/transfers/files/"+m[2]+"/sent", nil).StatusCode)
	require.Equal(t, http.StatusSeeOther, mover.Post(fmt.Sprintf("/ops/transfers/%d/failed", q.id), url.Values{"reason": {"口座解約"}}).StatusCode)
	res = mover.Post(fmt.Sprintf("/ops/transfers/%d/cancel", q.id), url.Values{"reason": {"口座が解約されていたため"}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	env.Settle(t)
	qm, err = webtest.Store().Payment(context.Background(), q.u.BuyerID, q.id)
	require.NoError(t, err)
	assert.Equal(t, pay.Cancel, qm.ExaminationStatus)
	assert.Equal(t, pay.CardRefunded, qm.CardStatus)
	tx, err := env.PSP.Client.Lookup(context.Background(), qm.PaymentRef)
	require.NoError(t, err)
	assert.Equal(t, int64(103000), tx.Refunded)

	// The reconciliation of the two days finds everything in order…
	rec := mover.Get("/ops/reconciliation?from=" + day + "&to=" + pay.ISODate(next))
	require.Equal(t, http.StatusOK, rec.StatusCode, rec.Body)
	assert.Contains(t, rec.Body, "不一致はありません")
	assert.Contains(t, rec.Body, "振込ファイル2件")
	// …until a record disagrees with the PSP and the file.
	_, err = webtest.Store().DB.Exec(`UPDATE invoices SET card_status = 'authorized', amount = 99000 WHERE id = $1`, p.id)
	require.NoError(t, err)
	rec = mover.Get("/ops/reconciliation?from=" + day + "&to=" + pay.ISODate(next))
	assert.Contains(t, rec.Body, "カード会社の記録と不一致")
	assert.Contains(t, rec.Body, "売上確定の漏れ")
	assert.Contains(t, rec.Body, "ファイルの金額 ¥100,000 とお支払いの金額 ¥99,000 が違います")
	assert.NotContains(t, rec.Body, pay.InvoiceNumber(q.id)+"</a>", "the refunded one is in order")
	rec = mover.Get("/ops/reconciliation?from=" + pay.ISODate(next) + "&to=" + day)
	require.Equal(t, http.StatusUnprocessableEntity, rec.StatusCode)
	assert.Contains(t, rec.Body, "終了日は開始日以降にしてください")

	// Every step is in the audit log.
	log, _, err := webtest.Store().AuditLog(context.Background(), store.AuditFilter{ObjectType: store.AuditPayment, ObjectID: q.id})
	require.NoError(t, err)
	var actions []string
	for _, a := range log {
		actions = append(actions, a.Action)
	}
	assert.Equal(t, []string{"transfer_return", "transfer_failed", "transfer_retry", "transfer_failed", "complete", "check"}, actions)
}
