package invoices_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/gateway"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

func newOperator(t *testing.T, roles ...string) store.Operator {
	t.Helper()
	n := seq.Add(1)
	o, err := db.Store.CreateOperator(context.Background(), store.NewOperator{EmailAddress: fmt.Sprintf("op-%d@ops.test.example", n),
		Name: fmt.Sprintf("担当 %d", n), PasswordHash: "hash", TOTPSecretSealed: "sealed", Roles: roles})
	require.NoError(t, err)
	return o
}

// refusal is the message of the field errors err carries for field.
func refusal(t *testing.T, err error, field string) string {
	t.Helper()
	var fe pay.FieldErrors
	require.ErrorAs(t, err, &fe)
	return fe.For(field)
}

func notifications(t *testing.T, buyerID int64) []string {
	t.Helper()
	l, err := db.Store.NotificationPage(context.Background(), buyerID, 0, 100)
	require.NoError(t, err)
	var titles []string
	for i := len(l.Items) - 1; i >= 0; i-- {
		titles = append(titles, l.Items[i].Title)
	}
	return titles
}

func TestScreeningDualControlSupplierApprovalAndCapture(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	res, err := s.Payments.Submit(ctx, f.buyer, f.submission("screen-1"))
	require.NoError(t, err)
	id := res.Payment.ID
	first, second := newOperator(t, pay.RoleScreening), newOperator(t, pay.RoleScreening)
	transfers := newOperator(t, pay.RoleTransfers)

	_, err = s.Screening.CheckPayment(ctx, transfers, id)
	assert.Equal(t, invoices.MsgNotScreener, refusal(t, err, "check"), "the screening role is needed")
	_, err = s.Screening.CompleteScreening(ctx, first, id)
	assert.Equal(t, invoices.MsgScreeningMoved, refusal(t, err, "complete"), "completing before the check is the wrong state")

	pm, err := s.Screening.CheckPayment(ctx, first, id)
	require.NoError(t, err)
	assert.Equal(t, pay.InProgressExaminationChecked, pm.ExaminationStatus)
	_, err = s.Screening.CheckPayment(ctx, second, id)
	assert.Equal(t, invoices.MsgScreeningMoved, refusal(t, err, "check"), "checked already")

	_, err = s.Screening.CompleteScreening(ctx, first, id)
	assert.Equal(t, invoices.MsgSameOperator, refusal(t, err, "complete"), "dual control")
	_, err = s.Screening.CompleteScreening(ctx, second, id)
	assert.Equal(t, invoices.MsgSupplierNotReady, refusal(t, err, "complete"), "the supplier is not approved yet")
	pm, err = db.Store.Payment(ctx, f.buyer, id)
	require.NoError(t, err)
	assert.Equal(t, pay.InProgressExaminationChecked, pm.ExaminationStatus, "a refusal changes nothing")

	// The supplier's review: a reason is needed to escalate; approving needs none.
	err = s.Screening.ReviewSupplier(ctx, second, f.supplier, pay.SupplierEscalation, " ")
	assert.Equal(t, invoices.MsgReviewReason, refusal(t, err, "reason"))
	require.NoError(t, s.Screening.ReviewSupplier(ctx, second, f.supplier, pay.SupplierApproved, ""))
	err = s.Screening.ReviewSupplier(ctx, first, f.supplier, pay.SupplierRejected, "重複")
	assert.Equal(t, invoices.MsgReviewMoved, refusal(t, err, "status"), "an approved supplier is reviewed once")

	pm, err = s.Screening.CompleteScreening(ctx, second, id)
	require.NoError(t, err)
	assert.Equal(t, pay.InProgressExaminationCompleted, pm.ExaminationStatus)
	assert.Equal(t, pay.CardAuthorized, pm.CardStatus, "captured by the job, not the request")

	// The capture job, run twice: one capture of the whole authorisation.
	payload, _ := json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: id, Ref: pm.PaymentRef})
	require.NoError(t, s.Screening.RunCaptureJob(ctx, payload))
	require.NoError(t, s.Screening.RunCaptureJob(ctx, payload))
	pm, err = db.Store.Payment(ctx, f.buyer, id)
	require.NoError(t, err)
	assert.Equal(t, pay.CardCaptured, pm.CardStatus)
	assert.Equal(t, gateway.StatusCaptured, p.txs[pm.PaymentRef].Status)
	assert.Equal(t, int64(103000), p.txs[pm.PaymentRef].Captured)

	// Each change told the buyer once.
	assert.Equal(t, []string{"お支払いを受け付けました", "お支払いの書類を確認しました", "取引先が承認されました",
		"お支払いの審査が完了しました"}, notifications(t, f.buyer))
	var mails int
	require.NoError(t, db.Store.DB.Get(&mails, `SELECT count(*) FROM jobs WHERE kind = $1 AND payload->>'buyer_id' = $2`,
		notificationMailKind, fmt.Sprint(f.buyer)))
	assert.Equal(t, 4, mails, "one mail job per notification")

	// The audit log has the changes made, not the refusals.
	log, total, err := db.Store.AuditLog(ctx, store.AuditFilter{ObjectType: store.AuditPayment, ObjectID: id})
	require.NoError(t, err)
	require.Equal(t, 2, total)
	assert.Equal(t, "complete", log[0].Action)
	assert.Equal(t, second.ID, log[0].OperatorID)
	assert.JSONEq(t, `{"examination_status":2,"status_label":"審査確認済","action_required":false}`, string(log[0].Before))
	assert.JSONEq(t, `{"examination_status":3,"status_label":"審査完了","action_required":false}`, string(log[0].After))
	assert.Equal(t, "check", log[1].Action)
	assert.Equal(t, first.ID, log[1].OperatorID)
	sup, _, err := db.Store.AuditLog(ctx, store.AuditFilter{ObjectType: store.AuditSupplier, ObjectID: f.supplier})
	require.NoError(t, err)
	require.Len(t, sup, 1)
	assert.JSONEq(t, `{"status":1,"status_label":"承認済"}`, string(sup[0].After))

	// The audit rows cannot be changed.
	_, err = db.Store.DB.Exec(`UPDATE operator_audit SET reason = 'x' WHERE object_id = $1`, id)
	require.Error(t, err)
	_, err = db.Store.DB.Exec(`DELETE FROM operator_audit WHERE object_id = $1`, id)
	require.Error(t, err)
}

