package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
)

var tokenSeq int

// tok is a fresh token hash ending at end.
func tok(end time.Time) store.NewAPIToken {
	tokenSeq++
	return store.NewAPIToken{Hash: fmt.Sprintf("%064d-%d", tokenSeq, time.Now().UnixNano()), ExpiresAt: end}
}

func TestAPITokenFamilyRotation(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "rotate@tokens.example", pay.Corporation)
	other := newBuyer(t, "other@tokens.example", pay.Corporation)
	now := time.Now()

	_, err := db.Store.CreateAPITokenFamily(ctx, other.BuyerID, u.ID, 1, tok(now.Add(time.Minute)), tok(now.Add(time.Hour)))
	assert.ErrorIs(t, err, store.ErrNotFound, "a family is only made for the buyer's own user")

	a1, r1 := tok(now.Add(15*time.Minute)), tok(now.Add(30*24*time.Hour))
	f, err := db.Store.CreateAPITokenFamily(ctx, u.BuyerID, u.ID, u.SessionEpoch, a1, r1)
	require.NoError(t, err)
	assert.Equal(t, u.ID, f.UserID)

	acc, err := db.Store.APIAccessByHash(ctx, a1.Hash)
	require.NoError(t, err)
	assert.Equal(t, f.ID, acc.Family.ID)
	assert.WithinDuration(t, a1.ExpiresAt, acc.ExpiresAt, time.Millisecond)
	_, err = db.Store.APIAccessByHash(ctx, r1.Hash)
	assert.ErrorIs(t, err, store.ErrNotFound, "a refresh token is not an access token")

	_, err = db.Store.RotateAPIRefreshToken(ctx, a1.Hash, now, tok(now), tok(now))
	assert.ErrorIs(t, err, store.ErrAPITokenInvalid, "an access token is not a refresh token")

	a2, r2 := tok(now.Add(15*time.Minute)), tok(now.Add(30*24*time.Hour))
	got, err := db.Store.RotateAPIRefreshToken(ctx, r1.Hash, now, a2, r2)
	require.NoError(t, err)
	assert.Equal(t, f.ID, got.ID, "rotation stays in the family")
	acc, err = db.Store.APIAccessByHash(ctx, a2.Hash)
	require.NoError(t, err)
	assert.Nil(t, acc.Family.RevokedAt)

	// Reusing r1 revokes everything in the family, committed.
	_, err = db.Store.RotateAPIRefreshToken(ctx, r1.Hash, now, tok(now.Add(time.Minute)), tok(now.Add(time.Hour)))
	assert.ErrorIs(t, err, store.ErrAPITokenReused)
	for _, h := range []string{a1.Hash, a2.Hash} {
		acc, err := db.Store.APIAccessByHash(ctx, h)
		require.NoError(t, err)
		assert.NotNil(t, acc.RevokedAt, "access tokens of the family are revoked")
		assert.NotNil(t, acc.Family.RevokedAt)
	}
	_, err = db.Store.RotateAPIRefreshToken(ctx, r2.Hash, now, tok(now), tok(now))
	assert.ErrorIs(t, err, store.ErrAPITokenInvalid, "the live refresh token is revoked too")
}

func TestAPIRefreshTokenEndsAndFollowsTheEpoch(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "epoch@tokens.example", pay.Corporation)
	now := time.Now()
	r := tok(now.Add(time.Hour))
	_, err := db.Store.CreateAPITokenFamily(ctx, u.BuyerID, u.ID, u.SessionEpoch, tok(now.Add(time.Minute)), r)
	require.NoError(t, err)
	_, err = db.Store.RotateAPIRefreshToken(ctx, r.Hash, now.Add(time.Hour+time.Millisecond), tok(now), tok(now))
	assert.ErrorIs(t, err, store.ErrAPITokenInvalid, "expired at its end")
	_, err = db.Store.RotateAPIRefreshToken(ctx, "no such hash", now, tok(now), tok(now))
	assert.ErrorIs(t, err, store.ErrAPITokenInvalid)

	r = tok(now.Add(time.Hour))
	a := tok(now.Add(time.Minute))
	f, err := db.Store.CreateAPITokenFamily(ctx, u.BuyerID, u.ID, u.SessionEpoch, a, r)
	require.NoError(t, err)
	epoch, err := db.Store.SetPasswordAndEndSessions(ctx, u.BuyerID, u.ID, "new hash")
	require.NoError(t, err)
	_, err = db.Store.RotateAPIRefreshToken(ctx, r.Hash, now, tok(now), tok(now))
	assert.ErrorIs(t, err, store.ErrAPITokenInvalid, "a password change ends the family")
	acc, err := db.Store.APIAccessByHash(ctx, a.Hash)
	require.NoError(t, err)
	assert.NotNil(t, acc.Family.RevokedAt, "and revokes it")
	assert.ErrorIs(t, db.Store.SetAPITokenFamilyEpoch(ctx, u.BuyerID, u.ID, f.ID, epoch), store.ErrNotFound, "a revoked family stays revoked")
}

