package webtest

import (
	"context"
	"crypto/rand"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/store"
)

// AssertFieldError checks the validation-failure page (DESIGN.md §2): 422, the エラー：
// title, the summary linking to the field, and msg inline under the field.
func AssertFieldError(t *testing.T, res Response, field, msg string) {
	t.Helper()
	assert.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, "%s: %s", field, msg)
	assert.Regexp(t, `<title>エラー：`, res.Body)
	assert.Contains(t, res.Body, `href="#`+field+`"`, "the error summary links to #%s", field)
	inline := regexp.MustCompile(`id="` + regexp.QuoteMeta(field) + `-error"[^>]*>(?s:.*?)</span>[^<]*` + regexp.QuoteMeta(html.EscapeString(msg)))
	assert.Regexp(t, inline, res.Body, "inline message under #%s", field)
}

// ReloadUser reads u again from the database.
func ReloadUser(t *testing.T, u store.User) store.User {
	t.Helper()
	got, err := db.Store.User(context.Background(), u.BuyerID, u.ID)
	require.NoError(t, err)
	return got
}

// SignedIn reports whether c's session is signed in (a signed-in page opens).
func (c *Client) SignedIn() bool {
	c.t.Helper()
	return c.Get("/myaccount").StatusCode == http.StatusOK
}

// WrongCode is a 6-digit code other than code.
func WrongCode(code string) string {
	if code == "000000" {
		return "111111"
	}
	return "000000"
}

// FileKey makes a fresh random key for a file a test stores itself, of the form the
// stores accept (files.ValidKey).
func FileKey() string {
	return "invoices/test/" + strings.ToLower(rand.Text())
}
