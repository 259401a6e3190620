package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/auth"
	"cardpay/handlers/api"
	"cardpay/handlers/webtest"
	"cardpay/pay"
)

// Adding or changing a supplier's bank account through the API needs the second factor
// given within 5 minutes by this sign-in: without it the answer is 403
// step_up_required (a code mailed to a buyer without an authenticator) and nothing
// changes; the code goes in X-Step-Up-Code; 6 minutes later it is asked again.
func TestSupplierAccountChangesNeedAFreshSecondFactor(t *testing.T) {
	env := newEnv(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.signedInAs(t, u)
	sp, acct := createSupplier(t, c, "確認商事株式会社")
	base := fmt.Sprintf("/suppliers/%d/accounts", sp)
	_, before := counts(t, u.BuyerID)

	r := c.post(base, with(mizuhoAccount(), "account_number", "7654321"))
	require.Equal(t, http.StatusForbidden, r.Status, r.String())
	assert.Equal(t, "step_up_required", r.str("status"))
	assert.Equal(t, "email", r.str("method"))
	_, n := counts(t, u.BuyerID)
	assert.Equal(t, before, n, "no fresh factor, no account")
	code := env.WaitCode(t, u.EmailAddress)

	c.headers[api.StepUpHeader] = "999999"
	if code == "999999" {
		c.headers[api.StepUpHeader] = "888888"
	}
	r = c.post(base, with(mizuhoAccount(), "account_number", "7654321"))
	require.Equal(t, http.StatusForbidden, r.Status, r.String())
	assert.Equal(t, "step_up_required", r.str("status"))
	assert.Contains(t, r.String(), "step_up_code")
	_, n = counts(t, u.BuyerID)
	assert.Equal(t, before, n, "a wrong code saves nothing")

	c.headers[api.StepUpHeader] = code
	r = c.post(base, with(mizuhoAccount(), "account_number", "7654321"))
	require.Equal(t, http.StatusCreated, r.Status, r.String())
	delete(c.headers, api.StepUpHeader)
	r = c.put(fmt.Sprintf("%s/%d", base, acct), with(mizuhoAccount(), "account_number", "1111111"))
	require.Equal(t, http.StatusOK, r.Status, "within 5 minutes no code is asked: %s", r)

	env.clock.Add(6 * time.Minute)
	r = c.put(fmt.Sprintf("%s/%d", base, acct), with(mizuhoAccount(), "account_number", "2222222"))
	require.Equal(t, http.StatusForbidden, r.Status, r.String())
	assert.Equal(t, "step_up_required", r.str("status"))
	got, err := webtest.Store().SupplierAccount(context.Background(), u.BuyerID, sp, acct)
	require.NoError(t, err)
	assert.Equal(t, "1111111", got.AccountNumber)

	// Another sign-in of the same user has its own time: a fresh factor here is not there.
	other := env.signedInAs(t, u)
	r = other.put(fmt.Sprintf("%s/%d", base, acct), with(mizuhoAccount(), "account_number", "3333333"))
	assert.Equal(t, http.StatusForbidden, r.Status, r.String())
}

// An authenticator user is asked for the authenticator's code (no mail); a sign-in that
// passed it counts for 5 minutes.
func TestSupplierAccountStepUpByAuthenticator(t *testing.T) {
	env := newEnv(t)
	ctx := context.Background()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.signedInAs(t, u)
	sp, _ := createSupplier(t, c, "認証商事株式会社")
	key, err := auth.NewTOTP("請求書カード払い", u.EmailAddress)
	require.NoError(t, err)
	sealed, err := auth.NewSealer(webtest.SecretKey).Seal(key.Secret)
	require.NoError(t, err)
	require.NoError(t, webtest.Store().SetTwoFactor(ctx, u.BuyerID, u.ID, "totp", sealed))
	base := fmt.Sprintf("/suppliers/%d/accounts", sp)

	r := c.post(base, with(mizuhoAccount(), "account_number", "7654321"))
	require.Equal(t, http.StatusForbidden, r.Status, r.String())
	assert.Equal(t, "totp", r.str("method"))
	code, err := totp.GenerateCode(key.Secret, env.clock.Now())
	require.NoError(t, err)
	c.headers[api.StepUpHeader] = code
	r = c.post(base, with(mizuhoAccount(), "account_number", "7654321"))
	require.Equal(t, http.StatusCreated, r.Status, r.String())

	// A sign-in through login_2auth is itself a fresh factor.
	env.clock.Add(time.Minute)
	fresh := env.client(t)
	r = fresh.post("/login", map[string]any{"email_address": u.EmailAddress, "password": webtest.Password})
	next, err := totp.GenerateCode(key.Secret, env.clock.Now())
	require.NoError(t, err)
	r = fresh.post("/login_2auth", map[string]any{"session_token": r.str("session_token"), "code": next})
	require.Equal(t, http.StatusOK, r.Status, r.String())
	fresh.setTokens(r)
	r = fresh.post(base, with(mizuhoAccount(), "account_number", "7654322"))
	require.Equal(t, http.StatusCreated, r.Status, r.String())
}

// A payment to a registered supplier with a new account (is_new_account) redirects the
// supplier's money like adding the account does: the same step-up. A new supplier with
// its first account needs none (the operators review every new supplier).
func TestNewAccountInAPaymentNeedsAFreshSecondFactor(t *testing.T) {
	e := newEnv(t)
	b := newPayingBuyer(t, e, "4111111111111111")
	f := b.flow("5000")
	f["is_new_account"] = true
	f["new_account"] = map[string]any{"bank_code": "0001", "branch_code": "001", "account_type": 2, "account_number": "7654321", "holder_name": "ﾔﾏﾀﾞ"}
	_, before := counts(t, b.u.BuyerID)
	r := b.submit("stepup-1", f)
	require.Equal(t, http.StatusForbidden, r.Status, r.String())
	assert.Equal(t, "step_up_required", r.str("status"))
	_, n := counts(t, b.u.BuyerID)
	assert.Equal(t, before, n, "no account without the factor")
	assert.Equal(t, float64(0), b.c.get("/invoices?bucket=review").num("total_count"), "and no payment")

	webtest.GiveFactor(t, b.u, e.clock.Now())
	r = b.submit("stepup-2", f)
	require.Equal(t, http.StatusCreated, r.Status, r.String())
}
