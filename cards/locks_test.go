package cards_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/cards"
	"cardpay/gateway"
	"cardpay/store"
)

// declining is a gateway whose issuer declines every verification with code.
func declining(code gateway.ResultCode) *fakeGateway {
	return &fakeGateway{card: visa(), authorize: func(r gateway.AuthorizeRequest) (gateway.Transaction, error) {
		return gateway.Transaction{PaymentID: r.PaymentID, Status: gateway.StatusDeclined, ResultCode: code}, nil
	}}
}

// fakeLimiter records the limiter's calls and refuses checks once refuse is set.
type fakeLimiter struct {
	mu               sync.Mutex
	checks, declines int
	refuse           bool
	lockOff          bool // card_decline.target turned off
}

func (f *fakeLimiter) LimitCardCheck(context.Context, int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checks++
	if f.refuse {
		return &account.Limited{Until: now.Add(time.Hour), RetryAfter: time.Hour}
	}
	return nil
}

func (f *fakeLimiter) CardDeclineLimit() int {
	if f.lockOff {
		return 0
	}
	return cards.DeclineLimit
}

func (f *fakeLimiter) CountCardDecline(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.declines++
	return nil
}

func TestDeclinesLockAddingCards(t *testing.T) {
	ctx := context.Background()
	buyer, other := newBuyer(t), newBuyer(t)
	gw := declining(gateway.ResultCardRestricted)
	lim := &fakeLimiter{}
	s := newService(gw)
	s.Limiter = lim

	// A processor error says nothing about the card: it does not count.
	pe := newService(declining(gateway.ResultProcessorError))
	for range 3 {
		_, err := pe.AddCard(ctx, buyer, "tok")
		assert.Equal(t, gateway.ResultProcessorError, refusal(t, err).Code)
	}
	for i := range cards.DeclineLimit {
		_, err := s.AddCard(ctx, buyer, "tok")
		r := refusal(t, err)
		assert.False(t, r.Locked, "decline %d", i+1)
		assert.Equal(t, gateway.ResultCardRestricted, r.Code)
	}
	asked := len(gw.auths)
	_, err := s.AddCard(ctx, buyer, "tok")
	r := refusal(t, err)
	assert.True(t, r.Locked, "locked after %d declines", cards.DeclineLimit)
	assert.Equal(t, cards.MsgLocked, r.Message)
	assert.Len(t, gw.auths, asked, "a locked buyer's card never reaches the PSP")
	assert.Equal(t, cards.DeclineLimit, lim.checks, "the lock comes before the limiter")
	assert.Equal(t, cards.DeclineLimit, lim.declines, "each decline counted against the IP")

	locked, err := s.Locked(ctx, buyer)
	require.NoError(t, err)
	assert.True(t, locked)
	locked, err = s.Locked(ctx, other)
	require.NoError(t, err)
	assert.False(t, locked, "another buyer is not locked")

	list, err := db.Store.CardCheckLocks(ctx, cards.Day(now))
	require.NoError(t, err)
	var row *store.CardCheckLock
	for i := range list {
		if list[i].BuyerID == buyer {
			row = &list[i]
		}
	}
	require.NotNil(t, row, "the console lists the buyer")
	assert.Equal(t, cards.DeclineLimit, row.Declines)
	assert.Equal(t, "テスト株式会社", row.BuyerName)

	// The next day in Japan (midnight JST, not UTC) adding cards works again.
	tomorrow := newService(&fakeGateway{card: visa()})
	tomorrow.Now = func() time.Time { return time.Date(2026, 11, 21, 0, 0, 1, 0, now.Location()) }
	_, err = tomorrow.AddCard(ctx, buyer, "tok")
	require.NoError(t, err)
	late := newService(&fakeGateway{card: visa()})
	late.Now = func() time.Time { return time.Date(2026, 11, 20, 23, 59, 0, 0, now.Location()) }
	_, err = late.AddCard(ctx, buyer, "tok")
	assert.True(t, refusal(t, err).Locked, "still locked at 23:59 JST (14:59 UTC)")
}

func TestOperatorUnlocksCardChecks(t *testing.T) {
	ctx := context.Background()
	buyer := newBuyer(t)
	op, err := db.Store.CreateOperator(ctx, store.NewOperator{EmailAddress: "unlock@ops.example", Name: "解除 担当", PasswordHash: "x", Roles: []string{"screening"}})
	require.NoError(t, err)
	s := newService(declining(gateway.ResultInsufficientFunds))
	assert.ErrorIs(t, s.Unlock(ctx, buyer, op.ID, ""), store.ErrStateChanged, "nothing to unlock")
	for range cards.DeclineLimit {
		_, err := s.AddCard(ctx, buyer, "tok")
		require.False(t, refusal(t, err).Locked)
	}
	locked, err := s.Locked(ctx, buyer)
	require.NoError(t, err)
	require.True(t, locked)

	require.NoError(t, s.Unlock(ctx, buyer, op.ID, "本人確認済み"))
	assert.ErrorIs(t, s.Unlock(ctx, buyer, op.ID, ""), store.ErrStateChanged, "an unlock happens once")
	audit, _, err := db.Store.AuditLog(ctx, store.AuditFilter{ObjectType: store.AuditBuyer, ObjectID: buyer, Limit: 10})
	require.NoError(t, err)
	require.Len(t, audit, 1)
	assert.Equal(t, "unlock_card_checks", audit[0].Action)
	assert.Equal(t, op.ID, audit[0].OperatorID)
	assert.Equal(t, "本人確認済み", audit[0].Reason)

	ok := newService(&fakeGateway{card: visa()})
	added, err := ok.AddCard(ctx, buyer, "tok")
	require.NoError(t, err)
	assert.NotNil(t, added.Card, "adding a card works again")

	// The count starts again: five more declines lock again.
	for range cards.DeclineLimit {
		_, err := s.AddCard(ctx, buyer, "tok")
		require.False(t, refusal(t, err).Locked)
	}
	_, err = s.AddCard(ctx, buyer, "tok")
	assert.True(t, refusal(t, err).Locked)
}

func TestLimiterRefusesBeforeThePSP(t *testing.T) {
	ctx := context.Background()
	gw := &fakeGateway{card: visa()}
	s := newService(gw)
	s.Limiter = &fakeLimiter{refuse: true}
	_, err := s.AddCard(ctx, newBuyer(t), "tok")
	_, limited := account.AsLimited(err)
	assert.True(t, limited, "got %v", err)
	assert.Empty(t, gw.auths)
}

func TestLockOffStillCountsTheIP(t *testing.T) {
	ctx := context.Background()
	buyer := newBuyer(t)
	s := newService(declining(gateway.ResultOverLimit))
	lim := &fakeLimiter{lockOff: true}
	s.Limiter = lim
	for range cards.DeclineLimit + 2 {
		_, err := s.AddCard(ctx, buyer, "tok")
		assert.False(t, refusal(t, err).Locked, "the lock is off")
	}
	assert.Equal(t, cards.DeclineLimit+2, lim.declines, "the IP's declines are counted all the same")
	l, err := db.Store.CardCheckLock(ctx, buyer, cards.Day(now))
	require.NoError(t, err)
	assert.Zero(t, l.Declines, "nothing counted for a lock that is off")
}
