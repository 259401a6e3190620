package myaccount_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/webtest"
	"cardpay/mail/mailtest"
	"cardpay/pay"
	"cardpay/store"
)

// A change of how the account signs in — its e-mail address, its second factor, its
// password — ends every other session of the user, browser and API alike (their refresh
// tokens stop working), and keeps the one that made the change.
func TestCredentialChangesEndEveryOtherSession(t *testing.T) {
	env := webtest.New(t)
	const newPassword = "Atarashii7pass2026"

	changes := []struct {
		name   string
		change func(t *testing.T, c *webtest.Client, u store.User)
	}{
		{"password", func(t *testing.T, c *webtest.Client, u store.User) {
			res := c.Post("/myaccount/edit-password", url.Values{"current_password": {webtest.Password},
				"password": {newPassword}, "password_confirmation": {newPassword}})
			require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
		}},
		{"e-mail address", func(t *testing.T, c *webtest.Client, u store.User) {
			next := fmt.Sprintf("moved-%d@test.example", u.ID)
			res := c.Post("/myaccount/edit-email-address", url.Values{"email_address": {next}, "current_password": {webtest.Password}})
			require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
			code := mailtest.Code(env.Mail.WaitFor(t, next, 5*time.Second).Text)
			res = c.Post("/myaccount/edit-email-auth", url.Values{"code": {code}})
			require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
			assert.Equal(t, next, webtest.ReloadUser(t, u).EmailAddress)
		}},
		{"second factor", func(t *testing.T, c *webtest.Client, u store.User) {
			res := c.Post("/myaccount/security", url.Values{"two_factor_method": {"email"}, "current_password": {webtest.Password}})
			require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
			code := env.WaitCode(t, u.EmailAddress)
			res = c.Post("/myaccount/security/email", url.Values{"code": {code}})
			require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
			assert.Equal(t, "email", webtest.ReloadUser(t, u).TwoFactorMethod)
		}},
	}
	for _, ch := range changes {
		t.Run(ch.name, func(t *testing.T) {
			u := webtest.NewBuyer(t, pay.Corporation, "")
			other := webtest.NewBuyer(t, pay.Corporation, "")
			here := browserSignedIn(t, env, uaChromeWindows, u)
			there := browserSignedIn(t, env, uaSafariIPhone, u)
			api := apiLogin(t, env, u, "")
			bystander := browserSignedIn(t, env, uaFirefoxLinux, other)

			ch.change(t, here, u)

			assertSignedIn(t, here, "the session that made the change stays")
			assertSignedOut(t, there, "another browser of the user is ended")
			assert.Equal(t, http.StatusUnauthorized, refresh(t, env, api.RefreshToken), "the API sign-in's refresh token is revoked")
			assertSignedIn(t, bystander, "another buyer's session is untouched")
			live, err := webtest.Store().LiveUserSessions(t.Context(), u.BuyerID, u.ID, time.Time{}, time.Time{})
			require.NoError(t, err)
			assert.Len(t, live, 1, "one live session is left")
		})
	}
}
