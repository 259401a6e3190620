package signup_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/signup"
	"cardpay/handlers/webtest"
	"cardpay/pay"
)

// A corporation whose number the registry does not know is registered held: the result
// page says the operators will check it, and the account exists in that state.
func TestRegistrationWithAnUnknownNumberIsHeld(t *testing.T) {
	env := webtest.New(t)
	email := webtest.SignupEmail(t)
	c := webtest.VerifiedClient(t, env, email)
	chooseBusinessForm(t, c, "1")
	form := signup.CorporationForm()
	form.Set("corporate_number", "5010401067252") // valid, in no registry the tests seed
	res := c.Post("/registration", form)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	res = c.Post("/registration/confirm", nil)
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	page := c.Get("/registration/result")
	assert.Contains(t, page.Body, "ご登録の法人について確認が必要です")
	u, err := webtest.Store().UserByEmail(context.Background(), email)
	require.NoError(t, err)
	assert.Equal(t, pay.BuyerHeld, u.ReviewStatus)

	// A name the registry contradicts is refused on the field and creates nothing.
	other := webtest.SignupEmail(t)
	c = webtest.VerifiedClient(t, env, other)
	chooseBusinessForm(t, c, "1")
	form = signup.CorporationForm()
	form.Set("corporate_name", "別会社株式会社")
	require.Equal(t, http.StatusSeeOther, c.Post("/registration", form).StatusCode)
	res = c.Post("/registration/confirm", nil)
	webtest.AssertFieldError(t, res, "corporate_name", pay.MsgRegistryName)
	_, err = webtest.Store().UserByEmail(context.Background(), other)
	assert.Error(t, err, "no account")
}
