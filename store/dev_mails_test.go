package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/store"
)

func TestDevMails(t *testing.T) {
	ctx := context.Background()
	clearDevMails(t)
	at := time.Date(2026, 12, 25, 9, 5, 0, 0, time.UTC)
	first, err := db.Store.SaveDevMail(ctx, store.DevMail{
		From: "請求書カード払い <no-reply@cardpay.example>", To: "a@example.jp",
		Subject: "【請求書カード払い】新規登録の認証コード", Text: "本文\n\n123456", ReceivedAt: at,
	})
	require.NoError(t, err)
	second, err := db.Store.SaveDevMail(ctx, store.DevMail{To: "b@example.jp", Subject: "二通目"})
	require.NoError(t, err)
	assert.Greater(t, second, first)

	got, err := db.Store.DevMail(ctx, first)
	require.NoError(t, err)
	assert.Equal(t, first, got.ID)
	assert.Equal(t, "請求書カード払い <no-reply@cardpay.example>", got.From)
	assert.Equal(t, "a@example.jp", got.To)
	assert.Equal(t, "【請求書カード払い】新規登録の認証コード", got.Subject)
	assert.Equal(t, "本文\n\n123456", got.Text)
	assert.True(t, at.Equal(got.ReceivedAt), "the time the server received it is kept: %v", got.ReceivedAt)

	got, err = db.Store.DevMail(ctx, second)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), got.ReceivedAt, time.Minute, "no time given: now")

	list, err := db.Store.DevMails(ctx, 10)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, []int64{second, first}, []int64{list[0].ID, list[1].ID}, "newest first")

	list, err = db.Store.DevMails(ctx, 1)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, second, list[0].ID)

	_, err = db.Store.DevMail(ctx, second+1000)
	assert.ErrorIs(t, err, store.ErrNotFound)
}

func TestDevMailsKeepTheNewest500(t *testing.T) {
	ctx := context.Background()
	clearDevMails(t)
	var ids []int64
	for i := range store.DevMailsKept + 3 {
		id, err := db.Store.SaveDevMail(ctx, store.DevMail{To: "a@example.jp", Subject: fmt.Sprintf("%d通目", i+1)})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	var n int
	require.NoError(t, db.Store.DB.GetContext(ctx, &n, `SELECT count(*) FROM dev_mails`))
	assert.Equal(t, store.DevMailsKept, n)

	for _, id := range ids[:3] {
		_, err := db.Store.DevMail(ctx, id)
		assert.ErrorIs(t, err, store.ErrNotFound, "the oldest go")
	}
	got, err := db.Store.DevMail(ctx, ids[3])
	require.NoError(t, err)
	assert.Equal(t, "4通目", got.Subject)

	list, err := db.Store.DevMails(ctx, 1000)
	require.NoError(t, err)
	assert.Len(t, list, store.DevMailsKept)
	assert.Equal(t, fmt.Sprintf("%d通目", store.DevMailsKept+3), list[0].Subject)
}

func clearDevMails(t *testing.T) {
	t.Helper()
	_, err := db.Store.DB.ExecContext(context.Background(), `DELETE FROM dev_mails`)
	require.NoError(t, err)
}
