package account_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/mail/mailtest"
	"cardpay/store"
)

// The step-up's freshness is the caller's session's: a factor given counts for 5 minutes,
// on that session only, for its own user only; a mailed code is checked once.
func TestStepUpIsFreshForFiveMinutesOnItsOwnSession(t *testing.T) {
	s, srv := newService(t)
	now := time.Now()
	s.Now = func() time.Time { return now }
	ctx := context.Background()
	u := newUser(t, "stepup@account.example")
	other := newUser(t, "stepup-other@account.example")
	sid, err := s.StartSession(ctx, u, store.SessionBrowser, 0, account.Client{IP: "192.0.2.1"})
	require.NoError(t, err)
	otherSid, err := s.StartSession(ctx, other, store.SessionBrowser, 0, account.Client{IP: "192.0.2.2"})
	require.NoError(t, err)
	on := func(id int64) context.Context { return account.WithCaller(ctx, account.Caller{SessionID: id}) }

	fresh, err := s.StepUpFresh(ctx, u)
	require.NoError(t, err)
	assert.False(t, fresh, "no session, never fresh")
	fresh, err = s.StepUpFresh(on(sid), u)
	require.NoError(t, err)
	assert.False(t, fresh, "a password sign-in is not a second factor")

	require.NoError(t, s.EnsureStepUpCode(on(sid), u))
	require.NoError(t, s.EnsureStepUpCode(on(sid), u)) // the code on its way stays
	settle(t)
	code := mailtest.Code(srv.WaitFor(t, "stepup@account.example", 5*time.Second).Text)
	require.Len(t, code, 6)
	assert.Len(t, srv.Messages(), 1, "one code mailed for two asks")
	err = s.StepUp(on(sid), u, "000000")
	if code != "000000" {
		r, ok := account.AsRefusal(err)
		require.True(t, ok, "%v", err)
		assert.Equal(t, account.StepUpField, r.Field)
	}
	require.NoError(t, s.StepUp(on(sid), u, code))
	_, ok := account.AsRefusal(s.StepUp(on(sid), u, code))
	assert.True(t, ok, "a code works once")

	fresh, err = s.StepUpFresh(on(sid), u)
	require.NoError(t, err)
	assert.True(t, fresh)
	fresh, err = s.StepUpFresh(on(otherSid), u)
	require.NoError(t, err)
	assert.False(t, fresh, "another user's session is not this user's")
	fresh, err = s.StepUpFresh(on(sid), other)
	require.NoError(t, err)
	assert.False(t, fresh, "this session is not another user's")

	now = now.Add(account.StepUpWindow - time.Second)
	fresh, _ = s.StepUpFresh(on(sid), u)
	assert.True(t, fresh, "4:59 later")
	now = now.Add(2 * time.Second)
	fresh, _ = s.StepUpFresh(on(sid), u)
	assert.False(t, fresh, "5:01 later")
}
