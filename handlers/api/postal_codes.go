package api

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"cardpay/postal"
)

// postalCodesResponse is GET /api/v1/postal_codes/{code}: the prefecture and city of
// each municipality the code belongs to (most codes have one).
type postalCodesResponse struct {
	Addresses []postal.Address `json:"addresses"`
}

// getPostalCodes looks up a postal code for address forms (the registration island's
// autofill). Public: postal codes are public data. An unknown or malformed code is
// 404 {"status":"not_found"}: this call's own body, older than the API's error shape
// and kept without a message (PostalNotFound in openapi.json).
func (s *server) getPostalCodes(c *echo.Context) error {
	addrs, ok := postal.Lookup(c.Param("code"))
	if !ok || len(addrs) == 0 {
		return c.JSON(http.StatusNotFound, map[string]string{"status": "not_found"})
	}
	// Not personal data, and it changes a few times a year; "private" because the
	// response may carry the session cookie.
	c.Response().Header().Set("Cache-Control", "private, max-age=86400")
	return c.JSON(http.StatusOK, postalCodesResponse{Addresses: addrs})
}