func TestAPITokenFamilyKeepsTheCallerAfterAPasswordChange(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "keep@tokens.example", pay.Corporation)
	other := newBuyer(t, "keep-other@tokens.example", pay.Corporation)
	now := time.Now()
	r := tok(now.Add(time.Hour))
	f, err := db.Store.CreateAPITokenFamily(ctx, u.BuyerID, u.ID, u.SessionEpoch, tok(now.Add(time.Minute)), r)
	require.NoError(t, err)
	epoch, err := db.Store.SetPasswordAndEndSessions(ctx, u.BuyerID, u.ID, "new hash")
	require.NoError(t, err)
	assert.ErrorIs(t, db.Store.SetAPITokenFamilyEpoch(ctx, other.BuyerID, u.ID, f.ID, epoch), store.ErrNotFound, "scoped by buyer")
	require.NoError(t, db.Store.SetAPITokenFamilyEpoch(ctx, u.BuyerID, u.ID, f.ID, epoch))
	_, err = db.Store.RotateAPIRefreshToken(ctx, r.Hash, now, tok(now.Add(time.Minute)), tok(now.Add(time.Hour)))
	assert.NoError(t, err)
}

func TestRevokeAPITokenFamilyIsScopedByBuyer(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "revoke@tokens.example", pay.Corporation)
	other := newBuyer(t, "revoke-other@tokens.example", pay.Corporation)
	now := time.Now()
	a, r := tok(now.Add(time.Minute)), tok(now.Add(time.Hour))
	f, err := db.Store.CreateAPITokenFamily(ctx, u.BuyerID, u.ID, u.SessionEpoch, a, r)
	require.NoError(t, err)
	assert.ErrorIs(t, db.Store.RevokeAPITokenFamily(ctx, other.BuyerID, other.ID, f.ID, now), store.ErrNotFound)
	acc, err := db.Store.APIAccessByHash(ctx, a.Hash)
	require.NoError(t, err)
	assert.Nil(t, acc.Family.RevokedAt, "another buyer cannot revoke it")
	require.NoError(t, db.Store.RevokeAPITokenFamily(ctx, u.BuyerID, u.ID, f.ID, now))
	acc, err = db.Store.APIAccessByHash(ctx, a.Hash)
	require.NoError(t, err)
	assert.NotNil(t, acc.RevokedAt)
}

func TestConcurrentRotationsOfOneRefreshToken(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "race@tokens.example", pay.Corporation)
	now := time.Now()
	r := tok(now.Add(time.Hour))
	_, err := db.Store.CreateAPITokenFamily(ctx, u.BuyerID, u.ID, u.SessionEpoch, tok(now.Add(time.Minute)), r)
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		a, nr := tok(now.Add(time.Minute)), tok(now.Add(time.Hour))
		wg.Go(func() { _, errs[i] = db.Store.RotateAPIRefreshToken(ctx, r.Hash, now, a, nr) })
	}
	wg.Wait()
	ok, reused := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, store.ErrAPITokenReused):
			reused++
		default:
			// Once a reuse revoked the family, later attempts find it revoked.
			assert.ErrorIs(t, err, store.ErrAPITokenInvalid)
		}
	}
	assert.Equal(t, 1, ok, "exactly one exchange wins: %v", errs)
	assert.GreaterOrEqual(t, reused, 1, "the next one is a reuse: %v", errs)
}

