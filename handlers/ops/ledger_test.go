package ops_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/calendar"
	"cardpay/handlers/webtest"
	"cardpay/pay"
)

var (
	tableRow  = regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`)
	tableCell = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
	tag       = regexp.MustCompile(`<[^>]*>`)
)

// between is the part of body from the first from to the next to after it.
func between(t *testing.T, body, from, to string) string {
	t.Helper()
	i := strings.Index(body, from)
	require.GreaterOrEqual(t, i, 0, "%q in the page", from)
	rest := body[i:]
	j := strings.Index(rest, to)
	require.GreaterOrEqual(t, j, 0, "%q after %q", to, from)
	return rest[:j]
}

// rows are the text of the cells of each row of the tables in part (headers included).
func rows(part string) [][]string {
	var out [][]string
	for _, r := range tableRow.FindAllStringSubmatch(part, -1) {
		var cells []string
		for _, c := range tableCell.FindAllStringSubmatch(r[1], -1) {
			cells = append(cells, strings.TrimSpace(html.UnescapeString(tag.ReplaceAllString(c[1], ""))))
		}
		out = append(out, cells)
	}
	return out
}

var japaneseDateTime = regexp.MustCompile(`^\d{4}年\d{1,2}月\d{1,2}日 \d{2}:\d{2}$`)

// journal is the payment page's journal lines without their time (checked to be a
// Japanese date and time), and its balances.
func journal(t *testing.T, body string) (lines, balances [][]string) {
	t.Helper()
	section := between(t, body, `id="ledger-title"`, "</section>")
	parts := strings.SplitN(section, "残高</h3>", 2)
	require.Len(t, parts, 2, section)
	for _, r := range rows(parts[0])[1:] {
		require.Len(t, r, 5)
		assert.Regexp(t, japaneseDateTime, r[0])
		lines = append(lines, r[1:])
	}
	return lines, rows(parts[1])[1:]
}

// apart moves p's transfer date back by bank days, so that the transfer file the test
// makes is not on the day every other test's payment is transferred (their tests read
// that day's files).
func apart(t *testing.T, p paid, bankDays int) {
	t.Helper()
	pm, err := webtest.Store().Payment(context.Background(), p.u.BuyerID, p.id)
	require.NoError(t, err)
	d := *pm.TransferDate
	for range bankDays {
		d = d.AddDate(0, 0, -1)
		for calendar.IsBankHoliday(d) {
			d = d.AddDate(0, 0, -1)
		}
	}
	_, err = webtest.Store().DB.Exec(`UPDATE invoices SET transfer_date = $1 WHERE id = $2`, d, p.id)
	require.NoError(t, err)
}

func TestPaymentPageShowsItsJournal(t *testing.T) {
	env := webtest.New(t)
	p := newPaid(t, env)
	apart(t, p, 1)
	reader := signIn(t, env, newOperator(t, env, pay.RoleScreening))
	page := reader.Get(fmt.Sprintf("/ops/screening/%d", p.id))
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	section := between(t, page.Body, `id="ledger-title"`, "</section>")
	assert.Contains(t, section, "会計仕訳")
	assert.Contains(t, section, "振込前")
	assert.Contains(t, section, "まだ仕訳はありません（カードの売上確定前）")
	assert.NotContains(t, section, "<table")

	// Screening completes and the capture job runs: the card's charge is owed to the
	// payee and the fee is earned.
	pm := screened(t, env, p)
	m := pm.Money()
	require.Zero(t, m.Discount(), "no promotion in this payment")
	require.Zero(t, m.PayeeFee)
	charged, amount, fee := pay.Yen(m.Charged()), pay.Yen(m.Amount), pay.Yen(m.Fee)
	require.Equal(t, "¥100,000", amount)
	page = reader.Get(fmt.Sprintf("/ops/screening/%d", p.id))
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	assert.NotContains(t, page.Body, "まだ仕訳はありません")
	lines, balances := journal(t, page.Body)
	assert.Equal(t, [][]string{
		{"売上確定", "カード売掛金", charged, ""},
		{"売上確定", "取引先未払金", "", amount},
		{"売上確定", "手数料収入", "", fee},
	}, lines)
	assert.Equal(t, [][]string{
		{"カード売掛金", charged, ""},
		{"取引先未払金", "", amount},
		{"手数料収入", "", fee},
	}, balances)

	// The transfer file is made: what is owed to the payee is in transit.
	mover := signIn(t, env, newOperator(t, env, pay.RoleTransfers))
	res := mover.Post("/ops/transfers/files", url.Values{"date": {pay.ISODate(*pm.TransferDate)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	page = reader.Get(fmt.Sprintf("/ops/screening/%d", p.id))
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	assert.Contains(t, between(t, page.Body, `id="ledger-title"`, "</section>"), pay.TransferFiled.Label())
	lines, balances = journal(t, page.Body)
	assert.Equal(t, [][]string{
		{"売上確定", "カード売掛金", charged, ""},
		{"売上確定", "取引先未払金", "", amount},
		{"売上確定", "手数料収入", "", fee},
		{"振込ファイル作成", "取引先未払金", amount, ""},
		{"振込ファイル作成", "振込未決済", "", amount},
	}, lines)
	assert.Equal(t, [][]string{
		{"カード売掛金", charged, ""},
		{"振込未決済", "", amount},
		{"手数料収入", "", fee},
	}, balances)
}

// trialBalanceTable is the trial balance's rows by account label, and its totals.
func trialBalanceTable(t *testing.T, body string) (accounts []string, byAccount map[string][]string, total []string) {
	t.Helper()
	table := between(t, body, `<table`, "</table>")
	all := rows(table)
	require.NotEmpty(t, all)
	require.Equal(t, []string{"勘定科目", "前日残高（借方）", "前日残高（貸方）", "当日の借方", "当日の貸方", "当日残高（借方）", "当日残高（貸方）"}, all[0])
	byAccount = map[string][]string{}
	for _, r := range all[1 : len(all)-1] {
		require.Len(t, r, 7)
		accounts = append(accounts, r[0])
		byAccount[r[0]] = r[1:]
	}
	total = all[len(all)-1]
	require.Equal(t, "合計", total[0])
	return accounts, byAccount, total[1:]
}

func TestTrialBalanceOfTheDayAgrees(t *testing.T) {
	env := webtest.New(t)
	p := newPaid(t, env)
	apart(t, p, 2)
	pm := screened(t, env, p)
	admin := signIn(t, env, newOperator(t, env, pay.RoleAdmin, pay.RoleTransfers))
	res := admin.Post("/ops/transfers/files", url.Values{"date": {pay.ISODate(*pm.TransferDate)}})
	require.Equal(t, http.StatusSeeOther, res.StatusCode, res.Body)
	today := pay.ISODate(time.Now())

	// Every operator reads the books, from the console's menu.
	for _, role := range []string{pay.RoleScreening, pay.RoleTransfers, pay.RoleAdmin} {
		c := signIn(t, env, newOperator(t, env, role))
		page := c.Get("/ops/ledger")
		require.Equal(t, http.StatusOK, page.StatusCode, role)
		assert.Contains(t, page.Body, `href="/ops/ledger"`, "the menu links it (%s)", role)
	}

	page := admin.Get("/ops/ledger")
	require.Equal(t, http.StatusOK, page.StatusCode, page.Body)
	assert.Contains(t, page.Body, `value="`+today+`"`, "today in Japan by default")
	accounts, byAccount, total := trialBalanceTable(t, page.Body)
	var chart []string
	for _, a := range pay.LedgerAccounts {
		chart = append(chart, a.Label())
	}
	assert.Equal(t, chart, accounts, "every account, in the chart's order")

	// The day's postings (this payment's among them) balance, and so do the balances.
	assert.NotEqual(t, "¥0", total[2], "the day has debits")
	assert.Equal(t, total[2], total[3], "the day's debits and credits")
	assert.NotEqual(t, "¥0", total[4])
	assert.Equal(t, total[4], total[5], "the balances at the day's end")
	assert.Equal(t, total[0], total[1], "the balances before the day")
	assert.Contains(t, page.Body, "借方合計と貸方合計は一致しています")
	assert.NotContains(t, page.Body, "一致しません")

	// Each balance is on its account's normal side; the day's activity matches the store's.
	ctx := context.Background()
	day, ok := pay.ParseDate(today)
	require.True(t, ok)
	open, activity, closing, err := webtest.Store().TrialBalanceDay(ctx, day, day.AddDate(0, 0, 1))
	require.NoError(t, err)
	whole, err := webtest.Store().TrialBalance(ctx, day.AddDate(0, 0, 1))
	require.NoError(t, err)
	assert.Equal(t, whole, closing, "the day's closing is the book up to its end")
	for _, a := range activity {
		assert.Equal(t, closing[a.Account], open[a.Account]+a.Debit-a.Credit, "opening + the day = closing: %s", a.Account)
	}
	for _, a := range activity {
		r := byAccount[a.Account.Label()]
		assert.Equal(t, []string{pay.Yen(a.Debit), pay.Yen(a.Credit)}, r[2:4], a.Account)
	}
	for _, a := range pay.LedgerAccounts {
		r := byAccount[a.Label()]
		if a.DebitNormal() {
			assert.Equal(t, []string{pay.Yen(closing[a]), ""}, r[4:6], a)
		} else {
			assert.Equal(t, []string{"", pay.Yen(-closing[a])}, r[4:6], a)
		}
	}
	assert.NotEqual(t, "¥0", byAccount["振込未決済"][5], "this payment's transfer is in transit")

	// The same day asked for by its date; a day long before the journal is all zero.
	again := admin.Get("/ops/ledger?date=" + today)
	require.Equal(t, http.StatusOK, again.StatusCode)
	_, _, againTotal := trialBalanceTable(t, again.Body)
	assert.Equal(t, total, againTotal)
	old := admin.Get("/ops/ledger?date=2001-01-01")
	require.Equal(t, http.StatusOK, old.StatusCode)
	assert.Contains(t, old.Body, "2001年1月1日")
	_, _, oldTotal := trialBalanceTable(t, old.Body)
	assert.Equal(t, []string{"¥0", "¥0", "¥0", "¥0", "¥0", "¥0"}, oldTotal)
	assert.Contains(t, old.Body, "借方合計と貸方合計は一致しています")
}

func TestTrialBalanceRefusesABadDate(t *testing.T) {
	env := webtest.New(t)
	c := signIn(t, env, newOperator(t, env, pay.RoleTransfers))
	for _, bad := range []string{"2026-02-30", "yesterday"} {
		res := c.Get("/ops/ledger?date=" + url.QueryEscape(bad))
		require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, bad)
		webtest.AssertFieldError(t, res, "date", "日付を選んでください")
		assert.Contains(t, res.Body, `value="`+bad+`"`, "what was sent is shown again")
		assert.NotContains(t, res.Body, "<table", "no trial balance for a date that is not one")
	}
	// Signed out: the console's sign-in, back to the page after it.
	res := env.Client(t).Get("/ops/ledger")
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	assert.Contains(t, res.Header.Get("Location"), "/ops/signin")
}
