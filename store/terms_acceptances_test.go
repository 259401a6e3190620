package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
)

func TestTermsAcceptances(t *testing.T) {
	ctx := context.Background()
	a := newBuyer(t, "a@terms.example", pay.Corporation)
	b := newBuyer(t, "b@terms.example", pay.Corporation)
	_, err := db.Store.TermsAcceptance(ctx, a.BuyerID, a.ID, 1)
	assert.ErrorIs(t, err, store.ErrNotFound, "a user made without a version has no acceptance")

	first := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)
	require.NoError(t, db.Store.AcceptTerms(ctx, a.BuyerID, a.ID, 1, first))
	got, err := db.Store.TermsAcceptance(ctx, a.BuyerID, a.ID, 1)
	require.NoError(t, err)
	assert.Equal(t, 1, got.Version)
	assert.True(t, first.Equal(got.AcceptedAt))
	assert.Equal(t, 1, userOf(t, a).TermsVersion)

	require.NoError(t, db.Store.AcceptTerms(ctx, a.BuyerID, a.ID, 1, first.Add(time.Hour)))
	got, err = db.Store.TermsAcceptance(ctx, a.BuyerID, a.ID, 1)
	require.NoError(t, err)
	assert.True(t, first.Equal(got.AcceptedAt), "a version's first acceptance stays")

	second := first.AddDate(0, 8, 0)
	require.NoError(t, db.Store.AcceptTerms(ctx, a.BuyerID, a.ID, 2, second))
	got, err = db.Store.TermsAcceptance(ctx, a.BuyerID, a.ID, 2)
	require.NoError(t, err)
	assert.True(t, second.Equal(got.AcceptedAt))
	_, err = db.Store.TermsAcceptance(ctx, a.BuyerID, a.ID, 1)
	assert.NoError(t, err, "the history keeps every version")

	// Scoped by buyer: another buyer's user is not found, and nothing is written.
	assert.ErrorIs(t, db.Store.AcceptTerms(ctx, b.BuyerID, a.ID, 3, second), store.ErrNotFound)
	_, err = db.Store.TermsAcceptance(ctx, a.BuyerID, a.ID, 3)
	assert.ErrorIs(t, err, store.ErrNotFound, "the refused acceptance wrote no record")
	_, err = db.Store.TermsAcceptance(ctx, b.BuyerID, a.ID, 2)
	assert.ErrorIs(t, err, store.ErrNotFound, "another buyer does not read it")
	assert.Equal(t, 2, userOf(t, a).TermsVersion)

	// Version 0 ("accepted nothing", a test's outdated user) is no acceptance.
	require.NoError(t, db.Store.AcceptTerms(ctx, b.BuyerID, b.ID, 0, second))
	_, err = db.Store.TermsAcceptance(ctx, b.BuyerID, b.ID, 0)
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func TestCreateBuyerRecordsTheTermsAccepted(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 11, 28, 1, 2, 3, 0, time.UTC)
	u, err := db.Store.CreateBuyer(ctx, store.NewBuyer{
		BusinessForm: pay.SoleProprietor, BusinessName: "テスト商店", EmailAddress: "new@terms.example", PasswordHash: "hash",
		LastName: "山田", FirstName: "太郎", TermsVersion: 2, TermsAcceptedAt: at,
	})
	require.NoError(t, err)
	assert.Equal(t, 2, u.TermsVersion)
	got, err := db.Store.TermsAcceptance(ctx, u.BuyerID, u.ID, 2)
	require.NoError(t, err)
	assert.True(t, at.Equal(got.AcceptedAt), "dated when the sign-up's box was ticked")

	before := time.Now().Add(-time.Minute)
	u, err = db.Store.CreateBuyer(ctx, store.NewBuyer{
		BusinessForm: pay.SoleProprietor, BusinessName: "テスト商店", EmailAddress: "demo@terms.example", PasswordHash: "hash",
		LastName: "山田", FirstName: "太郎", TermsVersion: 2,
	})
	require.NoError(t, err)
	got, err = db.Store.TermsAcceptance(ctx, u.BuyerID, u.ID, 2)
	require.NoError(t, err)
	assert.True(t, got.AcceptedAt.After(before), "no date given: the moment of creation")
}

func userOf(t *testing.T, u store.User) store.User {
	t.Helper()
	got, err := db.Store.User(context.Background(), u.BuyerID, u.ID)
	require.NoError(t, err)
	return got
}

func TestForgetTermsAfter(t *testing.T) {
	ctx := context.Background()
	b := newBuyer(t, "forget@terms.example", pay.Corporation)
	require.NoError(t, db.Store.AcceptTerms(ctx, b.BuyerID, b.ID, 2, time.Now()))
	require.NoError(t, db.Store.ForgetTermsAfter(ctx, b.BuyerID+1000000, b.ID, 1), "another buyer's id changes nothing")
	u, err := db.Store.UserByEmail(ctx, b.EmailAddress)
	require.NoError(t, err)
	assert.Equal(t, 2, u.TermsVersion, "scoped by buyer")
	require.NoError(t, db.Store.ForgetTermsAfter(ctx, b.BuyerID, b.ID, 1))
	u, err = db.Store.UserByEmail(ctx, b.EmailAddress)
	require.NoError(t, err)
	assert.Equal(t, 1, u.TermsVersion)
}
