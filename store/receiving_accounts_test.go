package store_test

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
)

// linkRequest sends a request from requester (paid to its account acct) and links it to
// customer through its key, answering the customer's invoice.
func linkRequest(t *testing.T, requester, customer store.User, acct int64, key string) store.Payment {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	hash := sha256.Sum256([]byte(key))
	_, _, err := db.Store.SendRequest(ctx, store.NewRequest{RequesterID: requester.BuyerID, SubmitKey: key, AccountID: acct,
		FeeBearer: pay.FeeByCustomer, KeyHash: hash[:], Request: pay.CheckedRequest{CustomerName: "お客さま", CustomerEmail: "c@example.com",
			Amount: 10000, Deadline: now.AddDate(0, 0, 30)}}, now)
	require.NoError(t, err)
	id, err := db.Store.UseRequestKey(ctx, hash[:], customer.BuyerID, func(store.RequestKey) error { return nil }, now)
	require.NoError(t, err)
	p, err := db.Store.Submission(ctx, customer.BuyerID, id)
	require.NoError(t, err)
	return p
}

// A requester's receiving account never rides on the customer's approved supplier of the
// requester's number: a different account is a new row waiting for the operators; the
// same account as one the customer approved is reused as it stands. An operator's
// approval is a conditional change with its audit row: the second one changes nothing.
func TestRequestersAccountIsNewAndUnapproved(t *testing.T) {
	ctx := context.Background()
	number := "1180301018771"
	requester, err := db.Store.CreateBuyer(ctx, store.NewBuyer{BusinessForm: pay.Corporation, CorporateName: "依頼株式会社",
		CorporateNumber: number, EmailAddress: "requester@receiving.example", PasswordHash: "hash", LastName: "山田", FirstName: "太郎"})
	require.NoError(t, err)
	customer := newBuyer(t, "customer@receiving.example", pay.Corporation)
	sp, err := db.Store.CreateSupplier(ctx, customer.BuyerID, corpSupplier("依頼株式会社"), &mizuho)
	require.NoError(t, err)
	require.NoError(t, db.Store.SetSupplierStatus(ctx, customer.BuyerID, sp.ID, pay.SupplierApproved))
	typed, err := db.Store.SupplierAccounts(ctx, customer.BuyerID, sp.ID)
	require.NoError(t, err)
	require.Len(t, typed, 1)
	assert.True(t, typed[0].Approved(), "an account the buyer typed is approved by the buyer")
	assert.Equal(t, store.AccountFromBuyer, typed[0].Origin)

	other := mizuho
	other.AccountNumber = "7654321"
	foreign, err := db.Store.CreateBuyerAccount(ctx, requester.BuyerID, other)
	require.NoError(t, err)
	p := linkRequest(t, requester, customer, foreign.ID, "receiving-1")
	require.Equal(t, sp.ID, p.SupplierID, "the request is the customer's supplier of that number")
	require.NotEqual(t, typed[0].ID, *p.AccountID)
	got, err := db.Store.SupplierAccount(ctx, customer.BuyerID, sp.ID, *p.AccountID)
	require.NoError(t, err)
	assert.False(t, got.Approved(), "the requester's account waits for the operators")
	assert.Equal(t, store.AccountFromRequest, got.Origin)
	st, err := db.Store.Supplier(ctx, customer.BuyerID, sp.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.SupplierApproved, st.Status)

	same, err := db.Store.CreateBuyerAccount(ctx, requester.BuyerID, mizuho)
	require.NoError(t, err)
	q := linkRequest(t, requester, customer, same.ID, "receiving-2")
	assert.Equal(t, typed[0].ID, *q.AccountID, "the same account as the customer's approved one is reused")
	reused, err := db.Store.SupplierAccount(ctx, customer.BuyerID, sp.ID, typed[0].ID)
	require.NoError(t, err)
	assert.True(t, reused.Approved())

	op, err := db.Store.CreateOperator(ctx, store.NewOperator{EmailAddress: "approver@receiving.example", Name: "承認",
		PasswordHash: "hash", TOTPSecretSealed: "sealed", Roles: []string{pay.RoleScreening}})
	require.NoError(t, err)
	audit := store.NewAudit{OperatorID: op.ID, Action: "approve_account"}
	require.NoError(t, db.Store.ApproveSupplierAccount(ctx, got.ID, audit, time.Now()))
	assert.ErrorIs(t, db.Store.ApproveSupplierAccount(ctx, got.ID, audit, time.Now()), store.ErrStateChanged)
	assert.ErrorIs(t, db.Store.ApproveSupplierAccount(ctx, 1<<40, audit, time.Now()), store.ErrNotFound)
	var audits int
	require.NoError(t, db.Store.DB.Get(&audits, `SELECT count(*) FROM operator_audit WHERE object_type = $1 AND object_id = $2`,
		store.AuditSupplierAccount, got.ID))
	assert.Equal(t, 1, audits, "one approval, one audit row")
	got, err = db.Store.SupplierAccount(ctx, customer.BuyerID, sp.ID, got.ID)
	require.NoError(t, err)
	assert.True(t, got.Approved())
	require.NotNil(t, got.ApprovedBy)
	assert.Equal(t, op.ID, *got.ApprovedBy)
}
