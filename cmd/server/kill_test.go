package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/calendar"
	"cardpay/invoices"
	"cardpay/pay"
)

// The server is killed (SIGKILL) at four points of a payment's submission, 10 times each
// (20 until issue 28's session: 105 s, the tail of the go stage; each point still dies 10 times);
// then a server without the crash runs its reconciler. Whatever moment the process died,
// no authorisation may exist at the PSP without a payment, and no payment without an
// authorisation. The figures are printed.
func TestKilledDuringSubmission(t *testing.T) {
	t.Parallel() // beside the idle test (the package's other tests, serial, have finished)
	const runsPerPoint = 10
	bin := serverBinary(t)

	appPort, pspPort := freePort(t), freePort(t)
	base := "http://localhost:" + strconv.Itoa(appPort)
	env := append(os.Environ(),
		"DATABASE_URL="+db.Server.DSN(db.Name), "PORT="+strconv.Itoa(appPort), "SANDBOX_PSP_PORT="+strconv.Itoa(pspPort),
		"BASE_URL="+base, "DEMO_PASSWORD=kill-test-password-1", "JOB_WORKERS=2", "LOG_LEVEL=warn",
		"SMTP_URL=", "FILES_DIR="+t.TempDir(), "PAYMENT_SETTLE_AFTER=1s", "APP_ENV=development",
	)
	start := func(extra ...string) *exec.Cmd {
		t.Helper()
		cmd := exec.Command(bin)
		cmd.Env = append(append([]string{}, env...), extra...)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = io.Discard
		require.NoError(t, cmd.Start())
		ready := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(out)
			signalled := false
			for sc.Scan() {
				if !signalled && strings.HasPrefix(sc.Text(), "listening on ") {
					close(ready)
					signalled = true
				}
			}
		}()
		select {
		case <-ready:
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatal("the server did not start")
		}
		return cmd
	}

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path string, form url.Values) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", base)
		res, err := client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		return res, err
	}

	// The first server: sign in as the demo corporation, save a card, walk the journey to
	// its confirm page. The session lives in the database, so it outlives every kill.
	srv := start("CARDPAY_CRASH_AT=" + invoices.CrashBeforeStart)
	res, err := post("/signin", url.Values{"email_address": {"corp@demo.example"}, "password": {"kill-test-password-1"}})
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	var buyerID, supplierID, accountID int64
	require.NoError(t, db.Store.DB.Get(&buyerID, `SELECT buyer_id FROM users WHERE email_address = 'corp@demo.example'`))
	require.NoError(t, db.Store.DB.Get(&supplierID, `SELECT id FROM suppliers WHERE buyer_id = $1 AND name = '山田商事株式会社'`, buyerID))
	require.NoError(t, db.Store.DB.Get(&accountID, `SELECT id FROM supplier_accounts WHERE buyer_id = $1 AND supplier_id = $2`, buyerID, supplierID))
	// Not the capture kill test's card: both tests sign the demo corporation in on the
	// package's one database, and a card already saved is refused (cards.MsgDuplicate).
	res, err = post("/myaccount/creditcards/new", cardEntry(t, client, "http://localhost:"+strconv.Itoa(pspPort), base, "5555555555554444"))
	require.NoError(t, err)
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	var cardID int64
	require.NoError(t, db.Store.DB.Get(&cardID, `SELECT id FROM cards WHERE buyer_id = $1 AND deleted_at IS NULL ORDER BY id DESC LIMIT 1`, buyerID))
	transfer := pay.EarliestTransferDate(time.Now()).AddDate(0, 0, 14)
	for calendar.IsBankHoliday(transfer) {
		transfer = transfer.AddDate(0, 0, 1)
	}
	for _, step := range []struct {
		path string
		form url.Values
	}{
		{"/payments/add/invoiceinfo", url.Values{"supplier": {strconv.FormatInt(supplierID, 10)}}},
		{"/payments/add/account", url.Values{"account": {strconv.FormatInt(accountID, 10)}}},
		{"/payments/add/invoice", url.Values{"amount": {"54321"}, "due_date": {pay.ISODate(transfer.AddDate(0, 0, 3))}, "transfer_date": {pay.ISODate(transfer)}}},
	} {
		res, err := post(step.path, step.form)
		require.NoError(t, err)
		require.Equal(t, http.StatusSeeOther, res.StatusCode, step.path)
	}
	submit := func() {
		key := make([]byte, 12)
		_, _ = rand.Read(key)
		// The process dies before it answers.
		_, _ = post("/payments/add/confirm", url.Values{"submit_key": {"kill-" + hex.EncodeToString(key)},
			"card_id": {strconv.FormatInt(cardID, 10)}, "action": {"submit"}})
	}

	points := []string{invoices.CrashBeforeStart, invoices.CrashAfterStart, invoices.CrashAfterAuthorize, invoices.CrashAfterSettle}
	rowsBefore := map[string]int{}
	for i, point := range points {
		for run := range runsPerPoint {
			if i > 0 || run > 0 {
				srv = start("CARDPAY_CRASH_AT=" + point)
			}
			submit()
			waitExit(t, srv)
		}
		rowsBefore[point] = count(t, `SELECT count(*) FROM invoices WHERE buyer_id = $1 AND submit_key LIKE 'kill-%'`, buyerID)
	}

	// A server without the crash: its reconciler settles what nobody settled.
	srv = start()
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for count(t, `SELECT count(*) FROM invoices WHERE buyer_id = $1 AND card_status IN ('pending', 'requires_action')`, buyerID) > 0 ||
		count(t, `SELECT count(*) FROM jobs WHERE kind = 'payment_card' AND status IN ('queued', 'running')`) > 0 {
		require.True(t, time.Now().Before(deadline), "the reconciler settles every submission, and releases what it must, within a minute")
		time.Sleep(200 * time.Millisecond)
	}

	rows := count(t, `SELECT count(*) FROM invoices WHERE buyer_id = $1 AND submit_key LIKE 'kill-%'`, buyerID)
	payments := count(t, `SELECT count(*) FROM invoices WHERE buyer_id = $1 AND submit_key LIKE 'kill-%' AND submitted_at IS NOT NULL`, buyerID)
	declined := count(t, `SELECT count(*) FROM invoices WHERE buyer_id = $1 AND submit_key LIKE 'kill-%' AND card_status = 'declined'`, buyerID)
	auths := count(t, `SELECT count(*) FROM sandbox_authorizations a JOIN invoices i ON i.payment_ref = a.payment_id
		WHERE i.buyer_id = $1 AND i.submit_key LIKE 'kill-%' AND a.status = 'authorized'`, buyerID)
	authWithoutPayment := count(t, `SELECT count(*) FROM sandbox_authorizations a
		WHERE a.payment_id LIKE 'inv-%' AND a.status = 'authorized' AND NOT EXISTS
		(SELECT 1 FROM invoices i WHERE i.payment_ref = a.payment_id AND i.submitted_at IS NOT NULL)`)
	paymentWithoutAuth := count(t, `SELECT count(*) FROM invoices i WHERE i.buyer_id = $1 AND i.submitted_at IS NOT NULL
		AND i.submit_key LIKE 'kill-%' AND NOT EXISTS
		(SELECT 1 FROM sandbox_authorizations a WHERE a.payment_id = i.payment_ref AND a.status = 'authorized')`, buyerID)
	var b bytes.Buffer
	fmt.Fprintf(&b, "killed during submission, %d times at each point:\n", runsPerPoint)
	fmt.Fprintf(&b, "| point | rows written (cumulative) |\n|---|---|\n")
	for _, p := range points {
		fmt.Fprintf(&b, "| %s | %d |\n", p, rowsBefore[p])
	}
	fmt.Fprintf(&b, "after the reconciler: %d submissions, %d payments (authorised), %d declined (the PSP never saw them), %d authorisations\n",
		rows, payments, declined, auths)
	fmt.Fprintf(&b, "authorisations without a payment: %d; payments without an authorisation: %d\n", authWithoutPayment, paymentWithoutAuth)
	t.Log("\n" + b.String())
	require.Zero(t, authWithoutPayment)
	require.Zero(t, paymentWithoutAuth)
	require.Equal(t, rows, payments+declined, "every submission is settled one way or the other")
	require.Equal(t, 0, rowsBefore[invoices.CrashBeforeStart], "killed before the row: nothing written")
	require.Equal(t, 3*runsPerPoint, rows)
	require.Equal(t, 2*runsPerPoint, payments, "the PSP authorised those killed after asking it")
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func waitExit(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("the server was not killed at its crash point")
	}
}

