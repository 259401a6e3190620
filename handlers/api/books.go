package api

import (
	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
)

// booksExport is GET books/export (issue 30): the transferred payments of a period
// (from, to: the days the suppliers were paid) as the accountant's list
// (format=list) or as journal entries (freee, moneyforward, yayoi) with the buyer's
// saved accounts: the history's export, for the buyer and for partners with books:read.
func (s *server) booksExport(c *echo.Context) error {
	ctx := c.Request().Context()
	u := caller(c).User
	format := c.QueryParam("format")
	start, end, errs := pay.CheckBooksPeriod(c.QueryParam("from"), c.QueryParam("to"))
	requests := format == web.BooksRequests && s.CollectionsEnabled(&u)
	if format != web.BooksList && !pay.BookFormat(format).Valid() && !requests {
		errs.Add("format", "format は list、requests（法人のみ）、freee、moneyforward、yayoi のいずれかを指定してください")
	}
	if len(errs) > 0 {
		return validationError(errs)
	}
	if requests {
		rows, err := s.Store.RequestBookRows(ctx, u.BuyerID, start, end)
		if err != nil {
			return err
		}
		return web.SendRequestBooks(c, rows, start, end)
	}
	a, err := s.Store.BookAccounts(ctx, u.BuyerID)
	if err != nil {
		return err
	}
	rows, err := s.Store.BookRows(ctx, u.BuyerID, start, end)
	if err != nil {
		return err
	}
	return web.SendBooks(c, rows, format, a, start, end)
}
