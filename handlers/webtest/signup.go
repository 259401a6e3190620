package webtest

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/mail/mailtest"
	"cardpay/pay"
	"cardpay/store"
)

// Sign-up helpers, shared by the sign-up tests (handlers/signup) and those of
// re-registration (handlers/password), which continues at the same code page.

// SignupPassword is the password every test sign-up chooses.
const SignupPassword = "kanri2026pass"

var signupSeq atomic.Int64

var signupNameRe = regexp.MustCompile(`[^A-Za-z0-9]+`)

// SignupEmail is a fresh address for one test, short enough for the sign-up form's
// rules (NewBuyer's addresses can be too long for them).
func SignupEmail(t *testing.T) string {
	t.Helper()
	n := signupSeq.Add(1)
	name := strings.ToLower(signupNameRe.ReplaceAllString(t.Name(), "-"))
	if len(name) > 36 {
		name = name[len(name)-36:]
	}
	return strings.Trim(name, "-") + "-" + time.Now().Format("150405.000000") + string(rune('a'+n%26)) + "@test.example"
}

// SignupForm is a complete sign-up form for email.
func SignupForm(email string) url.Values {
	return url.Values{"email_address": {email}, "password": {SignupPassword}, "consent": {"1"}}
}

// SignUp posts the sign-up form and answers the code mailed to email.
func SignUp(t *testing.T, env *Env, c *Client, email string) string {
	t.Helper()
	res := c.Post("/signup", SignupForm(email))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/signup/code", res.Header.Get("Location"))
	code := mailtest.Code(env.Mail.WaitFor(t, email, 5*time.Second).Text)
	require.Len(t, code, 6)
	return code
}

// VerifiedClient has signed up as email and entered the code: it is on /registration.
func VerifiedClient(t *testing.T, env *Env, email string) *Client {
	t.Helper()
	c := env.Client(t)
	code := SignUp(t, env, c, email)
	res := c.Post("/signup/code", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	require.Equal(t, "/registration", res.Header.Get("Location"))
	return c
}

// RegisteredAddress is the address of an existing account, short enough for the
// sign-up form's rules.
func RegisteredAddress(t *testing.T) string {
	t.Helper()
	email := SignupEmail(t)
	_, err := db.Store.CreateBuyer(context.Background(), store.NewBuyer{
		BusinessForm: pay.Corporation, CorporateName: "既存商事株式会社", EmailAddress: email,
		PasswordHash: PasswordHash(), LastName: "山田", FirstName: "太郎",
	})
	require.NoError(t, err)
	return email
}

// AssertSignupFieldError checks the GOV.UK error pattern for one field: 422, エラー：
// title, the summary linking to the field and the message beside it.
func AssertSignupFieldError(t *testing.T, res Response, field, message string) {
	t.Helper()
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	assert.Contains(t, res.Body, "<title>エラー：")
	assert.Contains(t, res.Body, `id="error-summary"`)
	assert.Contains(t, res.Body, `href="#`+field+`"`, "the summary links to the field")
	assert.Contains(t, res.Body, `id="`+field+`-error"`, "the message sits by the field")
	assert.Regexp(t, `aria-describedby="[^"]*`+regexp.QuoteMeta(field)+`-error"`, res.Body)
	assert.Contains(t, res.Body, message)
}

var signupNonceRe = regexp.MustCompile(`nonce-[A-Za-z0-9_-]+|nonce="[A-Za-z0-9_-]+"`)

// StripAddress removes what differs between two otherwise identical answers: the
// nonce and the address the visitor typed.
func StripAddress(body string, emails ...string) string {
	body = signupNonceRe.ReplaceAllString(body, "")
	for _, e := range emails {
		body = strings.ReplaceAll(body, e, "ADDRESS")
	}
	return body
}
