package web

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"cardpay/store"
)

// PathParam is a path parameter percent-decoded (echo leaves it escaped); a malformed
// escape is shown as it came.
func PathParam(c *echo.Context, name string) string {
	raw := c.Param(name)
	if s, err := url.PathUnescape(raw); err == nil {
		return s
	}
	return raw
}

// IDParam reads a numeric path parameter; anything else is the 404 page, like an id
// that does not exist or belongs to another buyer.
func IDParam(c *echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, store.ErrNotFound
	}
	return id, nil
}

// PageParam is the ?page= of a paged list: 1 when missing or nonsense.
func PageParam(c *echo.Context) int {
	n, err := strconv.Atoi(c.QueryParam("page"))
	if err != nil || n < 1 || n > 100_000 {
		return 1
	}
	return n
}

// Clip drops invalid UTF-8 and keeps at most n characters.
func Clip(s string, n int) string {
	if !utf8.ValidString(s) {
		s = string([]rune(s))
	}
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}

// ShownValue is a value typed into a form as it can be shown back: valid UTF-8.
func ShownValue(s string) string {
	return strings.ToValidUTF8(s, "\uFFFD")
}
