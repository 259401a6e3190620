package web

import (
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
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

// DateRange is a list filter's ?from= and ?to= dates: the dates read (zero when not
// given or not a date), what to show back in each field (the date as YYYY-MM-DD, or what
// was typed when it is not one), and a Japanese message in errs for each bad value. The
// good values are set in q, for the pages' links. A range given backwards is turned
// round, and said so.
type DateRange struct {
	From, To           time.Time
	FromShown, ToShown string
}

// DateRangeParams reads the ?from= and ?to= of a list (payments, received invoices).
func DateRangeParams(c *echo.Context, errs *pay.FieldErrors, q url.Values) DateRange {
	var r DateRange
	for _, d := range []struct {
		name  string
		at    *time.Time
		shown *string
	}{{"from", &r.From, &r.FromShown}, {"to", &r.To, &r.ToShown}} {
		raw := Clip(c.QueryParam(d.name), 20)
		if raw == "" {
			continue
		}
		t, ok := pay.ParseDate(raw)
		if !ok {
			errs.Add(d.name, "日付を正しく入力してください（例：2026-12-25）")
			*d.shown = raw
			continue
		}
		*d.at, *d.shown = t, pay.ISODate(t)
		q.Set(d.name, *d.shown)
	}
	if !r.From.IsZero() && !r.To.IsZero() && r.To.Before(r.From) {
		errs.Add("to", "終了日は開始日以降の日付を入力してください")
		r.From, r.To = r.To, r.From
	}
	return r
}