func TestPruneAPITokens(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "prune@tokens.example", pay.Corporation)
	now := time.Now()
	oldA, oldR := tok(now.Add(-48*time.Hour)), tok(now.Add(-47*time.Hour))
	_, err := db.Store.CreateAPITokenFamily(ctx, u.BuyerID, u.ID, u.SessionEpoch, oldA, oldR)
	require.NoError(t, err)
	liveA, liveR := tok(now.Add(time.Minute)), tok(now.Add(time.Hour))
	_, err = db.Store.CreateAPITokenFamily(ctx, u.BuyerID, u.ID, u.SessionEpoch, liveA, liveR)
	require.NoError(t, err)
	_, err = db.Store.DB.ExecContext(ctx, `UPDATE api_token_families SET created_at = now() - interval '3 days' WHERE user_id = $1`, u.ID)
	require.NoError(t, err)

	require.NoError(t, db.Store.PruneAPITokens(ctx, u.BuyerID, u.ID, now.Add(-24*time.Hour)))
	_, err = db.Store.APIAccessByHash(ctx, oldA.Hash)
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = db.Store.APIAccessByHash(ctx, liveA.Hash)
	assert.NoError(t, err)
	var families int
	require.NoError(t, db.Store.DB.GetContext(ctx, &families, `SELECT count(*) FROM api_token_families WHERE user_id = $1`, u.ID))
	assert.Equal(t, 1, families, "the emptied family goes")
}

func TestAPILoginChallengeAndSignupToken(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "challenge@tokens.example", pay.Corporation)
	end := time.Now().Add(10 * time.Minute)
	require.NoError(t, db.Store.CreateAPILoginChallenge(ctx, u.BuyerID, u.ID, "challenge-hash", end))
	ch, err := db.Store.APILoginChallengeByHash(ctx, "challenge-hash")
	require.NoError(t, err)
	assert.Equal(t, u.ID, ch.UserID)
	require.NoError(t, db.Store.UseAPILoginChallenge(ctx, ch.ID))
	assert.ErrorIs(t, db.Store.UseAPILoginChallenge(ctx, ch.ID), store.ErrNotFound, "used once")
	_, err = db.Store.APILoginChallengeByHash(ctx, "other")
	assert.ErrorIs(t, err, store.ErrNotFound)

	id, err := db.Store.CreateSignup(ctx, "signup@tokens.example", "hash", 1)
	require.NoError(t, err)
	require.NoError(t, db.Store.CreateAPISignupToken(ctx, id, "signup-hash", end))
	st, err := db.Store.APISignupTokenByHash(ctx, "signup-hash")
	require.NoError(t, err)
	assert.Equal(t, id, st.SignupID)
	assert.Nil(t, st.VerifiedAt)
	require.NoError(t, db.Store.VerifyAPISignupToken(ctx, st.ID))
	st, err = db.Store.APISignupTokenByHash(ctx, "signup-hash")
	require.NoError(t, err)
	assert.NotNil(t, st.VerifiedAt)
}

func TestNotificationPagesAreScopedByBuyer(t *testing.T) {
	ctx := context.Background()
	a := newBuyer(t, "a@notices.example", pay.Corporation)
	b := newBuyer(t, "b@notices.example", pay.Corporation)
	var ids []int64
	for i := range 3 {
		id, err := db.Store.CreateNotification(ctx, a.BuyerID, fmt.Sprintf("A%d", i), "")
		require.NoError(t, err)
		ids = append(ids, id)
	}
	l, err := db.Store.NotificationPage(ctx, a.BuyerID, 0, 2)
	require.NoError(t, err)
	assert.Equal(t, 3, l.CountAll)
	assert.Equal(t, 3, l.CountUnread)
	require.Len(t, l.Items, 2)
	assert.Equal(t, ids[2], l.Items[0].ID)

	l, err = db.Store.NotificationPage(ctx, b.BuyerID, 0, 10)
	require.NoError(t, err)
	assert.Zero(t, l.CountAll)
	assert.NotNil(t, l.Items)

	_, err = db.Store.NotificationOf(ctx, b.BuyerID, ids[0])
	assert.ErrorIs(t, err, store.ErrNotFound)
	_, err = db.Store.MarkNotificationRead(ctx, b.BuyerID, ids[0], time.Now())
	assert.ErrorIs(t, err, store.ErrNotFound)
	n, err := db.Store.MarkNotificationRead(ctx, a.BuyerID, ids[0], time.Now())
	require.NoError(t, err)
	require.NotNil(t, n.ReadAt)
	first := *n.ReadAt
	n, err = db.Store.MarkNotificationRead(ctx, a.BuyerID, ids[0], time.Now().Add(time.Hour))
	require.NoError(t, err)
	assert.True(t, first.Equal(*n.ReadAt), "the first reading counts")
	l, err = db.Store.NotificationPage(ctx, a.BuyerID, 0, 10)
	require.NoError(t, err)
	assert.Equal(t, 2, l.CountUnread)
}
