package ops

import (
	"context"
	"net/url"
	"slices"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	pages "cardpay/views/ops"
)

// LedgerPage is the trial balance of one Japan day: every operator may read the books.
var LedgerPage = web.Page{Path: "/ops/ledger", Title: "試算表", Access: web.Operator}

// ShowLedgerPage shows the day's trial balance (today in Japan without a date): each
// account's balance before the day, the day's debits and credits, and its balance at the
// day's end, with whether the debit and credit totals agree.
func (h *Handler) ShowLedgerPage(c *echo.Context) error {
	v := pages.LedgerView{Date: c.QueryParam("date")}
	day := h.transferDay("")
	if v.Date != "" {
		d, ok := pay.ParseDate(v.Date)
		if !ok {
			var errs pay.FieldErrors
			errs.Add("date", "日付を選んでください")
			return show(h, c, LedgerPage.Title, errs, v, pages.LedgerPage)
		}
		day = d
	}
	start := day
	end := start.AddDate(0, 0, 1)
	ctx := c.Request().Context()
	open, activity, closing, err := h.Store.TrialBalanceDay(ctx, start, end)
	if err != nil {
		return err
	}
	v = trialBalance(open, activity, closing)
	v.Date, v.DateLabel, v.Shown = pay.ISODate(day), pay.JapaneseDate(day), true
	v.PrevHref, v.NextHref = ledgerHref(start.AddDate(0, 0, -1)), ledgerHref(end)
	return show(h, c, LedgerPage.Title, nil, v, pages.LedgerPage)
}

func ledgerHref(day time.Time) string {
	return LedgerPage.Path + "?date=" + url.QueryEscape(pay.ISODate(day))
}

// side is a total of a debit column and of a credit column.
type side struct{ debit, credit int64 }

// trialBalance lays the balances and the activity out by account, in the chart's order
// (an account outside the chart, which the database should never hold, is listed after
// it rather than left out of the totals).
func trialBalance(open store.Balances, activity []store.LedgerActivity, closing store.Balances) pages.LedgerView {
	act := map[pay.LedgerAccount]store.LedgerActivity{}
	for _, a := range activity {
		act[a.Account] = a
	}
	accounts := slices.Clone(pay.LedgerAccounts)
	var extra []pay.LedgerAccount
	note := func(a pay.LedgerAccount) {
		if !slices.Contains(accounts, a) && !slices.Contains(extra, a) {
			extra = append(extra, a)
		}
	}
	for a := range open {
		note(a)
	}
	for a := range closing {
		note(a)
	}
	for a := range act {
		note(a)
	}
	slices.Sort(extra)
	accounts = append(accounts, extra...)

	var v pages.LedgerView
	var tOpen, tDay, tClose side
	for _, a := range accounts {
		r := pages.TrialBalanceRow{Account: a.Label()}
		r.OpenDebit, r.OpenCredit = normalSide(a, open[a], &tOpen)
		r.CloseDebit, r.CloseCredit = normalSide(a, closing[a], &tClose)
		d := act[a]
		r.Debit, r.Credit = pay.Yen(d.Debit), pay.Yen(d.Credit)
		tDay.debit += d.Debit
		tDay.credit += d.Credit
		v.Rows = append(v.Rows, r)
	}
	v.Total = pages.TrialBalanceRow{Account: "合計",
		OpenDebit: pay.Yen(tOpen.debit), OpenCredit: pay.Yen(tOpen.credit),
		Debit: pay.Yen(tDay.debit), Credit: pay.Yen(tDay.credit),
		CloseDebit: pay.Yen(tClose.debit), CloseCredit: pay.Yen(tClose.credit)}
	for _, c := range []struct {
		name string
		s    side
	}{{"前日残高", tOpen}, {"当日の取引", tDay}, {"当日残高", tClose}} {
		if c.s.debit != c.s.credit {
			diff := c.s.debit - c.s.credit
			if diff < 0 {
				diff = -diff
			}
			v.Differences = append(v.Differences, c.name+"の借方合計と貸方合計が一致しません（差額 "+pay.Yen(diff)+"）")
		}
	}
	return v
}

// normalSide shows a balance (debits positive) on the account's normal side: a
// debit-normal account's in the debit column as it is, another's in the credit column
// with its sign turned, so that a balance on the other side reads as a negative amount.
// It adds the balance to the column's total.
func normalSide(a pay.LedgerAccount, balance int64, total *side) (debit, credit string) {
	if a.DebitNormal() {
		total.debit += balance
		return pay.Yen(balance), ""
	}
	total.credit -= balance
	return "", pay.Yen(-balance)
}

// paymentLedger is the payment page's 会計仕訳: its transfer stage, its journal lines
// and what they leave on each account.
func (h *Handler) paymentLedger(ctx context.Context, p store.ScreeningItem) (pages.PaymentLedger, error) {
	l := pages.PaymentLedger{Stage: p.TransferState.Label()}
	entries, err := h.Store.LedgerEntriesOf(ctx, p.ID)
	if err != nil {
		return l, err
	}
	for _, e := range entries {
		debit, credit := debitCredit(e.Amount)
		l.Lines = append(l.Lines, pages.JournalLine{At: pay.JapaneseDateTime(e.CreatedAt), Kind: e.Kind.Label(),
			Account: e.Account.Label(), Debit: debit, Credit: credit})
	}
	balances, err := h.Store.PaymentBalances(ctx, p.BuyerID, p.ID)
	if err != nil {
		return l, err
	}
	for _, a := range pay.LedgerAccounts {
		if b, ok := balances[a]; ok {
			debit, credit := debitCredit(b)
			l.Balances = append(l.Balances, pages.AccountBalance{Account: a.Label(), Debit: debit, Credit: credit})
			delete(balances, a)
		}
	}
	var extra []pay.LedgerAccount
	for a := range balances {
		extra = append(extra, a)
	}
	slices.Sort(extra)
	for _, a := range extra {
		debit, credit := debitCredit(balances[a])
		l.Balances = append(l.Balances, pages.AccountBalance{Account: a.Label(), Debit: debit, Credit: credit})
	}
	return l, nil
}

// debitCredit places an amount (debits positive) in its column.
func debitCredit(amount int64) (debit, credit string) {
	if amount < 0 {
		return "", pay.Yen(-amount)
	}
	return pay.Yen(amount), ""
}
