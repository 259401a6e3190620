package api

import (
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/banks"
	"cardpay/calendar"
	"cardpay/pay"
)

// The bank calls of SPEC.md §7 Invoices: the zengin search the bank-account island
// calls as the person types, the days banks are closed, and the holder-name check.

type bankList struct {
	Banks []banks.Bank `json:"banks"`
}

type branchList struct {
	Bank     banks.Bank     `json:"bank"`
	Branches []banks.Branch `json:"branches"`
}

// bankQueryMax bounds the search text; the longest bank or branch name is about 30
// characters.
const bankQueryMax = 64

// searchBanks is GET banks2?q=&bank_code=&limit=. Without bank_code it searches banks (an
// empty q answers the eight majors); with bank_code it searches that bank's branches
// (an empty q answers its first branches by code). Answered from memory, no database.
func (s *server) searchBanks(c *echo.Context) error {
	var errs pay.FieldErrors
	q := queryText(c, "q", "検索語", bankQueryMax, &errs)
	limit := queryInt(c, "limit", defaultPageSize, 1, maxPageSize, &errs)
	raw := c.QueryParam("bank_code")
	code := pay.NormalizeCode(raw)
	var bank banks.Bank
	switch {
	case raw == "":
	case len(code) != 4 || !pay.AllDigits(code):
		errs.Add("bank_code", "金融機関コードは4桁の数字で指定してください")
	default:
		b, ok := banks.ByCode(code)
		if !ok {
			errs.Add("bank_code", "金融機関コード"+code+"は見つかりません。金融機関を選び直してください")
		}
		bank = b
	}
	if len(errs) > 0 {
		return validationError(errs)
	}
	if raw == "" {
		return c.JSON(http.StatusOK, bankList{Banks: nonNil(banks.SearchBanks(q, limit))})
	}
	return c.JSON(http.StatusOK, branchList{Bank: bank, Branches: nonNil(banks.SearchBranches(bank.Code, q, limit))})
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

type closedDay struct {
	Date string `json:"date"`
	Name string `json:"name"`
}

type closedDayList struct {
	From       string      `json:"from"`
	To         string      `json:"to"`
	ClosedDays []closedDay `json:"closed_days"`
}

// Bounds of GET banks/closed_day.
const (
	closedDaysDefaultSpan = 90
	closedDaysMaxSpan     = 400
	// The equinox formula the holidays rely on holds from 1980 to 2099; a payment date
	// is never far from today anyway.
	closedDaysFirstYear = 2000
	closedDaysLastYear  = 2099
)

// closedDays is GET banks/closed_day?from=&to=: each date in [from, to] on which banks
// do not transfer (weekends, national holidays, 12/31–1/3) with the reason, for the
// transfer-date picker. from defaults to today in Japan, to to from + 90 days.
func (s *server) closedDays(c *echo.Context) error {
	var errs pay.FieldErrors
	y, m, d := s.Now().In(pay.Tokyo()).Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, pay.Tokyo())
	from, fromOK := queryDate(c, "from", today, &errs)
	to, toOK := queryDate(c, "to", from.AddDate(0, 0, closedDaysDefaultSpan), &errs)
	if fromOK && toOK {
		switch {
		case to.Before(from):
			errs.Add("to", "toはfrom以降の日付で指定してください")
		case to.After(from.AddDate(0, 0, closedDaysMaxSpan)):
			errs.Add("to", fmt.Sprintf("期間（fromからtoまで）は%d日以内で指定してください", closedDaysMaxSpan))
		}
	}
	if len(errs) > 0 {
		return validationError(errs)
	}
	a := closedDayList{From: from.Format(time.DateOnly), To: to.Format(time.DateOnly), ClosedDays: []closedDay{}}
	for _, day := range calendar.BankHolidays(from, to) {
		a.ClosedDays = append(a.ClosedDays, closedDay{Date: day.Format(time.DateOnly), Name: calendar.HolidayName(day)})
	}
	return c.JSON(http.StatusOK, a)
}

// queryDate reads an optional YYYY-MM-DD query parameter as midnight in Japan; false
// when it was given and is not such a date.
func queryDate(c *echo.Context, name string, def time.Time, errs *pay.FieldErrors) (time.Time, bool) {
	v := c.QueryParam(name)
	if v == "" {
		return def, true
	}
	t, err := time.ParseInLocation(time.DateOnly, v, pay.Tokyo())
	if err != nil {
		// Also catches dates that do not exist, such as 2027-02-29.
		errs.Add(name, name+"は実在する日付をYYYY-MM-DD形式で指定してください（例：2026-12-31）")
		return def, false
	}
	if t.Year() < closedDaysFirstYear || t.Year() > closedDaysLastYear {
		errs.Add(name, fmt.Sprintf("%sは%d年から%d年までの日付で指定してください", name, closedDaysFirstYear, closedDaysLastYear))
		return def, false
	}
	return t, true
}

type holderKanaRequest struct {
	HolderName string               `json:"holder_name"`
	Kind       *pay.HolderCheckKind `json:"kind"`
}

type holderKanaAnswer struct {
	HolderName string              `json:"holder_name"`
	Valid      bool                `json:"valid"`
	Kind       pay.HolderCheckKind `json:"kind"`
}

// holderKana is POST accounts/holder_kana: converts an account holder's name to the
// zengin form (half-width kana, upper case, the allowed symbols) as it will be stored
// and sent to the bank, or says in Japanese why it cannot be. kind 2 (the default) is
// an ordinary account, 4 a personal one; both are checked by the same rules, and the
// answer repeats the kind.
func (s *server) holderKana(c *echo.Context) error {
	var req holderKanaRequest
	if err := decode(c, &req); err != nil {
		return err
	}
	kind := pay.HolderCheckNormal
	if req.Kind != nil {
		kind = *req.Kind
	}
	var errs pay.FieldErrors
	if kind != pay.HolderCheckNormal && kind != pay.HolderCheckPersonal {
		errs.Add("kind", "kindは2（通常）または4（個人）で指定してください")
	}
	name, err := pay.NormalizeHolderName(req.HolderName)
	if err != nil {
		errs.Add("holder_name", err.Error())
	}
	if len(errs) > 0 {
		return validationError(errs)
	}
	return c.JSON(http.StatusOK, holderKanaAnswer{HolderName: name, Valid: true, Kind: kind})
}
