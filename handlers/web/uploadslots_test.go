package web_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v5"
	"github.com/stretchr/testify/require"

	"cardpay/handlers/web"
)

func TestUploadSlotsPerBuyerAndPerInstance(t *testing.T) {
	a := web.New(web.Deps{})
	e := echo.New()
	take := func(buyerID int64) (func(), string, *httptest.ResponseRecorder) {
		rec := httptest.NewRecorder()
		c := e.NewContext(httptest.NewRequest(http.MethodPost, "/", nil), rec)
		release, msg := a.UploadSlot(c, buyerID)
		return release, msg, rec
	}
	var held []func()
	for range web.MaxUploadsPerBuyer {
		release, msg, _ := take(1)
		require.Empty(t, msg)
		held = append(held, release)
	}
	_, msg, rec := take(1)
	require.Equal(t, web.MsgUploadsPerBuyer, msg, "one buyer's uploads beyond its share")
	require.Equal(t, "5", rec.Header().Get("Retry-After"))

	// Other buyers fill the instance's slots.
	for b := int64(2); len(held) < web.MaxUploadsPerInstance; b++ {
		release, msg, _ := take(b)
		require.Empty(t, msg)
		held = append(held, release)
	}
	_, msg, _ = take(99)
	require.Equal(t, web.MsgUploadsBusy, msg, "a new buyer on a full instance")

	// Releasing (twice is harmless) frees the slot for buyer 1 again.
	held[0]()
	held[0]()
	release, msg, _ := take(1)
	require.Empty(t, msg)
	release()
	for _, r := range held[1:] {
		r()
	}
	for b := int64(1); b <= web.MaxUploadsPerInstance; b++ {
		_, msg, _ := take(100 + b)
		require.Empty(t, msg, "every slot was given back")
	}
}
