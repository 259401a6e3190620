package store_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
)

func TestCodesOnlyNewestWorksOnce(t *testing.T) {
	ctx := context.Background()
	exp := time.Now().Add(10 * time.Minute)
	first, err := db.Store.CreateCode(ctx, store.PurposeSignup, "s-1", "h1", "", exp)
	require.NoError(t, err)
	second, err := db.Store.CreateCode(ctx, store.PurposeSignup, "s-1", "h2", "payload", exp)
	require.NoError(t, err)

	latest, err := db.Store.LatestCode(ctx, store.PurposeSignup, "s-1")
	require.NoError(t, err)
	assert.Equal(t, second, latest.ID)
	assert.Equal(t, "payload", latest.Payload)
	assert.Nil(t, latest.UsedAt)
	assert.ErrorIs(t, db.Store.UseCode(ctx, first), store.ErrNotFound, "a new code retires the old one")

	for range 2 {
		c, counted, err := db.Store.CountCodeAttempt(ctx, store.PurposeSignup, "s-1", time.Now(), 5)
		require.NoError(t, err)
		assert.True(t, counted)
		assert.Equal(t, second, c.ID, "the newest code is counted")
	}
	require.NoError(t, db.Store.UseCode(ctx, second))
	assert.ErrorIs(t, db.Store.UseCode(ctx, second), store.ErrNotFound, "a code works once")
	latest, err = db.Store.LatestCode(ctx, store.PurposeSignup, "s-1")
	require.NoError(t, err)
	assert.Equal(t, 2, latest.Attempts)
	assert.NotNil(t, latest.UsedAt)

	_, err = db.Store.LatestCode(ctx, store.PurposeSignIn, "s-1")
	assert.ErrorIs(t, err, store.ErrNotFound, "codes are per purpose")
	_, _, err = db.Store.CountCodeAttempt(ctx, store.PurposeSignIn, "s-1", time.Now(), 5)
	assert.ErrorIs(t, err, store.ErrNotFound, "no code, nothing counted")
	c, counted, err := db.Store.CountCodeAttempt(ctx, store.PurposeSignup, "s-1", time.Now(), 5)
	require.NoError(t, err)
	assert.False(t, counted, "a used code is not counted")
	assert.Equal(t, 2, c.Attempts)
}

