package suppliers_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/auth"
	"cardpay/handlers/webtest"
	"cardpay/pay"
)

// Adding or changing a supplier's bank account asks for the second factor again unless
// the session gave it in the last 5 minutes: a buyer without two-factor gets a mailed
// code. Without it nothing is saved; a code given 6 minutes ago is asked for again.
// Without JavaScript: the code field is part of the plain details form.
func TestBankAccountChangesAskForTheSecondFactorAgain(t *testing.T) {
	env := webtest.New(t)
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	s, acct := newSupplier(t, u.BuyerID, "確認商事株式会社")
	id := strconv.FormatInt(s.ID, 10)
	add := "/suppliers/" + id + "/accounts/new"

	res := c.Get(add + "?bank_code=0001&branch_code=001")
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Contains(t, res.Body, `name="step_up_code"`)
	assert.Contains(t, res.Body, u.EmailAddress+" にお送りした6桁の確認コード")
	assert.NotContains(t, res.Body, `data-island="supplier-account"`, "the plain form carries the code field")
	code := env.WaitCode(t, u.EmailAddress)
	// Visiting again does not retire the code on its way.
	require.Equal(t, http.StatusOK, c.Get(add+"?bank_code=0001&branch_code=001").StatusCode)

	form := url.Values{"bank_code": {"0001"}, "branch_code": {"001"}, "account_type": {"2"}, "account_number": {"7654321"}, "holder_name": {"ﾔﾏﾀﾞ"}}
	webtest.AssertFieldError(t, c.Post(add, form), "step_up_code", "メールでお送りした確認コードを入力してください")
	assert.Equal(t, 1, bankAccountCount(t, u.BuyerID), "no fresh factor, no account")
	form.Set("step_up_code", "000000")
	if code == "000000" {
		form.Set("step_up_code", "111111")
	}
	res = c.Post(add, form)
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	assert.Contains(t, res.Body, `id="step_up_code-error"`)
	assert.Equal(t, 1, bankAccountCount(t, u.BuyerID), "a wrong code saves nothing")

	form.Set("step_up_code", code)
	res = c.Post(add, form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, 2, bankAccountCount(t, u.BuyerID))

	// Within 5 minutes the form asks nothing more (and the island is back).
	edit := "/suppliers/" + id + "/accounts/" + strconv.FormatInt(acct.ID, 10) + "/edit"
	res = c.Get(edit)
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.NotContains(t, res.Body, `name="step_up_code"`)
	changed := url.Values{"bank_code": {"0001"}, "branch_code": {"001"}, "account_type": {"2"}, "account_number": {"1111111"}, "holder_name": {"ﾔﾏﾀﾞ"}}
	require.Equal(t, http.StatusSeeOther, c.Post(edit, changed).StatusCode)

	// A factor 6 minutes old is stale: asked again, and the account stays as it was.
	webtest.GiveFactor(t, u, time.Now().Add(-6*time.Minute))
	changed.Set("account_number", "2222222")
	webtest.AssertFieldError(t, c.Post(edit, changed), "step_up_code", "確認コードを入力してください")
	got, err := webtest.Store().SupplierAccount(context.Background(), u.BuyerID, s.ID, acct.ID)
	require.NoError(t, err)
	assert.Equal(t, "1111111", got.AccountNumber)

	// The form mailed a new code (the last one was used); the resend button retires it
	// for a newer one, and the form comes back with it, nothing saved.
	stale := env.WaitCode(t, u.EmailAddress)
	changed.Set("resend_code", "1")
	webtest.AssertFieldError(t, c.Post(edit, changed), "step_up_code", "確認コードを再送しました")
	fresh := env.WaitCode(t, u.EmailAddress)
	changed.Del("resend_code")
	if stale != fresh {
		changed.Set("step_up_code", stale)
		webtest.AssertFieldError(t, c.Post(edit, changed), "step_up_code", "確認コード")
	}
	changed.Set("step_up_code", fresh)
	require.Equal(t, http.StatusSeeOther, c.Post(edit, changed).StatusCode)

	// Another user's fresh factor is not this user's: it is kept on each session's row.
	other := webtest.NewBuyer(t, pay.Corporation, "")
	oc := env.Client(t)
	oc.SignIn(other.EmailAddress)
	webtest.GiveFactor(t, other, time.Now())
	assert.Equal(t, http.StatusNotFound, oc.Post(edit, changed).StatusCode, "another buyer's supplier is not found")
}

// An authenticator user gives the authenticator's code; a sign-in that passed its
// second factor counts as one for 5 minutes.
func TestBankAccountStepUpByAuthenticatorAndBySignIn(t *testing.T) {
	env := webtest.New(t)
	ctx := context.Background()
	u := webtest.NewBuyer(t, pay.Corporation, "")
	key, err := auth.NewTOTP("請求書カード払い", u.EmailAddress)
	require.NoError(t, err)
	sealed, err := auth.NewSealer(webtest.SecretKey).Seal(key.Secret)
	require.NoError(t, err)
	require.NoError(t, webtest.Store().SetTwoFactor(ctx, u.BuyerID, u.ID, "totp", sealed))
	c := env.Client(t)
	c.SignIn(u.EmailAddress) // the password step only: the session starts after the code
	first, err := totp.GenerateCode(key.Secret, time.Now())
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, c.Post("/onetime-password", url.Values{"code": {first}}).StatusCode)

	s, _ := newSupplier(t, u.BuyerID, "認証商事株式会社")
	add := "/suppliers/" + strconv.FormatInt(s.ID, 10) + "/accounts/new"
	form := url.Values{"bank_code": {"0001"}, "branch_code": {"001"}, "account_type": {"2"}, "account_number": {"7654321"}, "holder_name": {"ﾔﾏﾀﾞ"}}
	require.Equal(t, http.StatusSeeOther, c.Post(add, form).StatusCode, "the sign-in's factor is fresh")

	webtest.GiveFactor(t, u, time.Now().Add(-6*time.Minute))
	res := c.Get(add + "?bank_code=0001&branch_code=001")
	assert.Contains(t, res.Body, "認証アプリに表示されている6桁の数字")
	form.Set("account_number", "7654322")
	webtest.AssertFieldError(t, c.Post(add, form), "step_up_code", "認証アプリに表示されている確認コードを入力してください")
	assert.Equal(t, 2, bankAccountCount(t, u.BuyerID))
	// The sign-in's code was used: the next one comes from the next 30-second step.
	next, err := totp.GenerateCode(key.Secret, time.Now().Add(30*time.Second))
	require.NoError(t, err)
	form.Set("step_up_code", next)
	res = c.Post(add, form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	assert.Equal(t, 3, bankAccountCount(t, u.BuyerID))
}