func count(t *testing.T, q string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, db.Store.DB.GetContext(context.Background(), &n, q, args...))
	return n
}

// cardEntry enters an approving test card as a buyer with JavaScript does: client opens
// app's add-card page (which opens a card setup at psp), the card goes into the PSP's
// fields on the PSP's origin, and the answer is the form the island then posts to the
// add page (the setup's id).
func cardEntry(t *testing.T, client *http.Client, psp, app, number string) url.Values {
	t.Helper()
	res, err := client.Get(app + "/myaccount/creditcards/new")
	require.NoError(t, err)
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	m := regexp.MustCompile(`data-island="card-entry" data-props="([^"]*)"`).FindSubmatch(page)
	require.NotNil(t, m, "the add page has the card-entry island")
	var props struct {
		Setup     string `json:"setup"`
		FieldsURL string `json:"fieldsUrl"`
	}
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &props))
	require.True(t, strings.HasPrefix(props.FieldsURL, psp+"/fields/"), props.FieldsURL)
	body, _ := json.Marshal(map[string]string{"number": number, "exp_month": "12",
		"exp_year": strconv.Itoa(time.Now().Year() + 3), "cvc": "123", "name": "TARO YAMADA"})
	req, _ := http.NewRequest(http.MethodPost, props.FieldsURL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", psp)
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusCreated, res.StatusCode, "the PSP's fields take the card")
	return url.Values{"setup": {props.Setup}}
}
