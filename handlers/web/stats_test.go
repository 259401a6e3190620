package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/web"
	"cardpay/handlers/webtest"
	"cardpay/pay"
	"cardpay/store"
)

// SPEC.md §8: a failure to read the stats is only logged. The pages' store reaches the
// test database through a schema first on its search path whose notifications is a view
// that raises, so the stats' real query fails in PostgreSQL (every other table is the
// real one): each signed-in page is still 200, its tabs without counts, and the failure
// is in the log.
func TestAFailingStatsReadIsOnlyLogged(t *testing.T) {
	ctx := context.Background()
	_, err := webtest.Store().DB.ExecContext(ctx, `
		CREATE SCHEMA IF NOT EXISTS stats_refused;
		CREATE OR REPLACE FUNCTION stats_refused.refuse() RETURNS bigint LANGUAGE plpgsql AS
			$$ BEGIN RAISE EXCEPTION 'the stats are refused by the test'; END $$;
		CREATE OR REPLACE VIEW stats_refused.notifications AS
			SELECT n.buyer_id, n.read_at FROM public.notifications n
			UNION ALL SELECT stats_refused.refuse(), NULL::timestamptz`)
	require.NoError(t, err)
	dsn, err := url.Parse(webtest.DB().Server.DSN(webtest.DB().Name))
	require.NoError(t, err)
	q := dsn.Query()
	q.Set("search_path", "stats_refused,public")
	dsn.RawQuery = q.Encode()
	refusing, err := store.Open(ctx, dsn.String())
	require.NoError(t, err)
	t.Cleanup(func() { _ = refusing.Close() })
	_, err = refusing.Stats(ctx, 1)
	require.ErrorContains(t, err, "the stats are refused by the test", "the test's store must fail the stats")

	env := webtest.New(t, func(d *web.Deps) { d.Store = refusing })
	u := webtest.NewBuyer(t, pay.Corporation, "")
	c := env.Client(t)
	c.SignIn(u.EmailAddress)
	for _, path := range []string{"/payments/review", "/payments/draft", "/collections/request", "/collections/draft",
		"/suppliers?status=enable", "/myaccount"} {
		res := c.Get(path)
		require.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", path, env.Logs())
		assert.Contains(t, res.Body, "ログアウト", path)
		assert.NotContains(t, res.Body, "（0）", "%s: a tab shows a count the stats did not give", path)
		assert.NotContains(t, res.Body, "（0件）", path)
	}
	res := c.Get("/toppage")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode, "the top page still leads somewhere: %s", env.Logs())
	assert.Equal(t, "/payments/review", res.Header.Get("Location"))
	assert.Contains(t, env.Logs(), "the stats could not be read")
	assert.Contains(t, env.Logs(), "the stats are refused by the test")
	assert.NotContains(t, env.Logs(), "unexpected error")

	// The same pages with the real store show the counts.
	ok := webtest.New(t)
	c = ok.Client(t)
	c.SignIn(u.EmailAddress)
	assert.Contains(t, c.Get("/payments/review").Body, "審査中（0）")
	assert.Contains(t, c.Get("/suppliers?status=enable").Body, "有効（0件）")
}
