package api_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPostalCodes(t *testing.T) {
	c := newEnv(t).client(t)
	r := c.get("/postal_codes/1000001")
	require.Equal(t, http.StatusOK, r.Status, r.String())
	assert.JSONEq(t, `{"addresses":[{"prefecture_code":13,"prefecture":"東京都","city":"千代田区"}]}`, r.Raw)
	assert.Equal(t, "private, max-age=86400", r.Header.Get("Cache-Control"), "public data, cached a day")
	for _, code := range []string{"9999999", "123", "abcdefg", "%FF%FE"} {
		r = c.get("/postal_codes/" + code)
		assert.Equal(t, http.StatusNotFound, r.Status, code)
		assert.JSONEq(t, `{"status":"not_found"}`, r.Raw, "the call's own 404 body, without a message: %s", code)
	}
	r = c.post("/postal_codes/1000001", nil)
	assert.Equal(t, http.StatusMethodNotAllowed, r.Status, "GET only")
	assert.Equal(t, "GET", r.Header.Get("Allow"))
}
