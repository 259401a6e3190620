package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
)

// paymentOf seeds one submitted payment of the buyer and returns its id.
func paymentOf(t *testing.T, u store.User, supplier string) int64 {
	t.Helper()
	ctx := context.Background()
	sup, err := db.Store.CreateSupplier(ctx, u.BuyerID, corpSupplier(supplier), &mizuho)
	require.NoError(t, err)
	accts, err := db.Store.SupplierAccounts(ctx, u.BuyerID, sup.ID)
	require.NoError(t, err)
	require.NoError(t, db.Store.SeedPayments(ctx, u.BuyerID, sup.ID, accts[0].ID, 1))
	list, err := db.Store.InquiryPayments(ctx, u.BuyerID, 1)
	require.NoError(t, err)
	require.Len(t, list, 1)
	return list[0].ID
}

// Inquiries: a buyer's names only their own payment (another buyer's is refused and
// nothing is stored), the acknowledgement's job goes in the same transaction, every
// buyer-side read is the buyer's own, the console sees all with 受付 first, and an
// answer or a close is audited once.
func TestInquiriesAreTheBuyersOwn(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	u := newBuyer(t, "asker@inquiries.example", pay.Corporation)
	other := newBuyer(t, "other@inquiries.example", pay.Corporation)
	mine := paymentOf(t, u, "株式会社問合せ")
	theirs := paymentOf(t, other, "株式会社よそ")

	var mailed []int64
	mail := func(id int64) (store.NewJob, error) {
		mailed = append(mailed, id)
		return store.NewJob{Kind: "test-inquiry-mail", Payload: map[string]int64{"id": id}}, nil
	}
	count := func() int {
		var n int
		require.NoError(t, db.Store.DB.Get(&n, `SELECT count(*) FROM inquiries WHERE buyer_id = $1`, u.BuyerID))
		return n
	}
	ask := store.NewInquiry{BuyerID: u.BuyerID, UserID: u.ID, Name: "山田 太郎", Email: u.EmailAddress, Category: pay.InquiryCard, Body: "質問です"}

	bad := ask
	bad.InvoiceID = theirs
	_, err := db.Store.CreateInquiry(ctx, bad, now, mail)
	assert.ErrorIs(t, err, store.ErrNotBuyersPayment, "another buyer's payment")
	bad.InvoiceID = 1 << 40
	_, err = db.Store.CreateInquiry(ctx, bad, now, mail)
	assert.ErrorIs(t, err, store.ErrNotBuyersPayment, "no such payment")
	assert.Equal(t, 0, count(), "nothing stored")
	assert.Empty(t, mailed, "nothing mailed")
	_, err = db.Store.CreateInquiry(ctx, store.NewInquiry{InvoiceID: mine, Name: "x", Email: "x@example.jp", Category: pay.InquiryCard, Body: "x"}, now, nil)
	assert.Error(t, err, "a public inquiry names no payment")

	withPayment := ask
	withPayment.InvoiceID = mine
	id, err := db.Store.CreateInquiry(ctx, withPayment, now, mail)
	require.NoError(t, err)
	assert.Equal(t, []int64{id}, mailed)
	var jobs int
	require.NoError(t, db.Store.DB.Get(&jobs, `SELECT count(*) FROM jobs WHERE kind = 'test-inquiry-mail' AND payload->>'id' = $1::text`, id))
	assert.Equal(t, 1, jobs, "the acknowledgement's job, in the inquiry's transaction")
	public, err := db.Store.CreateInquiry(ctx, store.NewInquiry{Name: "佐藤 花子", Email: "hanako@public.example", Company: "佐藤商店",
		Category: pay.InquiryOther, Body: "公開フォームから"}, now, nil)
	require.NoError(t, err)

	got, err := db.Store.Inquiry(ctx, u.BuyerID, id)
	require.NoError(t, err)
	assert.Equal(t, "株式会社問合せ", *got.SupplierName)
	assert.Equal(t, mine, *got.InvoiceID)
	assert.Equal(t, pay.InquiryOpen, got.Status)
	assert.Empty(t, got.Answers)
	_, err = db.Store.Inquiry(ctx, other.BuyerID, id)
	assert.ErrorIs(t, err, store.ErrNotFound, "another buyer's inquiry")
	_, err = db.Store.Inquiry(ctx, u.BuyerID, public)
	assert.ErrorIs(t, err, store.ErrNotFound, "a public inquiry is nobody's")
	list, total, err := db.Store.Inquiries(ctx, u.BuyerID, 0, 20)
	require.NoError(t, err)
	assert.Equal(t, 1, total)
	require.Len(t, list, 1)
	theirList, total, err := db.Store.Inquiries(ctx, other.BuyerID, 0, 20)
	require.NoError(t, err)
	assert.Equal(t, 0, total)
	assert.Empty(t, theirList)
	pays, err := db.Store.InquiryPayments(ctx, other.BuyerID, 50)
	require.NoError(t, err)
	require.Len(t, pays, 1)
	assert.Equal(t, theirs, pays[0].ID, "only the buyer's own payments are offered")

	op, err := db.Store.CreateOperator(ctx, store.NewOperator{EmailAddress: "answerer@inquiries.example", Name: "回答 担当",
		PasswordHash: "hash", TOTPSecretSealed: "sealed", Roles: []string{pay.RoleTransfers}})
	require.NoError(t, err)
	audit := store.NewAudit{OperatorID: op.ID, Action: "answer_inquiry"}
	var told []int64
	require.NoError(t, db.Store.AnswerInquiry(ctx, id, op.ID, "ご回答です", audit, now, func(tx *sqlx.Tx, q store.Inquiry, answerID int64) error {
		assert.Equal(t, u.EmailAddress, q.Email)
		told = append(told, answerID)
		return nil
	}))
	require.Len(t, told, 1)
	got, err = db.Store.Inquiry(ctx, u.BuyerID, id)
	require.NoError(t, err)
	assert.Equal(t, pay.InquiryAnswered, got.Status)
	require.Len(t, got.Answers, 1)
	assert.Equal(t, "回答 担当", got.Answers[0].OperatorName)
	assert.Equal(t, "ご回答です", got.Answers[0].Body)

	all, total, err := db.Store.OperatorInquiries(ctx, store.InquiryFilter{Limit: 50})
	require.NoError(t, err)
	require.GreaterOrEqual(t, total, 2)
	assert.Equal(t, pay.InquiryOpen, all[0].Status, "受付 first")
	open, _, err := db.Store.OperatorInquiries(ctx, store.InquiryFilter{Status: pay.InquiryAnswered, Limit: 50})
	require.NoError(t, err)
	for _, q := range open {
		assert.Equal(t, pay.InquiryAnswered, q.Status)
	}
	whole, err := db.Store.OperatorInquiry(ctx, public)
	require.NoError(t, err)
	assert.Nil(t, whole.BuyerID)
	assert.Equal(t, "佐藤商店", whole.Company)

	close := store.NewAudit{OperatorID: op.ID, Action: "close_inquiry"}
	require.NoError(t, db.Store.CloseInquiry(ctx, id, close, now))
	assert.ErrorIs(t, db.Store.CloseInquiry(ctx, id, close, now), store.ErrStateChanged)
	assert.ErrorIs(t, db.Store.CloseInquiry(ctx, 1<<40, close, now), store.ErrNotFound)
	assert.ErrorIs(t, db.Store.AnswerInquiry(ctx, id, op.ID, "もう一度", audit, now, nil), store.ErrStateChanged, "closed")
	assert.ErrorIs(t, db.Store.AnswerInquiry(ctx, 1<<40, op.ID, "x", audit, now, nil), store.ErrNotFound)
	var audits int
	require.NoError(t, db.Store.DB.Get(&audits, `SELECT count(*) FROM operator_audit WHERE object_type = $1 AND object_id = $2`, store.AuditInquiry, id))
	assert.Equal(t, 2, audits, "the answer and the close")
}
