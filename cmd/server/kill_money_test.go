package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"cardpay/calendar"
	"cardpay/gateway"
	"cardpay/invoices"
	"cardpay/pay"
)

// The server is killed (SIGKILL) at two points of the capture job and two of making a
// transfer file, a few times each; a server without the crash then recovers (the job
// runner takes the killed capture up again after its lease, JOB_LEASE=2s) and the
// operators carry on through the console's forms as a person would: making the file
// again when the page never answered, marking it sent, each transfer done. Then the
// figures: no acknowledged operation lost, no payment captured twice or for another
// amount, no payment in two files, each file's total its payments', the journal
// balanced and equal to each payment's state. They are printed as "| area | what |
// figure | holds |" rows (area "app killed").
func TestKilledDuringCaptureAndFileMaking(t *testing.T) {
	const runsPerPoint = 5
	bin := serverBinary(t)

	const password = "kill-money-password-1" // 12 characters or more: the operators' too
	appPort, pspPort := freePort(t), freePort(t)
	base := "http://localhost:" + strconv.Itoa(appPort)
	env := append(os.Environ(),
		"DATABASE_URL="+db.Server.DSN(db.Name), "PORT="+strconv.Itoa(appPort), "SANDBOX_PSP_PORT="+strconv.Itoa(pspPort),
		"BASE_URL="+base, "DEMO_PASSWORD="+password, "JOB_WORKERS=2", "JOB_LEASE=2s",
		"SMTP_URL=", "FILES_DIR="+t.TempDir(), "PAYMENT_SETTLE_AFTER=1s", "APP_ENV=development",
	)
	type server struct {
		cmd    *exec.Cmd
		stderr *bytes.Buffer
	}
	start := func(extra ...string) server {
		t.Helper()
		cmd := exec.Command(bin)
		cmd.Env = append(append([]string{}, env...), extra...)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
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
		return server{cmd, &stderr}
	}
	// stop ends a server without a crash (SIGTERM: it finishes its requests and jobs).
	stop := func(s server) {
		t.Helper()
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		waitExit(t, s.cmd)
	}

	// Each person has a client of their own: the buyer and the three demo operators.
	newClient := func() *http.Client {
		jar, _ := cookiejar.New(nil)
		return &http.Client{Jar: jar, Timeout: 30 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	// post sends a form as the page does (same origin); a nil answer is a connection the
	// server dropped (it was killed before answering).
	post := func(c *http.Client, path string, form url.Values) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", base)
		res, err := c.Do(req)
		if err != nil {
			return nil
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res
	}
	// acked says whether res is the success answer: a redirect to a location starting so.
	acked := func(res *http.Response, location string) bool {
		return res != nil && res.StatusCode == http.StatusSeeOther && strings.HasPrefix(res.Header.Get("Location"), location)
	}
	waitFor := func(what string, limit time.Duration, done func() bool) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for !done() {
			require.True(t, time.Now().Before(deadline), "waited %s for %s", limit, what)
			time.Sleep(100 * time.Millisecond)
		}
	}

	srv := start()
	defer func() { _ = srv.cmd.Process.Kill(); _ = srv.cmd.Wait() }()
	buyer := newClient()
	require.True(t, acked(post(buyer, "/signin", url.Values{"email_address": {"corp@demo.example"}, "password": {password}}), "/"))
	var buyerID, supplierID, accountID int64
	require.NoError(t, db.Store.DB.Get(&buyerID, `SELECT buyer_id FROM users WHERE email_address = 'corp@demo.example'`))
	require.NoError(t, db.Store.DB.Get(&supplierID, `SELECT id FROM suppliers WHERE buyer_id = $1 AND name = '山田商事株式会社'`, buyerID))
	require.NoError(t, db.Store.DB.Get(&accountID, `SELECT id FROM supplier_accounts WHERE buyer_id = $1 AND supplier_id = $2`, buyerID, supplierID))
	require.True(t, acked(post(buyer, "/myaccount/creditcards/new", cardEntry(t, buyer, "http://localhost:"+strconv.Itoa(pspPort), base, "4111111111111111")), "/"))
	var cardID int64
	require.NoError(t, db.Store.DB.Get(&cardID, `SELECT id FROM cards WHERE buyer_id = $1 AND deleted_at IS NULL ORDER BY id DESC LIMIT 1`, buyerID))
	operator := func(email string) *http.Client {
		c := newClient()
		code, err := totp.GenerateCode(DemoOperatorSecret, time.Now())
		require.NoError(t, err)
		require.True(t, acked(post(c, "/ops/signin", url.Values{"email_address": {email}, "password": {password}, "code": {code}}), "/ops"),
			"%s signs in to the console", email)
		return c
	}
	checker, completer, mover := operator("screening1@ops.demo.example"), operator("screening2@ops.demo.example"), operator("admin@ops.demo.example")

	// Every payment is due on one bank day of its own, away from the demo data's days: each
	// file of that day holds the payments captured and not yet filed.
	day := pay.EarliestTransferDate(time.Now()).AddDate(0, 0, 25)
	for calendar.IsBankHoliday(day) {
		day = day.AddDate(0, 0, 1)
	}
	dayForm := url.Values{"date": {pay.ISODate(day)}}

	// What the people were told had happened (a 303 to the success page): after every
	// recovery it must all be there.
	acks := map[string][]int64{} // submitted, checked, completed, filed (payments), sent (files), done
	ack := func(kind string, id int64) { acks[kind] = append(acks[kind], id) }
	submit := func(amount int64) int64 {
		t.Helper()
		for _, step := range []struct {
			path string
			form url.Values
		}{
			{"/payments/add/invoiceinfo", url.Values{"supplier": {strconv.FormatInt(supplierID, 10)}}},
			{"/payments/add/account", url.Values{"account": {strconv.FormatInt(accountID, 10)}}},
			{"/payments/add/invoice", url.Values{"amount": {strconv.FormatInt(amount, 10)}, "due_date": {pay.ISODate(day.AddDate(0, 0, 3))},
				"transfer_date": {pay.ISODate(day)}}},
		} {
			require.True(t, acked(post(buyer, step.path, step.form), "/payments/add"), step.path)
		}
		key := make([]byte, 12)
		_, _ = rand.Read(key)
		res := post(buyer, "/payments/add/confirm", url.Values{"submit_key": {"killmoney-" + hex.EncodeToString(key)},
			"card_id": {strconv.FormatInt(cardID, 10)}, "action": {"submit"}})
		require.True(t, acked(res, "/payments/complete?id="), "the submission is answered")
		id, err := strconv.ParseInt(strings.TrimPrefix(res.Header.Get("Location"), "/payments/complete?id="), 10, 64)
		require.NoError(t, err)
		ack("submitted", id)
		return id
	}
	cardOf := func(id int64) string {
		var s string
		require.NoError(t, db.Store.DB.Get(&s, `SELECT card_status FROM invoices WHERE id = $1`, id))
		return s
	}
	screeningAction := func(c *http.Client, id int64, action string) bool {
		path := fmt.Sprintf("/ops/screening/%d", id)
		return acked(post(c, path+"/"+action, url.Values{}), path)
	}
	// prepare submits a payment and checks it; complete too (and waits for its capture) when
	// the next kill is in file making.
	prepare := func(n int, completeIt bool) int64 {
		t.Helper()
		id := submit(int64(54321 + n))
		waitFor("the authorisation", 10*time.Second, func() bool { return cardOf(id) == string(pay.CardAuthorized) })
		require.True(t, screeningAction(checker, id, "check"), "確認済")
		ack("checked", id)
		if completeIt {
			require.True(t, screeningAction(completer, id, "complete"), "審査完了")
			ack("completed", id)
			waitFor("the capture", 20*time.Second, func() bool { return cardOf(id) == string(pay.CardCaptured) })
		}
		return id
	}
	fileOf := func(id int64) int64 {
		var f *int64
		require.NoError(t, db.Store.DB.Get(&f, `SELECT transfer_file_id FROM invoices WHERE id = $1`, id))
		if f == nil {
			return 0
		}
		return *f
	}
	// finish takes a captured payment through its file (made when it has none yet), the
	// file sent and the transfer done, on a server without the crash.
	finish := func(id int64) {
		t.Helper()
		if fileOf(id) == 0 {
			require.True(t, acked(post(mover, "/ops/transfers/files", dayForm), "/ops/transfers"), "振込ファイル作成")
			ack("filed", id)
		}
		f := fileOf(id)
		require.NotZero(t, f)
		var sent bool
		require.NoError(t, db.Store.DB.Get(&sent, `SELECT sent_at IS NOT NULL FROM transfer_files WHERE id = $1`, f))
		if !sent {
			require.True(t, acked(post(mover, fmt.Sprintf("/ops/transfers/files/%d/sent", f), url.Values{}), "/ops/transfers"), "送信済み")
			ack("sent", f)
		}
		require.True(t, acked(post(mover, fmt.Sprintf("/ops/transfers/%d/done", id), url.Values{}), "/ops/transfers"), "振込完了")
		ack("done", id)
	}
	pspCapturedOf := func(ref string) (status string, captured int64) {
		var a struct {
			Status   string `db:"status"`
			Captured int64  `db:"captured"`
		}
		require.NoError(t, db.Store.DB.Get(&a, `SELECT status, captured FROM sandbox_authorizations WHERE payment_id = $1`, ref))
		return a.Status, a.Captured
	}
	filesOfDay := func() int {
		return count(t, `SELECT count(*) FROM transfer_files WHERE transfer_date = $1`, pay.ISODate(day))
	}

	points := []string{invoices.CrashCaptureBeforePSP, invoices.CrashCaptureAfterPSP, invoices.CrashFileBeforeCommit, invoices.CrashFileAfterCommit}
	isFile := func(p string) bool { return strings.HasPrefix(p, "file-") }
	type pointFigures struct {
		killed, sawPoint     int   // servers that died, and that logged the crash point first
		answered             int   // kills whose request was answered before the process died
		atKill               []int // per run: what the PSP or the files held when the process died
		retried, retryRefuse int   // file making: made again after the kill, refused (nothing due) after it
		recover              []time.Duration
		note                 string // what atKill counts
	}
	figures := map[string]*pointFigures{}
	began := time.Now()
	n := 0
	next := prepare(n, isFile(points[0]))
	for pi, point := range points {
		fig := &pointFigures{}
		figures[point] = fig
		for run := range runsPerPoint {
			id := next
			var ref string
			require.NoError(t, db.Store.DB.Get(&ref, `SELECT payment_ref FROM invoices WHERE id = $1`, id))
			stop(srv)
			crashing := start("CARDPAY_CRASH_AT=" + point)
			filesBefore := filesOfDay()
			var res *http.Response
			if isFile(point) {
				res = post(mover, "/ops/transfers/files", dayForm)
				if acked(res, "/ops/transfers") {
					ack("filed", id)
				}
			} else {
				res = post(completer, fmt.Sprintf("/ops/screening/%d/complete", id), url.Values{})
				if acked(res, fmt.Sprintf("/ops/screening/%d", id)) {
					ack("completed", id)
				}
			}
			waitExit(t, crashing.cmd)
			fig.killed++
			if ws, ok := crashing.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Errorf("%s run %d: the server ended without SIGKILL: %v", point, run, crashing.cmd.ProcessState)
			}
			if strings.Contains(crashing.stderr.String(), "point="+point) {
				fig.sawPoint++
			}
			if res != nil {
				fig.answered++
			}
			// What the kill left, before anyone recovers it.
			switch point {
			case invoices.CrashCaptureBeforePSP, invoices.CrashCaptureAfterPSP:
				status, _ := pspCapturedOf(ref)
				fig.note = "captured at the PSP when killed (card recorded authorised in all)"
				if status == string(gateway.StatusCaptured) {
					fig.atKill = append(fig.atKill, 1)
				} else {
					fig.atKill = append(fig.atKill, 0)
				}
				require.Equal(t, string(pay.CardAuthorized), cardOf(id), "killed before the capture was recorded")
			default:
				fig.note = "files of the day committed by the killed server"
				fig.atKill = append(fig.atKill, filesOfDay()-filesBefore)
			}

			// A server without the crash: the capture job's lease runs out and it is taken up
			// again; the operator makes the file again when the page never answered.
			t0 := time.Now()
			srv = start()
			if isFile(point) {
				res := post(mover, "/ops/transfers/files", dayForm)
				switch {
				case acked(res, "/ops/transfers"):
					fig.retried++
					ack("filed", id)
				case res != nil && res.StatusCode == http.StatusUnprocessableEntity:
					fig.retryRefuse++ // 「この日に振込ファイルへ入れるお支払いはありません」
				default:
					t.Fatalf("%s run %d: making the file again: %v", point, run, res)
				}
			} else {
				waitFor("the capture after the restart", 30*time.Second, func() bool { return cardOf(id) == string(pay.CardCaptured) })
			}
			fig.recover = append(fig.recover, time.Since(t0))
			finish(id)
			// The next run's payment, prepared on this server.
			n++
			last := pi == len(points)-1 && run == runsPerPoint-1
			if !last {
				nextPoint := point
				if run == runsPerPoint-1 {
					nextPoint = points[pi+1]
				}
				next = prepare(n, isFile(nextPoint))
			}
		}
	}
	// Let the webhooks and jobs the last server has in hand settle.
	waitFor("the jobs to finish", 30*time.Second, func() bool {
		return count(t, `SELECT count(*) FROM jobs WHERE kind IN ('payment_capture', 'payment_card', 'psp_event') AND status IN ('queued', 'running')`) == 0
	})
	elapsed := time.Since(began)

	// The checks.
	ctx := context.Background()
	type row struct {
		ID         int64             `db:"id"`
		Ref        string            `db:"payment_ref"`
		Status     int               `db:"examination_status"`
		Card       string            `db:"card_status"`
		Transfer   pay.TransferStage `db:"transfer_state"`
		Authorized int64             `db:"authorized_amount"`
		FileID     *int64            `db:"transfer_file_id"`
	}
	var rows []row
	require.NoError(t, db.Store.DB.Select(&rows, `SELECT id, payment_ref, examination_status, card_status, transfer_state,
		authorized_amount, transfer_file_id FROM invoices WHERE buyer_id = $1 AND submit_key LIKE 'killmoney-%' ORDER BY id`, buyerID))
	byID := map[int64]row{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	var fileRows []struct {
		ID      int64      `db:"id"`
		Count   int        `db:"record_count"`
		Total   int64      `db:"total"`
		SentAt  *time.Time `db:"sent_at"`
		Content []byte     `db:"content"`
	}
	require.NoError(t, db.Store.DB.Select(&fileRows, `SELECT id, record_count, total, sent_at, content FROM transfer_files
		WHERE transfer_date = $1 ORDER BY id`, pay.ISODate(day)))
	fileSent := map[int64]bool{}
	for _, f := range fileRows {
		fileSent[f.ID] = f.SentAt != nil
	}

	// 1. Every acknowledged operation is there.
	lost := map[string]int{}
	for _, id := range acks["submitted"] {
		if _, ok := byID[id]; !ok {
			lost["submitted"]++
		}
	}
	for _, id := range acks["checked"] {
		// checked, or further: completed (3) and transferred (4) passed the check
		if r, ok := byID[id]; !ok || r.Status < int(pay.InProgressExaminationChecked) {
			lost["checked"]++
		}
	}
	for _, id := range acks["completed"] {
		if r, ok := byID[id]; !ok || r.Status < int(pay.InProgressExaminationCompleted) {
			lost["completed"]++
		}
	}
	for _, id := range acks["filed"] {
		if r, ok := byID[id]; !ok || r.FileID == nil {
			lost["filed"]++
		}
	}
	for _, id := range acks["sent"] {
		if !fileSent[id] {
			lost["sent"]++
		}
	}
	for _, id := range acks["done"] {
		if r, ok := byID[id]; !ok || r.Transfer != pay.TransferDone || r.Status != int(pay.TransferCompleted) {
			lost["done"]++
		}
	}
	var ackTotal, lostTotal int
	var ackParts []string
	for _, k := range []string{"submitted", "checked", "completed", "filed", "sent", "done"} {
		ackTotal += len(acks[k])
		lostTotal += lost[k]
		ackParts = append(ackParts, fmt.Sprintf("%s %d/%d", k, lost[k], len(acks[k])))
	}

	// 2. The PSP: each payment captured once, for its authorised amount.
	var dupCharges, wrongAmount, notCaptured int
	for _, r := range rows {
		var a struct {
			Status   string `db:"status"`
			Amount   int64  `db:"amount"`
			Captured int64  `db:"captured"`
			Captures int    `db:"captures"`
		}
		require.NoError(t, db.Store.DB.Get(&a, `SELECT a.status, a.amount, a.captured,
			(SELECT count(*) FROM sandbox_events e WHERE e.payment_id = a.payment_id AND e.type = $2) AS captures
			FROM sandbox_authorizations a WHERE a.payment_id = $1`, r.Ref, string(gateway.EventCaptured)))
		if a.Captures > 1 || a.Captured > a.Amount {
			dupCharges++
		}
		if r.Card == string(pay.CardCaptured) && (a.Status != string(gateway.StatusCaptured) || a.Captured != r.Authorized) {
			wrongAmount++
		}
		if r.Card != string(pay.CardCaptured) || r.Transfer != pay.TransferDone {
			notCaptured++
		}
	}

	// 3. Transfer files: no payment in two files unless the first failed; each file's
	// total and count are its payments'.
	var failed []struct {
		ID int64 `db:"invoice_id"`
		N  int   `db:"n"`
	}
	require.NoError(t, db.Store.DB.Select(&failed, `SELECT invoice_id, count(*) AS n FROM ledger_postings
		WHERE kind = 'transfer_failed' AND invoice_id IS NOT NULL GROUP BY invoice_id`))
	returned := map[int64]int{}
	for _, x := range failed {
		returned[x.ID] = x.N
	}
	inFiles := map[int64]int{}
	var badFiles int
	for _, f := range fileRows {
		recs, err := invoices.ReadTransferFile(f.Content)
		require.NoError(t, err)
		var sum int64
		for _, rec := range recs {
			pid, err := strconv.ParseInt(rec.CustomerCode, 10, 64)
			require.NoError(t, err)
			inFiles[pid]++
			sum += rec.Amount
		}
		var payable struct {
			N   int   `db:"n"`
			Sum int64 `db:"sum"`
		}
		require.NoError(t, db.Store.DB.Get(&payable, `SELECT count(*) AS n, COALESCE(sum(amount - payee_fee), 0)::bigint AS sum
			FROM invoices WHERE transfer_file_id = $1`, f.ID))
		if f.Count != len(recs) || f.Total != sum || payable.N != f.Count || payable.Sum != f.Total {
			badFiles++
		}
	}
	var twice int
	for pid, k := range inFiles {
		if k-returned[pid] > 1 {
			twice++
		}
	}

	// 4. The journal: balanced postings, each payment's balances its state's, one capture.
	unbalanced := count(t, `SELECT count(*) FROM (SELECT posting_id FROM ledger_entries GROUP BY posting_id HAVING sum(amount) <> 0) u`)
	ledger, err := db.Store.PaymentLedger(ctx, 0)
	require.NoError(t, err)
	var ledgerWrong, ledgerTwice, doneTwice int
	var examples []string
	for _, r := range ledger {
		want := r.Expected()
		if !r.Agrees() {
			ledgerWrong++
			if len(examples) < 3 {
				examples = append(examples, fmt.Sprintf("payment %d (card %s, transfer %q): journal %v, state %v", r.ID, r.Card, r.Transfer, r.Balances, want))
			}
		}
		if r.Captures > 1 {
			ledgerTwice++
		}
		if r.Done > 1 {
			doneTwice++
		}
	}
	jobsFailed := count(t, `SELECT count(*) FROM jobs WHERE kind IN ('payment_capture', 'payment_card', 'psp_event') AND status = 'failed'`)

	// The figures.
	var out bytes.Buffer
	holds := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "NO"
	}
	line := func(what, figure string, ok bool) {
		fmt.Fprintf(&out, "| app killed | %s | %s | %s |\n", what, figure, holds(ok))
	}
	fmt.Fprintln(&out, "| area | what | figure | holds |")
	fmt.Fprintln(&out, "|---|---|---|---|")
	for _, p := range points {
		f := figures[p]
		at := 0
		for _, x := range f.atKill {
			at += x
		}
		var worst time.Duration
		for _, d := range f.recover {
			worst = max(worst, d)
		}
		figure := fmt.Sprintf("%d kills (SIGKILL), %d logged the point first, %d answered before dying; %s: %d of %d; recovered in ≤ %.1fs",
			f.killed, f.sawPoint, f.answered, f.note, at, len(f.atKill), worst.Seconds())
		// A capture runs in a job after 審査完了 was answered; a file is made in the request,
		// which a kill there leaves unanswered.
		ok := f.killed == runsPerPoint && f.sawPoint == runsPerPoint && (!isFile(p) || f.answered == 0)
		switch p {
		case invoices.CrashCaptureBeforePSP:
			ok = ok && at == 0
		case invoices.CrashCaptureAfterPSP:
			ok = ok && at == runsPerPoint
		case invoices.CrashFileBeforeCommit:
			ok = ok && at == 0 && f.retried == runsPerPoint
			figure += fmt.Sprintf("; made again after the restart: %d", f.retried)
		case invoices.CrashFileAfterCommit:
			ok = ok && at == runsPerPoint && f.retryRefuse == runsPerPoint
			figure += fmt.Sprintf("; making it again refused (nothing due): %d", f.retryRefuse)
		}
		line("killed at "+p, figure, ok)
	}
	line("acknowledged operations lost", fmt.Sprintf("%d of %d (%s)", lostTotal, ackTotal, strings.Join(ackParts, ", ")), lostTotal == 0)
	line("payments captured and transferred at the end", fmt.Sprintf("%d of %d not (captured once, 振込完了)", notCaptured, len(rows)),
		notCaptured == 0 && len(rows) == len(points)*runsPerPoint)
	line("duplicate charges (PSP: more than one capture event of a ref, or more captured than authorised)",
		fmt.Sprintf("%d of %d refs", dupCharges, len(rows)), dupCharges == 0)
	line("captured amount ≠ the payment's authorised amount (or PSP not captured)", fmt.Sprintf("%d of %d", wrongAmount, len(rows)), wrongAmount == 0)
	line("duplicate transfers (a payment in two files not failed, or transferred twice)",
		fmt.Sprintf("%d in two files, %d transferred twice (%d payments in %d files)", twice, doneTwice, len(inFiles), len(fileRows)),
		twice == 0 && doneTwice == 0)
	line("transfer files whose count or total ≠ their records' and their payments'", fmt.Sprintf("%d of %d", badFiles, len(fileRows)), badFiles == 0)
	line("ledger: unbalanced postings (SELECT posting_id FROM ledger_entries GROUP BY posting_id HAVING sum(amount) <> 0)",
		strconv.Itoa(unbalanced), unbalanced == 0)
	figure := fmt.Sprintf("%d of %d", ledgerWrong, len(ledger))
	if len(examples) > 0 {
		figure += ": " + strings.Join(examples, "; ")
	}
	line("ledger: payments whose journal ≠ pay.ExpectedBalances(money, card, transfer)", figure, ledgerWrong == 0)
	line("ledger: payments with more than one capture posting", fmt.Sprintf("%d of %d", ledgerTwice, len(ledger)), ledgerTwice == 0)
	line("money jobs failed for good (capture, payment_card, psp_event)", strconv.Itoa(jobsFailed), jobsFailed == 0)
	line("time", fmt.Sprintf("%d points × %d runs, %.0fs", len(points), runsPerPoint, elapsed.Seconds()), true)
	fmt.Print(out.String())
	if strings.Contains(out.String(), "| NO |") {
		t.Errorf("a figure does not hold:\n%s", out.String())
	}
}