// TestCountCodeAttemptParallel fires 50 entries at once at one code: the check and the
// count are one statement, so exactly the limit is counted.
func TestCountCodeAttemptParallel(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	_, err := db.Store.CreateCode(ctx, store.PurposeSignIn, "p-1", "h", "", now.Add(10*time.Minute))
	require.NoError(t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	countedN, refused := 0, 0
	start := make(chan struct{})
	for range 50 {
		wg.Go(func() {
			<-start
			_, counted, err := db.Store.CountCodeAttempt(ctx, store.PurposeSignIn, "p-1", now, 5)
			mu.Lock()
			defer mu.Unlock()
			if assert.NoError(t, err) && counted {
				countedN++
			} else {
				refused++
			}
		})
	}
	close(start)
	wg.Wait()
	assert.Equal(t, 5, countedN)
	assert.Equal(t, 45, refused)
	c, err := db.Store.LatestCode(ctx, store.PurposeSignIn, "p-1")
	require.NoError(t, err)
	assert.Equal(t, 5, c.Attempts)

	// An expired code is not counted either.
	_, err = db.Store.CreateCode(ctx, store.PurposeSignIn, "p-2", "h", "", now.Add(-time.Second))
	require.NoError(t, err)
	_, counted, err := db.Store.CountCodeAttempt(ctx, store.PurposeSignIn, "p-2", now, 5)
	require.NoError(t, err)
	assert.False(t, counted)
}

func TestRegisterFromSignupOnce(t *testing.T) {
	ctx := context.Background()
	id, err := db.Store.CreateSignup(ctx, "new@register.example", "hash", 1)
	require.NoError(t, err)
	nb := store.NewBuyer{
		BusinessForm: pay.Corporation, EmailAddress: "new@register.example", PasswordHash: "hash", TermsVersion: 1,
		LastName: "山田", FirstName: "花子",
		Details: store.BuyerDetails{CorporateName: "登録株式会社", CorporateNameKana: "トウロク", AddressState: "東京都", TransferPersonName: "トウロク（カ"},
	}
	_, err = db.Store.Register(ctx, id, nb, nil)
	assert.ErrorIs(t, err, store.ErrNotFound, "an unverified sign-up cannot register")

	require.NoError(t, db.Store.VerifySignup(ctx, id))
	u, err := db.Store.Register(ctx, id, nb, nil)
	require.NoError(t, err)
	assert.Equal(t, "登録株式会社", u.DisplayName())
	assert.Equal(t, 1, u.TermsVersion)
	b, err := db.Store.Buyer(ctx, u.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, "トウロク", b.CorporateNameKana)
	assert.Equal(t, "東京都", b.AddressState)
	assert.Equal(t, pay.Corporation, b.BusinessForm)

	_, err = db.Store.Register(ctx, id, nb, nil)
	assert.ErrorIs(t, err, store.ErrNotFound, "a sign-up registers one buyer")
	_, err = db.Store.LatestOpenSignup(ctx, "new@register.example")
	assert.ErrorIs(t, err, store.ErrNotFound)
	taken, err := db.Store.EmailTaken(ctx, "NEW@register.example")
	require.NoError(t, err)
	assert.True(t, taken)
}

func TestCredentialsAreScopedByBuyer(t *testing.T) {
	ctx := context.Background()
	a := newBuyer(t, "a@cred.example", pay.Corporation)
	b := newBuyer(t, "b@cred.example", pay.Corporation)

	assert.ErrorIs(t, db.Store.SetUserName(ctx, b.BuyerID, a.ID, "x", "y"), store.ErrNotFound)
	assert.ErrorIs(t, db.Store.SetEmailAddress(ctx, b.BuyerID, a.ID, "x@x.example"), store.ErrNotFound)
	assert.ErrorIs(t, db.Store.SetTwoFactor(ctx, b.BuyerID, a.ID, "email", ""), store.ErrNotFound)
	assert.ErrorIs(t, db.Store.AcceptTerms(ctx, b.BuyerID, a.ID, 9, time.Now()), store.ErrNotFound)
	assert.ErrorIs(t, db.Store.ReplaceRecoveryCodes(ctx, b.BuyerID, a.ID, []string{"h"}), store.ErrNotFound)
	_, err := db.Store.SetPasswordAndEndSessions(ctx, b.BuyerID, a.ID, "x")
	assert.ErrorIs(t, err, store.ErrNotFound)
	got, err := db.Store.User(ctx, a.BuyerID, a.ID)
	require.NoError(t, err)
	assert.Equal(t, "hash", got.PasswordHash, "nothing changed")
	assert.Equal(t, 1, got.SessionEpoch)

	epoch, err := db.Store.SetPasswordAndEndSessions(ctx, a.BuyerID, a.ID, "new")
	require.NoError(t, err)
	assert.Equal(t, 2, epoch)
	require.NoError(t, db.Store.SetTwoFactor(ctx, a.BuyerID, a.ID, "totp", "sealed"))
	require.NoError(t, db.Store.UseTOTPStep(ctx, a.ID, 100))
	assert.ErrorIs(t, db.Store.UseTOTPStep(ctx, a.ID, 100), store.ErrNotFound, "a TOTP step is used once")
	require.NoError(t, db.Store.SetTransferPersonName(ctx, a.BuyerID, "ﾃｽﾄ"))
}

func TestSignInFailuresAndEvents(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "events@cred.example", pay.SoleProprietor)
	now := time.Now()
	key := "address:events"
	for i := 1; i <= 10; i++ {
		n, err := db.Store.AddSignInFailure(ctx, key, now)
		require.NoError(t, err)
		assert.Equal(t, i, n)
	}
	until := now.Add(15 * time.Minute)
	job := store.NewJob{Kind: "test-lock-notice", Payload: map[string]string{}}
	locked, err := db.Store.LockSignIns(ctx, key, until, now, job)
	require.NoError(t, err)
	assert.True(t, locked)
	locked, err = db.Store.LockSignIns(ctx, key, until.Add(time.Minute), now, job)
	require.NoError(t, err)
	assert.False(t, locked, "a running lock is not set again, nor mailed again")
	got, err := db.Store.SignInThrottle(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, 10, got.Failures)
	require.NotNil(t, got.LockedUntil)
	assert.WithinDuration(t, until, *got.LockedUntil, time.Millisecond)
	var notices int
	require.NoError(t, db.Store.DB.GetContext(ctx, &notices, `SELECT count(*) FROM jobs WHERE kind = 'test-lock-notice'`))
	assert.Equal(t, 1, notices, "one notice per lock")
	require.NoError(t, db.Store.ClearSignInFailures(ctx, key))
	got, err = db.Store.SignInThrottle(ctx, key)
	require.NoError(t, err)
	assert.Zero(t, got.Failures)
	assert.Nil(t, got.LockedUntil)

	require.NoError(t, db.Store.AddSignInEvent(ctx, u.ID, false, "127.0.0.1", "short"))
	require.NoError(t, db.Store.AddSignInEvent(ctx, u.ID, true, "127.0.0.1", strings.Repeat("あ", 900)+"\xff"))
	ev, err := db.Store.SignInEvents(ctx, u.BuyerID, u.ID, 10)
	require.NoError(t, err)
	require.Len(t, ev, 2)
	assert.True(t, ev[0].Succeeded)
	assert.Equal(t, 500, len([]rune(ev[0].UserAgent)), "user agents are cut to 500 characters")
	other := newBuyer(t, "other-events@cred.example", pay.Corporation)
	ev, err = db.Store.SignInEvents(ctx, other.BuyerID, u.ID, 10)
	require.NoError(t, err)
	assert.Empty(t, ev, "another buyer sees none")

	// A failure of an account's address records the attempt in the same statement; one
	// of an address without an account records only the count.
	n, err := db.Store.AddSignInFailure(ctx, "address:with-account", now, store.FailedSignIn{UserID: u.ID, IP: "192.0.2.7", UserAgent: "attempt"})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	n, err = db.Store.AddSignInFailure(ctx, "address:without-account", now, store.FailedSignIn{})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	ev, err = db.Store.SignInEvents(ctx, u.BuyerID, u.ID, 10)
	require.NoError(t, err)
	require.Len(t, ev, 3)
	assert.Equal(t, []any{false, "192.0.2.7", "attempt"}, []any{ev[0].Succeeded, ev[0].IPAddress, ev[0].UserAgent})
}

