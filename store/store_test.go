package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
	"cardpay/store/storetest"
)

var db *storetest.DB

func TestMain(m *testing.M) { storetest.Run(m, &db) }

func newBuyer(t *testing.T, email string, form pay.BusinessForm) store.User {
	t.Helper()
	u, err := db.Store.CreateBuyer(context.Background(), store.NewBuyer{
		BusinessForm: form, CorporateName: "テスト株式会社", BusinessName: "テスト商店",
		EmailAddress: email, PasswordHash: "hash", LastName: "山田", FirstName: "太郎",
	})
	require.NoError(t, err)
	return u
}

func TestMigrateIsIdempotent(t *testing.T) {
	require.NoError(t, db.Store.Migrate(context.Background()))
	files, err := store.MigrationFiles()
	require.NoError(t, err)
	assert.NotEmpty(t, files)
}

func TestUsersAreScopedByBuyer(t *testing.T) {
	ctx := context.Background()
	a := newBuyer(t, "a@scope.example", pay.Corporation)
	b := newBuyer(t, "b@scope.example", pay.SoleProprietor)

	got, err := db.Store.User(ctx, a.BuyerID, a.ID)
	require.NoError(t, err)
	assert.Equal(t, "a@scope.example", got.EmailAddress)
	assert.Equal(t, "テスト株式会社", got.DisplayName())

	_, err = db.Store.User(ctx, b.BuyerID, a.ID)
	assert.ErrorIs(t, err, store.ErrNotFound, "a user id under another buyer is not found")

	assert.ErrorIs(t, db.Store.SetPasswordHash(ctx, b.BuyerID, a.ID, "x"), store.ErrNotFound)
	got, err = db.Store.User(ctx, a.BuyerID, a.ID)
	require.NoError(t, err)
	assert.Equal(t, "hash", got.PasswordHash, "nothing changed")

	sole, err := db.Store.UserByEmail(ctx, "B@Scope.Example ")
	require.NoError(t, err, "e-mail lookup ignores case and spaces")
	assert.Equal(t, b.ID, sole.ID)
	assert.Equal(t, "テスト商店", sole.DisplayName())

	_, err = db.Store.UserByEmail(ctx, "nobody@scope.example")
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func TestDuplicateEmailRefused(t *testing.T) {
	newBuyer(t, "dup@scope.example", pay.Corporation)
	_, err := db.Store.CreateBuyer(context.Background(), store.NewBuyer{
		BusinessForm: pay.Corporation, EmailAddress: "DUP@scope.example", PasswordHash: "h",
	})
	assert.Error(t, err)
}

func TestStatsCountUnreadNotificationsPerBuyer(t *testing.T) {
	ctx := context.Background()
	a := newBuyer(t, "a@stats.example", pay.Corporation)
	b := newBuyer(t, "b@stats.example", pay.Corporation)
	for range 3 {
		_, err := db.Store.CreateNotification(ctx, a.BuyerID, "お知らせ", "本文")
		require.NoError(t, err)
	}
	_, err := db.Store.DB.ExecContext(ctx, `UPDATE notifications SET read_at = now() WHERE id = (SELECT min(id) FROM notifications WHERE buyer_id = $1)`, a.BuyerID)
	require.NoError(t, err)

	sa, err := db.Store.Stats(ctx, a.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, 2, sa.NotificationUnreadCount)
	sb, err := db.Store.Stats(ctx, b.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, 0, sb.NotificationUnreadCount)
}

// Every connection runs without JIT compilation (store.withoutJIT), whichever form the
// DSN takes.
func TestConnectionsRunWithoutJIT(t *testing.T) {
	var jit string
	require.NoError(t, db.Store.DB.Get(&jit, `SHOW jit`))
	assert.Equal(t, "off", jit)
}
