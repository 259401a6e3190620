package web_test

import (
	"net/http"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