func TestCaptureOfALapsedAuthorisationExpiresThePayment(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	res, err := s.Payments.Submit(ctx, f.buyer, f.submission("lapse-1"))
	require.NoError(t, err)
	first, second := newOperator(t, pay.RoleScreening), newOperator(t, pay.RoleScreening)
	require.NoError(t, s.Screening.ReviewSupplier(ctx, first, f.supplier, pay.SupplierApproved, ""))
	_, err = s.Screening.CheckPayment(ctx, first, res.Payment.ID)
	require.NoError(t, err)
	pm, err := s.Screening.CompleteScreening(ctx, second, res.Payment.ID)
	require.NoError(t, err)
	_, _ = p.set(pm.PaymentRef, func(tx *gateway.Transaction) { tx.Status = gateway.StatusLapsed })
	payload, _ := json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: pm.ID, Ref: pm.PaymentRef})
	require.NoError(t, s.Screening.RunCaptureJob(ctx, payload))
	pm, err = db.Store.Payment(ctx, f.buyer, pm.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.Expired, pm.ExaminationStatus)
	assert.Equal(t, pay.CardVoided, pm.CardStatus)
	assert.Contains(t, notifications(t, f.buyer), "お支払いが期限切れになりました")
}

func TestSendBackAndCancelByOperator(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	p := newPSP()
	s := newService(p)
	res, err := s.Payments.Submit(ctx, f.buyer, f.submission("back-1"))
	require.NoError(t, err)
	id := res.Payment.ID
	op := newOperator(t, pay.RoleScreening)

	_, err = s.Screening.SendBack(ctx, op, id, "nonsense", "")
	assert.Equal(t, "差し戻しの理由を選んでください", refusal(t, err, "reason"))
	_, err = s.Screening.SendBack(ctx, op, id, pay.SendBackOther, "  ")
	assert.NotEmpty(t, refusal(t, err, "message"), "その他 needs a message")
	pm, err := s.Screening.SendBack(ctx, op, id, pay.SendBackAmount, "請求書は ¥110,000 です")
	require.NoError(t, err)
	assert.True(t, pm.ActionRequired)
	assert.Equal(t, "請求金額が請求書と一致しません：請求書は ¥110,000 です", pm.SendBackReason)
	l, err := db.Store.NotificationPage(ctx, f.buyer, 0, 1)
	require.NoError(t, err)
	assert.Equal(t, "お支払いの修正をお願いします", l.Items[0].Title)
	assert.Contains(t, l.Items[0].Body, "請求書は ¥110,000 です")
	assert.Equal(t, fmt.Sprintf("/payments/review/%d", id), l.Items[0].Link)
	// While the buyer corrects it, screening waits.
	_, err = s.Screening.CheckPayment(ctx, op, id)
	assert.Equal(t, invoices.MsgScreeningMoved, refusal(t, err, "check"))
	item, err := db.Store.ScreeningPayment(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "amount", item.SendBackCode)
	queue, _, err := db.Store.ScreeningQueue(ctx, store.ScreeningFilter{Queue: store.QueueSentBack, Size: 1000})
	require.NoError(t, err)
	assert.True(t, inQueue(queue, id), "in the sent-back queue")
	queue, _, err = db.Store.ScreeningQueue(ctx, store.ScreeningFilter{Size: 1000})
	require.NoError(t, err)
	assert.False(t, inQueue(queue, id), "not in the operators' waiting queue")

	_, err = s.Screening.CancelByOperator(ctx, op, id, "")
	assert.Equal(t, "キャンセルの理由を入力してください", refusal(t, err, "reason"))
	pm, err = s.Screening.CancelByOperator(ctx, op, id, "購入者からの依頼")
	require.NoError(t, err)
	assert.Equal(t, pay.Cancel, pm.ExaminationStatus)
	payload, _ := json.Marshal(invoices.PaymentJob{BuyerID: f.buyer, ID: id, Ref: pm.PaymentRef})
	require.NoError(t, s.Payments.RunCardJob(ctx, payload))
	assert.Equal(t, gateway.StatusVoided, p.txs[pm.PaymentRef].Status)
	l, err = db.Store.NotificationPage(ctx, f.buyer, 0, 1)
	require.NoError(t, err)
	assert.Equal(t, "お支払いがキャンセルされました", l.Items[0].Title)
	assert.Contains(t, l.Items[0].Body, "購入者からの依頼")
	_, err = s.Screening.CancelByOperator(ctx, op, id, "もう一度")
	assert.Equal(t, invoices.MsgCannotCancel, refusal(t, err, "cancel"))
	_, err = s.Screening.CheckPayment(ctx, op, 1<<40)
	assert.Equal(t, invoices.MsgNothingToScreen, refusal(t, err, "check"))
}

func inQueue(list []store.ScreeningItem, id int64) bool {
	for _, it := range list {
		if it.ID == id {
			return true
		}
	}
	return false
}