func TestRecoveryCodes(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "recovery@cred.example", pay.Corporation)
	require.NoError(t, db.Store.ReplaceRecoveryCodes(ctx, u.BuyerID, u.ID, []string{"h1", "h2"}))
	rc, err := db.Store.UnusedRecoveryCodes(ctx, u.ID)
	require.NoError(t, err)
	require.Len(t, rc, 2)
	require.NoError(t, db.Store.UseRecoveryCode(ctx, u.ID, rc[0].ID))
	assert.ErrorIs(t, db.Store.UseRecoveryCode(ctx, u.ID, rc[0].ID), store.ErrNotFound)
	rc, _ = db.Store.UnusedRecoveryCodes(ctx, u.ID)
	assert.Len(t, rc, 1)
	require.NoError(t, db.Store.ReplaceRecoveryCodes(ctx, u.BuyerID, u.ID, []string{"h3"}))
	rc, _ = db.Store.UnusedRecoveryCodes(ctx, u.ID)
	require.Len(t, rc, 1)
	assert.Equal(t, "h3", rc[0].CodeHash)
}

// Claims of one corporate number at once: the advisory lock lets exactly one become its
// active holder; every other is held (number_taken) and its notice names the holder.
func TestRegisterHoldsEveryClaimOfANumberButTheFirst(t *testing.T) {
	ctx := context.Background()
	const number, claims = "8010401123457", 8
	ids := make([]int64, claims)
	for i := range ids {
		email := fmt.Sprintf("claim-%d@number.example", i)
		id, err := db.Store.CreateSignup(ctx, email, "hash", 1)
		require.NoError(t, err)
		require.NoError(t, db.Store.VerifySignup(ctx, id))
		ids[i] = id
	}
	var mu sync.Mutex
	var noticed []string
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Go(func() {
			nb := store.NewBuyer{BusinessForm: pay.Corporation, EmailAddress: fmt.Sprintf("claim-%d@number.example", i), PasswordHash: "hash",
				TermsVersion: 1, Details: store.BuyerDetails{CorporateName: "番号株式会社", CorporateNumber: number}}
			_, err := db.Store.Register(ctx, id, nb, func(holders []string) ([]store.NewJob, error) {
				mu.Lock()
				noticed = append(noticed, holders...)
				mu.Unlock()
				return nil, nil
			})
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	var states []string
	require.NoError(t, db.Store.DB.Select(&states, `SELECT review_status || ':' || review_reason FROM buyers WHERE corporate_number = $1`, number))
	counts := map[string]int{}
	for _, s := range states {
		counts[s]++
	}
	assert.Equal(t, map[string]int{"active:": 1, "held:number_taken": claims - 1}, counts)
	require.Len(t, noticed, claims-1, "each held claim notices the one holder")
	for _, h := range noticed {
		assert.Equal(t, noticed[0], h)
	}
}
