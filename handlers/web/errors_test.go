package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/labstack/echo/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/store"
)

// An unexpected error is logged with its route's pattern, never the path: an operator's
// invitation link (or a request key) in a path would otherwise land in the logs. The
// database the pages read is closed, so the invitation page fails unexpectedly.
func TestUnexpectedErrorsLogTheRouteNotThePath(t *testing.T) {
	closed, err := sqlx.Open("postgres", webtest.DB().Server.DSN(webtest.DB().Name))
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	env := webtest.New(t, func(d *web.Deps) {
		d.Store = &store.Store{DB: closed}
		d.Account.Store = d.Store
	})
	res := env.Client(t).Get("/ops/invite/SECRET-TOKEN-123")
	require.Equal(t, http.StatusInternalServerError, res.StatusCode, env.Logs())
	assert.Contains(t, env.Logs(), "route=/ops/invite/:token")
	assert.NotContains(t, env.Logs(), "SECRET-TOKEN-123")
}

// A rate limit that reaches the error path (no page showed it at a field) is a 429 page
// with Retry-After and the limiter's words, never a 500.
func TestALimitIsNeverA500(t *testing.T) {
	env := webtest.New(t)
	e := echo.New()
	rec := httptest.NewRecorder()
	limited := fmt.Errorf("wrapped: %w", &account.Limited{Until: time.Now().Add(10 * time.Minute), RetryAfter: 10 * time.Minute})
	env.App.Sessions.LoadAndSave(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		env.App.HandleError(e.NewContext(r, w), limited)
	})).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/anything", nil))
	assert.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "600", rec.Header().Get("Retry-After"))
	assert.Contains(t, rec.Body.String(), "しばらくしてからお試しください")
	assert.NotContains(t, env.Logs(), "unexpected error")
}
