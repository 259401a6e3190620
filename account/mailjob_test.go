package account_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/mail/mailtest"
)

// rowCounts is how many one-time codes and jobs exist: the writes a request made.
func rowCounts(t *testing.T) (codes, jobs int) {
	t.Helper()
	require.NoError(t, db.Store.DB.Get(&codes, `SELECT count(*) FROM one_time_codes`))
	require.NoError(t, db.Store.DB.Get(&jobs, `SELECT count(*) FROM jobs`))
	return codes, jobs
}

// writes runs f and says how many codes and jobs it added.
func writes(t *testing.T, f func()) [2]int {
	t.Helper()
	c0, j0 := rowCounts(t)
	f()
	c1, j1 := rowCounts(t)
	return [2]int{c1 - c0, j1 - j0}
}

// The five requests that mail an address do the same writes whether or not the address
// has an account (or an unfinished sign-up): one code and one mail job. What differs is
// decided by the job, after the answer.
func TestMailingRequestsDoTheSameWorkForKnownAndUnknownAddresses(t *testing.T) {
	ctx := context.Background()
	s, box := newService(t)
	known := newUser(t, "known@same-work.example")
	other := newUser(t, "other@same-work.example")
	const unknown = "unknown@same-work.example"
	one := [2]int{1, 1}

	var openID int64
	signupKnown := writes(t, func() {
		_, errs, err := s.StartSignup(ctx, known.EmailAddress, "kakuninn2026pass", true)
		require.NoError(t, err)
		require.Empty(t, errs)
	})
	signupNew := writes(t, func() {
		id, errs, err := s.StartSignup(ctx, unknown, "kakuninn2026pass", true)
		require.NoError(t, err)
		require.Empty(t, errs)
		openID = id
	})
	assert.Equal(t, one, signupKnown, "sign-up, registered address")
	assert.Equal(t, one, signupNew, "sign-up, new address")

	resendOpen := writes(t, func() { require.NoError(t, s.SendSignupCode(ctx, openID, "open@mailjob.example")) })
	resendNone := writes(t, func() { require.NoError(t, s.SendSignupCode(ctx, 0, "none@mailjob.example")) })
	assert.Equal(t, one, resendOpen, "code resend")
	assert.Equal(t, resendOpen, resendNone, "code resend without a sign-up")

	resignupOpen := writes(t, func() {
		id, _, err := s.Resignup(ctx, unknown)
		require.NoError(t, err)
		assert.Equal(t, openID, id)
	})
	resignupNone := writes(t, func() {
		id, _, err := s.Resignup(ctx, "nobody@same-work.example")
		require.NoError(t, err)
		assert.Zero(t, id)
	})
	assert.Equal(t, one, resignupOpen, "re-registration")
	assert.Equal(t, resignupOpen, resignupNone, "re-registration of an address without a sign-up")

	resetKnown := writes(t, func() {
		_, err := s.SendPasswordReset(ctx, known.EmailAddress)
		require.NoError(t, err)
	})
	resetUnknown := writes(t, func() {
		_, err := s.SendPasswordReset(ctx, "nobody@same-work.example")
		require.NoError(t, err)
	})
	assert.Equal(t, one, resetKnown, "password reset")
	assert.Equal(t, resetKnown, resetUnknown, "password reset of an unknown address")

	changeFree := writes(t, func() {
		errs, err := s.StartEmailChange(ctx, known, "free@same-work.example", accountPassword)
		require.NoError(t, err)
		require.Empty(t, errs)
	})
	changeTaken := writes(t, func() {
		errs, err := s.StartEmailChange(ctx, known, other.EmailAddress, accountPassword)
		require.NoError(t, err)
		require.Empty(t, errs)
	})
	assert.Equal(t, one, changeFree, "e-mail change")
	assert.Equal(t, changeFree, changeTaken, "e-mail change to an address in use")

	// The jobs decided: the owners heard of it, the unknown got their codes, nobody
	// else got anything.
	settle(t)
	got := map[string][]string{}
	for _, m := range box.Messages() {
		got[m.To] = append(got[m.To], m.Subject)
	}
	assert.Equal(t, []string{"【請求書カード払い】新規登録のお申し込みについて", "【請求書カード払い】パスワード再設定の認証コード"}, got[known.EmailAddress])
	assert.Equal(t, []string{"【請求書カード払い】メールアドレス変更のお申し込みについて"}, got[other.EmailAddress])
	assert.Len(t, got[unknown], 3, "sign-up, resend and re-registration codes")
	assert.Len(t, got["free@same-work.example"], 1)
	assert.Len(t, got, 4, "nobody else: %v", got)
}

// A mail job keeps its message sealed: neither the code nor the address can be read
// from the jobs table.
func TestMailJobsAreSealed(t *testing.T) {
	ctx := context.Background()
	s, box := newService(t)
	u := newUser(t, "sealed@mail-job.example")
	_, err := s.SendPasswordReset(ctx, u.EmailAddress)
	require.NoError(t, err)
	code := mailtest.Code(box.WaitFor(t, u.EmailAddress, 5*time.Second).Text)
	require.Len(t, code, 6)

	var payloads []string
	require.NoError(t, db.Store.DB.Select(&payloads, `SELECT payload::text FROM jobs WHERE kind = $1`, account.MailJobKind))
	require.NotEmpty(t, payloads)
	for _, p := range payloads {
		assert.NotContains(t, p, code)
		assert.NotContains(t, p, "sealed@mail-job.example")
		assert.NotContains(t, p, "パスワード")
		var fields map[string]any
		require.NoError(t, json.Unmarshal([]byte(p), &fields))
		assert.Len(t, fields, 1, "only the sealed message: %s", p)
	}
}

// A job that cannot be opened fails (the runner retries it, then keeps it failed)
// rather than sending anything.
func TestDeliverMailRefusesWhatItCannotOpen(t *testing.T) {
	s, _ := newService(t)
	err := s.DeliverMail(context.Background(), json.RawMessage(`{"sealed":"tampered"}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "corrupt")
	err = s.DeliverMail(context.Background(), json.RawMessage(`[]`))
	require.Error(t, err)
}
