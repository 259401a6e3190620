package store_test

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
)

// Upload links: one current per supplier (a new one revokes the old), another buyer's
// supplier refused, found by the token's hash only, and a use counted only while the
// link is usable (a conditional update).
func TestSupplierUploadLinks(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "links@upload.example", pay.Corporation)
	other := newBuyer(t, "links-other@upload.example", pay.Corporation)
	sup, err := db.Store.CreateSupplier(ctx, u.BuyerID, corpSupplier("株式会社リンク"), nil)
	require.NoError(t, err)
	now := time.Now()
	hash := func(s string) []byte { h := sha256.Sum256([]byte(s)); return h[:] }
	issue := func(buyer store.User, token string) (store.SupplierUploadLink, error) {
		return db.Store.IssueSupplierUploadLink(ctx, buyer.BuyerID, store.NewSupplierUploadLink{SupplierID: sup.ID, UserID: buyer.ID,
			Email: "keiri@link.example", TokenSHA256: hash(token), ExpiresAt: now.Add(time.Hour)}, now)
	}
	_, err = issue(other, "theirs")
	assert.ErrorIs(t, err, store.ErrNotFound, "another buyer's supplier")
	first, err := issue(u, "first")
	require.NoError(t, err)
	assert.Equal(t, "株式会社リンク", first.SupplierName)
	second, err := issue(u, "second")
	require.NoError(t, err)
	old, err := db.Store.SupplierUploadLinkByToken(ctx, hash("first"))
	require.NoError(t, err)
	assert.False(t, old.Usable(now), "revoked by the new one")
	cur, err := db.Store.SupplierUploadLink(ctx, u.BuyerID, sup.ID)
	require.NoError(t, err)
	assert.Equal(t, second.ID, cur.ID)
	_, err = db.Store.SupplierUploadLink(ctx, other.BuyerID, sup.ID)
	assert.ErrorIs(t, err, store.ErrNotFound)

	use := func(id int64, at time.Time) error {
		tx, err := db.Store.DB.BeginTxx(ctx, nil)
		require.NoError(t, err)
		defer func(tx *sqlx.Tx) { _ = tx.Rollback() }(tx)
		if err := db.Store.UseSupplierUploadLink(ctx, tx, id, at); err != nil {
			return err
		}
		return tx.Commit()
	}
	require.NoError(t, use(second.ID, now))
	assert.ErrorIs(t, use(first.ID, now), store.ErrNotFound, "revoked")
	assert.ErrorIs(t, use(second.ID, now.Add(2*time.Hour)), store.ErrNotFound, "expired")
	assert.ErrorIs(t, db.Store.RevokeSupplierUploadLink(ctx, other.BuyerID, sup.ID, now), store.ErrNotFound, "another buyer's")
	require.NoError(t, db.Store.RevokeSupplierUploadLink(ctx, u.BuyerID, sup.ID, now))
	assert.ErrorIs(t, use(second.ID, now), store.ErrNotFound, "revoked")
	got, err := db.Store.SupplierUploadLinkByToken(ctx, hash("second"))
	require.NoError(t, err)
	assert.Equal(t, 1, got.Uploads)
}
