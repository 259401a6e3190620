package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/calendar"
	"cardpay/pay"
)

type systemTimeAnswer struct {
	Now                 string `json:"now"`
	Date                string `json:"date"`
	BankBusinessDay     bool   `json:"bank_business_day"`
	NextBankBusinessDay string `json:"next_bank_business_day"`
}

// systemTime is GET system/time: the server's clock in Japan time, so that a client
// whose own clock is wrong still offers the right transfer dates; whether banks work
// today and their next business day after today. Public: it tells nothing about anyone.
func (s *server) systemTime(c *echo.Context) error {
	now := s.Now().In(pay.Tokyo())
	return c.JSON(http.StatusOK, systemTimeAnswer{
		Now:                 now.Format(time.RFC3339),
		Date:                now.Format(time.DateOnly),
		BankBusinessDay:     !calendar.IsBankHoliday(now),
		NextBankBusinessDay: calendar.AddBankDays(now, 1).Format(time.DateOnly),
	})
}
