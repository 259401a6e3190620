package moneysuite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lib/pq"

	"cardpay/gateway"
	"cardpay/gateway/sandbox"
	"cardpay/invoices"
	"cardpay/jobs"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/store/storetest"
)

// TestPostgresKilled crashes the app's PostgreSQL server (SIGKILL to the postmaster) 3–5
// times at random moments while buyers submit payments, two operators screen them, the
// jobs capture the cards, an operator makes, sends and completes transfer files, and the
// PSP's webhooks arrive; each time the server is started again (crash recovery) and the
// same *store.Store and services carry on. The app's database is on a cluster of the
// test's own (cluster_test.go); the sandbox PSP keeps its tables on the stable shared
// server, as a real card network would survive our database's crash.
//
// Every operation the app acknowledged (returned without error) is recorded; after the
// last restart and a quiet period in which the jobs drain, the figures are printed as a
// table ("| fault | what | figure | holds |") and any that does not hold fails the test:
// no acknowledged write lost, no duplicate charge, no duplicate transfer, a balanced
// journal that agrees with every payment's state and with the PSP, and work acknowledged
// after every restart (the app reconnects by itself).
func TestPostgresKilled(t *testing.T) {
	ctx := context.Background()
	start := time.Now()
	w := newPgkillWorld(t)

	// The workload: four buyers, two screening operators, one transfers operator; the
	// jobs runner and the PSP's webhooks run beside them.
	var wg sync.WaitGroup
	for _, b := range w.buyers {
		wg.Go(func() { w.buyerLoop(ctx, b) })
	}
	for i := range w.screeners {
		wg.Go(func() { w.screenerLoop(ctx, i) })
	}
	wg.Go(func() { w.transfersLoop(ctx) })

	// The faults: each kill comes once the workload has been running (again) for a while,
	// at a random moment after that.
	kills := 3 + rand.IntN(3)
	var outages []time.Duration
	died, stragglers := 0, 0
	reconnected := true
	for k := 1; k <= kills && reconnected; k++ {
		if !w.rec.waitAcks(pgkillAcksPerEpoch, 30*time.Second) {
			reconnected = false
			break
		}
		time.Sleep(time.Duration(200+rand.IntN(1800)) * time.Millisecond)
		killedAt := time.Now()
		n, s, err := w.cluster.kill()
		if err != nil {
			t.Fatalf("kill %d: %v", k, err)
		}
		died, stragglers = died+n, stragglers+s
		// The outage: clients meet refused connections, jobs fail and are retried.
		time.Sleep(time.Duration(100+rand.IntN(700)) * time.Millisecond)
		if err := w.cluster.start(); err != nil {
			t.Fatalf("restart %d: %v", k, err)
		}
		outages = append(outages, time.Since(killedAt))
		w.rec.restarted()
	}
	// The last epoch too must see work acknowledged, then the workload stops.
	if reconnected && !w.rec.waitAcks(pgkillAcksPerEpoch, 30*time.Second) {
		reconnected = false
	}
	time.Sleep(time.Second)
	close(w.stop)
	wg.Wait()
	workload := time.Since(start)

	// The quiet period: the jobs settle, capture and release what is left.
	drained, drainTook := w.drain(ctx, 30*time.Second)
	w.runner.Stop()
	w.stopPSP()

	f := w.figures(ctx)
	t.Logf("workload %s, drain %s, whole test %s", workload.Round(100*time.Millisecond), drainTook.Round(100*time.Millisecond),
		time.Since(start).Round(100*time.Millisecond))

	fault := fmt.Sprintf("postgres SIGKILL ×%d", len(outages))
	rows := []pgkillFigure{
		{fault, "server killed at random moments and restarted (crash recovery), the app not restarted",
			fmt.Sprintf("%d kills; outages %s; %d server processes died, %d of them killed after the postmaster", len(outages),
				pgkillDurations(outages), died, stragglers), len(outages) == kills && kills >= 3 && kills <= 5},
		{fault, "operations acknowledged (returned without error)", w.rec.ackSummary(), w.rec.totalWrites() > 0},
		{fault, "client retries after an error (the outage)", w.rec.retrySummary(), true},
		{fault, "errors that were not the outage (neither a refusal nor a lost connection)", w.rec.oddSummary(), w.rec.oddCount() == 0},
		{fault, "the app reconnects without a restart: writes acknowledged after each restart (same *store.Store, services, runner)",
			w.rec.epochSummary(), reconnected && w.rec.everyEpochWrote()},
		{fault, "acknowledged submissions lost (row missing, not submitted, another key)", f.lostSubmissions, f.lostSubmissionsN == 0},
		{fault, "acknowledged screening steps lost (not in their state or later)", f.lostScreening, f.lostScreeningN == 0},
		{fault, "acknowledged transfer files lost, files marked sent not sent, transfers done not done", f.lostTransfers, f.lostTransfersN == 0},
		{fault, "acknowledged webhook settlements lost (payment not submitted)", f.lostWebhooks, f.lostWebhooksN == 0},
		{fault, "duplicate payments for one submit key (the same page again answers the same payment)", f.dupPayments, f.dupPaymentsN == 0},
		{fault, "duplicate charges (PSP: more than one capture of a payment ref, or more captured than authorised)", f.dupCharges, f.dupChargesN == 0},
		{fault, "authorisations at the PSP without their payment (no row, not submitted, another amount, more than one per payment)",
			f.orphanAuths, f.orphanAuthsN == 0},
		{fault, "after the drain: submissions unsettled, completed screenings not captured, money jobs failed for good",
			f.leftovers, drained && f.leftoversN == 0},
		{fault, "duplicate transfers (a payment in more than one transfer file not failed, or transferred twice)", f.dupTransfers, f.dupTransfersN == 0},
		{fault, "ledger: unbalanced postings (SELECT posting_id FROM ledger_entries GROUP BY posting_id HAVING sum(amount) <> 0)",
			f.unbalanced, f.unbalancedN == 0},
		{fault, "ledger: payments whose journal ≠ pay.ExpectedBalances(money, card status, transfer stage)", f.ledgerState, f.ledgerStateN == 0},
		{fault, "ledger and PSP: card receivable ≠ captured − refunded at the PSP", f.ledgerPSP, f.ledgerPSPN == 0},
	}
	pgkillTable(t, rows)
	if t.Failed() {
		t.Logf("app log (warnings and errors, last part):\n%s", pgkillTail(w.logs.String(), 6000))
	}
}

// pgkillAcksPerEpoch is how many writes the workload must have acknowledged since the
// last restart before the next kill: the app is working again, and the kill meets it busy.
const pgkillAcksPerEpoch = 25

const pgkillAppOrigin = "http://app.pgkill.test"

// pgkillMoneyJobs are the job kinds the test's runner does, as cmd/server registers them.
var pgkillMoneyJobs = []string{invoices.SettleJobKind, invoices.CardJobKind, invoices.CaptureJobKind}

// pgkillWorld is the app as the test runs it.
type pgkillWorld struct {
	t       *testing.T
	cluster *privateCluster
	st      *store.Store
	svc     *invoices.Services
	runner  *jobs.Runner
	psp     *sandbox.Client
	pspDB   *storetest.DB
	stopPSP func()
	logs    *storetest.Logs

	buyers    []pgkillBuyer
	screeners [2]store.Operator
	mover     store.Operator
	remitter  invoices.Remitter

	// stop ends the workload; clients stop retrying then.
	stop chan struct{}
	rec  *pgkillRecord
}

type pgkillBuyer struct {
	id, supplier, account, card int64
}

func newPgkillWorld(t *testing.T) *pgkillWorld {
	t.Helper()
	ctx := context.Background()
	w := &pgkillWorld{t: t, stop: make(chan struct{}), rec: newPgkillRecord(), logs: &storetest.Logs{}}
	logger := slog.New(slog.NewTextHandler(w.logs, &slog.HandlerOptions{Level: slog.LevelWarn}))

	// The app's database, on the private cluster the test kills.
	w.cluster = newPrivateCluster(t)
	if err := w.cluster.createDatabase(ctx, "cardpay_pgkill"); err != nil {
		t.Fatalf("create the app's database: %v", err)
	}
	st, err := store.Open(ctx, w.cluster.DSN("cardpay_pgkill"))
	if err != nil {
		t.Fatalf("open the app's database: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	w.st = st

	// The PSP's own database, on the shared server, which is never killed.
	w.pspDB, err = storetest.New(ctx)
	if err != nil {
		t.Fatalf("the PSP's database: %v", err)
	}
	t.Cleanup(w.pspDB.Close)
	if err := sandbox.Migrate(ctx, w.pspDB.Store.DB); err != nil {
		t.Fatalf("migrate the PSP: %v", err)
	}

	// The PSP's webhooks come to the app as cmd/server's /webhooks/psp takes them
	// (cards.Service without a queue): verified, the payment's buyer found, then
	// invoices.Payments.ApplyEvent; anything but 200 makes the PSP deliver it again.
	hook := httptest.NewServer(http.HandlerFunc(w.webhook))
	t.Cleanup(hook.Close)
	var pspHandler http.Handler
	pspServer := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) { pspHandler.ServeHTTP(rw, r) }))
	t.Cleanup(pspServer.Close)
	srv, err := sandbox.New(sandbox.Config{DB: w.pspDB.Store.DB, PublicURL: pspServer.URL, AppOrigins: []string{pgkillAppOrigin},
		SecretKey: "sk_test_pgkill", WebhookURL: hook.URL, WebhookSecret: "whsec_pgkill",
		Logger: logger.With("component", "sandbox-psp"), PollInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatalf("sandbox PSP: %v", err)
	}
	pspHandler = srv
	w.psp = sandbox.NewClient(pspServer.URL, "sk_test_pgkill", "whsec_pgkill", &http.Client{Timeout: 10 * time.Second})
	pspCtx, cancelPSP := context.WithCancel(ctx)
	pspDone := make(chan struct{})
	go func() { defer close(pspDone); srv.Run(pspCtx) }()
	var once sync.Once
	w.stopPSP = func() { once.Do(func() { cancelPSP(); <-pspDone }) }
	t.Cleanup(w.stopPSP)

	w.svc = invoices.New(invoices.Config{Store: st, Gateway: w.psp, BaseURL: pgkillAppOrigin, Logger: logger, SettleAfter: time.Second})
	st.SetEvents(w.svc.Notices)
	// The jobs runner with the payment jobs registered as cmd/server does. Its lease and
	// backoff are short so that a job caught by a kill is taken up again within the test.
	w.runner = &jobs.Runner{Store: st, Workers: 2, Logger: logger, PollInterval: 200 * time.Millisecond,
		Lease: 3 * time.Second, BaseBackoff: 200 * time.Millisecond, MaxBackoff: 2 * time.Second, StopGrace: 2 * time.Second}
	w.runner.Register(invoices.SettleJobKind, w.svc.Payments.RunSettleJob)
	w.runner.Register(invoices.CardJobKind, w.svc.Payments.RunCardJob)
	w.runner.Register(invoices.CaptureJobKind, w.svc.Screening.RunCaptureJob)
	w.runner.Start(ctx)
	t.Cleanup(w.runner.Stop)

	w.remitter = invoices.Remitter{Code: "1234567890", Name: "ｾｲｷﾕｳｼﾖｶ-ﾄﾞﾊﾞﾗｲ", BankCode: "0005", BankKana: "ミツビシユーエフジエイ",
		BranchCode: "001", BranchKana: "トウキヨウエイギヨウブ", AccountType: pay.AccountCurrent, AccountNumber: "7654321"}
	for i, roles := range [][]string{{pay.RoleScreening}, {pay.RoleScreening}, {pay.RoleTransfers}} {
		op, err := st.CreateOperator(ctx, store.NewOperator{EmailAddress: fmt.Sprintf("op%d@pgkill.test", i),
			Name: fmt.Sprintf("担当%d", i), PasswordHash: "x", TOTPSecretSealed: "x", Roles: roles})
		if err != nil {
			t.Fatalf("operator: %v", err)
		}
		if i < 2 {
			w.screeners[i] = op
		} else {
			w.mover = op
		}
	}
	card, err := w.psp.SaveCard(ctx, pgkillCardToken(t, pspServer.URL))
	if err != nil {
		t.Fatalf("save the test card at the PSP: %v", err)
	}
	for i := range 4 {
		w.buyers = append(w.buyers, pgkillNewBuyer(t, st, i, card))
	}
	return w
}

// pgkillCardToken tokenises the plain test VISA as the card-entry island does.
func pgkillCardToken(t *testing.T, pspURL string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"number": "4111111111111111", "exp_month": "12",
		"exp_year": strconv.Itoa(time.Now().Year() + 3), "cvc": "123", "name": "TARO YAMADA"})
	req, _ := http.NewRequest(http.MethodPost, pspURL+"/v1/tokens", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", pgkillAppOrigin)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("token: %v", err)
	}
	defer res.Body.Close()
	var tok struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(res.Body).Decode(&tok); err != nil || tok.Token == "" {
		t.Fatalf("token: status %d: %v", res.StatusCode, err)
	}
	return tok.Token
}

// pgkillNewBuyer is a corporation with an approved supplier, its account and the card.
func pgkillNewBuyer(t *testing.T, st *store.Store, n int, gc gateway.Card) pgkillBuyer {
	t.Helper()
	ctx := context.Background()
	u, err := st.CreateBuyer(ctx, store.NewBuyer{BusinessForm: pay.Corporation, CorporateName: "障害試験株式会社",
		EmailAddress: fmt.Sprintf("pgkill-%d@pgkill.test", n), PasswordHash: "x", LastName: "山田", FirstName: "太郎"})
	if err != nil {
		t.Fatalf("buyer: %v", err)
	}
	sup, err := st.CreateSupplier(ctx, u.BuyerID, pay.SupplierInput{BusinessForm: pay.Corporation, Name: "株式会社取引先",
		NameKana: "カブシキガイシャトリヒキサキ", CorporateNumber: "1180301018771"}, &store.AccountFields{BankCode: "0001",
		BankName: "みずほ銀行", BranchCode: "001", BranchName: "東京営業部", AccountType: pay.AccountOrdinary,
		AccountNumber: "1234567", HolderName: "ｶ)ﾄﾘﾋｷｻｷ"})
	if err != nil {
		t.Fatalf("supplier: %v", err)
	}
	if err := st.SetSupplierStatus(ctx, u.BuyerID, sup.ID, pay.SupplierApproved); err != nil {
		t.Fatalf("approve supplier: %v", err)
	}
	accts, err := st.SupplierAccounts(ctx, u.BuyerID, sup.ID)
	if err != nil || len(accts) == 0 {
		t.Fatalf("accounts: %v", err)
	}
	c, err := st.CreateCard(ctx, u.BuyerID, store.NewCard{Gateway: "sandbox", Ref: gc.Ref, Brand: gc.Brand, Last4: gc.Last4,
		ExpMonth: gc.ExpMonth, ExpYear: gc.ExpYear, HolderName: gc.Holder, Fingerprint: gc.Fingerprint}, time.Now())
	if err != nil {
		t.Fatalf("card: %v", err)
	}
	return pgkillBuyer{id: u.BuyerID, supplier: sup.ID, account: accts[0].ID, card: c.ID}
}

// do runs op as a client does: an error that is not an answer (the database is down, a
// connection broke) is tried again after a short wait, until the workload stops. It
// answers whether op was answered (acknowledged, or refused by the rules) and its last
// error. Acknowledgements are counted by kind.
func (w *pgkillWorld) do(kind string, op func() error) (bool, error) {
	for {
		err := op()
		if err == nil {
			w.rec.ack(kind)
			return true, nil
		}
		if pgkillRefusal(err) {
			w.rec.refused(kind)
			return true, err
		}
		w.rec.retried(kind, err)
		select {
		case <-w.stop:
			return false, err
		case <-time.After(time.Duration(50+rand.IntN(100)) * time.Millisecond):
		}
	}
}

// pgkillRefusal says whether err is the rules' answer (a field error, or something that
// does not exist for the caller) rather than a failure to answer.
func pgkillRefusal(err error) bool {
	var fe pay.FieldErrors
	return errors.As(err, &fe) || errors.Is(err, store.ErrNotFound)
}

// pgkillOutage says whether err is what a client meets while the database is down or
// restarting: a refused or broken connection, the server going away or starting up.
func pgkillOutage(err error) bool {
	var pqErr *pq.Error
	if errors.As(err, &pqErr) {
		switch pqErr.Code.Class() {
		case "08", "57": // connection exception; operator intervention (shutdown, crash, starting up)
			return true
		}
	}
	msg := err.Error()
	for _, s := range []string{"connection refused", "bad connection", "EOF", "connection reset", "broken pipe",
		"the database system is", "terminating connection", "server closed", "no connection to the server"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func (w *pgkillWorld) stopped() bool {
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}

// pause waits a little between a client's operations, less if the workload stops.
func (w *pgkillWorld) pause(min, max int) {
	select {
	case <-w.stop:
	case <-time.After(time.Duration(min+rand.IntN(max-min)) * time.Millisecond):
	}
}

// buyerLoop submits payments, each under its own submit key; now and then the same page
// is submitted again (a second tab, a double click), which must answer the same payment.
func (w *pgkillWorld) buyerLoop(ctx context.Context, b pgkillBuyer) {
	for n := 0; !w.stopped(); n++ {
		amount := pgkillAmount(w.svc)
		day := pay.EarliestTransferDate(time.Now())
		sub := invoices.Submission{SubmitKey: fmt.Sprintf("pgkill-%d-%d", b.id, n), SupplierID: b.supplier, AccountID: b.account,
			CardID: b.card, Invoice: pay.InvoiceInput{Amount: strconv.FormatInt(amount, 10), InvoiceNumber: fmt.Sprintf("K-%d", n),
				DueDate: day.AddDate(0, 0, 20).Format("2006-01-02"), TransferDate: day.Format("2006-01-02")}}
		var res invoices.Submitted
		ok, err := w.do("submit", func() (err error) { res, err = w.svc.Payments.Submit(ctx, b.id, sub); return err })
		if ok && err == nil {
			w.rec.submitted(b.id, sub.SubmitKey, res.Payment)
			if rand.IntN(4) == 0 {
				var again invoices.Submitted
				ok, err := w.do("submit again", func() (err error) { again, err = w.svc.Payments.Submit(ctx, b.id, sub); return err })
				if ok && err == nil && again.Payment.ID != res.Payment.ID {
					w.rec.duplicateKey(sub.SubmitKey, res.Payment.ID, again.Payment.ID)
				}
			}
		}
		w.pause(20, 60)
	}
}

// pgkillAmount is an invoice amount whose charge (with the fee) the sandbox approves: it
// declines charges ending in some three digits.
func pgkillAmount(svc *invoices.Services) int64 {
	for {
		amount := int64(10_000 + rand.IntN(490_000))
		if sandbox.DeclineAmounts[svc.Payments.CommissionFor(amount, nil).Total%1000] == "" {
			return amount
		}
	}
}

// screenerLoop is screening operator i: it checks the payments of its half (by id) and
// completes those of the other half that the other operator checked (dual control).
func (w *pgkillWorld) screenerLoop(ctx context.Context, i int) {
	op := w.screeners[i]
	for !w.stopped() {
		p, complete, found := w.rec.nextScreening(i)
		if !found {
			w.pause(20, 40)
			continue
		}
		kind, act := "check", w.svc.Screening.CheckPayment
		if complete {
			kind, act = "complete", w.svc.Screening.CompleteScreening
		}
		ok, err := w.do(kind, func() error { _, err := act(ctx, op, p.id); return err })
		switch {
		case ok && err == nil:
			w.rec.screened(p.id, complete)
		case ok:
			// Refused: most likely the step was done but its answer was lost in a kill.
			// The console shows the payment's state again; the operator goes by it.
			var cur store.Payment
			if ok, err := w.do("read", func() (err error) { cur, err = w.st.Submission(ctx, p.buyer, p.id); return err }); ok && err == nil {
				w.rec.seen(p.id, cur.ExaminationStatus)
			}
		}
		w.pause(5, 20)
	}
}

// transfersLoop is the transfers operator: for each transfer date of the payments, the
// day's file, every file of the day not sent yet marked sent (also one whose making was
// not acknowledged), and every sent payment recorded as transferred.
func (w *pgkillWorld) transfersLoop(ctx context.Context) {
	for !w.stopped() {
		for _, day := range w.rec.daysOf() {
			var f store.TransferFile
			ok, err := w.do("make file", func() (err error) {
				f, err = w.svc.Transfers.MakeTransferFile(ctx, w.mover, day, w.remitter)
				return err
			})
			if ok && err == nil {
				w.rec.filed(f.ID)
			}
			var files []store.TransferFile
			if ok, err := w.do("read", func() (err error) { files, err = w.st.TransferFilesOn(ctx, day); return err }); !ok || err != nil {
				continue
			}
			for _, f := range files {
				if f.SentAt == nil {
					if ok, err := w.do("mark sent", func() error { return w.svc.Transfers.MarkTransferFileSent(ctx, w.mover, f.ID) }); ok && err == nil {
						w.rec.sentFile(f.ID)
					}
				}
			}
			var items []store.TransferItem
			if ok, err := w.do("read", func() (err error) { items, err = w.st.TransfersOn(ctx, day); return err }); !ok || err != nil {
				continue
			}
			for _, it := range items {
				if it.TransferState == pay.TransferSent {
					if ok, err := w.do("transfer done", func() error { _, err := w.svc.Transfers.CompleteTransfer(ctx, w.mover, it.ID); return err }); ok && err == nil {
						w.rec.transferred(it.ID)
					}
				}
			}
		}
		w.pause(150, 400)
	}
}

// webhook is the app's /webhooks/psp for the sandbox: the event is verified, its
// payment's buyer found, and invoices.Payments.ApplyEvent acts on it; 500 makes the PSP
// deliver it again (after 1 s, 4 s, 15 s…).
func (w *pgkillWorld) webhook(rw http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(rw, "read", http.StatusBadRequest)
		return
	}
	ev, err := w.psp.VerifyWebhook(r.Header, body, time.Now())
	if err != nil {
		w.rec.oddError("webhook", err)
		http.Error(rw, "signature", http.StatusBadRequest)
		return
	}
	ref := ev.Transaction.PaymentID
	if !strings.HasPrefix(ref, "inv-") {
		rw.WriteHeader(http.StatusOK)
		return
	}
	buyer, err := w.st.PaymentOwner(r.Context(), ref)
	if err == nil {
		err = w.svc.Payments.ApplyEvent(r.Context(), buyer, ev)
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		w.rec.oddError("webhook", fmt.Errorf("no payment for %s: %w", ref, err))
		rw.WriteHeader(http.StatusOK)
	case err != nil:
		w.rec.retried("webhook", err)
		http.Error(rw, "try again", http.StatusInternalServerError)
	default:
		w.rec.ack("webhook")
		if ev.Type == gateway.EventAuthorized {
			w.rec.settledByWebhook(ref)
		}
		rw.WriteHeader(http.StatusOK)
	}
}

// drain waits, the workload stopped, until the money jobs have nothing left to do: no
// such job queued or running, no submission unsettled, every completed screening
// captured. It answers whether that happened within limit, and how long it took.
func (w *pgkillWorld) drain(ctx context.Context, limit time.Duration) (bool, time.Duration) {
	start := time.Now()
	for time.Since(start) < limit {
		var n int
		err := w.st.DB.GetContext(ctx, &n, `SELECT
			(SELECT count(*) FROM jobs WHERE kind = ANY($1) AND status IN ('queued', 'running')) +
			(SELECT count(*) FROM invoices WHERE card_status IN ('pending', 'requires_action')) +
			(SELECT count(*) FROM invoices WHERE examination_status = 3 AND card_status <> 'captured')`, pq.Array(pgkillMoneyJobs))
		if err == nil && n == 0 {
			return true, time.Since(start)
		}
		time.Sleep(200 * time.Millisecond)
	}
	return false, time.Since(start)
}

// pgkillFigure is one row of the table.
type pgkillFigure struct {
	fault, what, figure string
	holds               bool
}

// pgkillTable prints the figures and fails the test for each that does not hold.
func pgkillTable(t *testing.T, rows []pgkillFigure) {
	t.Helper()
	var b strings.Builder
	b.WriteString("| fault | what | figure | holds |\n|---|---|---|---|\n")
	for _, r := range rows {
		holds := "yes"
		if !r.holds {
			holds = "NO"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.fault, r.what, r.figure, holds)
	}
	fmt.Print(b.String())
	for _, r := range rows {
		if !r.holds {
			t.Errorf("does not hold: %s: %s", r.what, r.figure)
		}
	}
}

func pgkillDurations(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	lo, hi := slices.Min(ds), slices.Max(ds)
	return fmt.Sprintf("%.1f–%.1f s", lo.Seconds(), hi.Seconds())
}

func pgkillTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// pgkillPayment is an acknowledged submission.
type pgkillPayment struct {
	id, buyer int64
	key       string
	day       time.Time
}

// pgkillRecord is what the app acknowledged, as the clients saw it, by epoch (the number
// of restarts before the acknowledgement).
type pgkillRecord struct {
	mu        sync.Mutex
	epoch     int
	restartAt []time.Time     // restartAt[e-1]: when restart e was ready
	first     []time.Duration // first[e-1]: from restart e to its first acknowledged write
	acks      []map[string]int
	retries   map[string]int
	refusals  map[string]int
	odd       []string
	oddN      int

	payments map[int64]pgkillPayment
	order    []int64
	keys     map[string]int64
	dupKeys  []string
	days     map[string]time.Time
	// Acknowledged steps, and (after a refusal) the state the console showed.
	checked, completed map[int64]bool
	shown              map[int64]pay.ExaminationStatus
	refusedScreening   map[int64]int
	files, sent        map[int64]bool
	transfers          map[int64]bool
	webhookSettled     map[string]bool
}

func newPgkillRecord() *pgkillRecord {
	return &pgkillRecord{acks: []map[string]int{{}}, retries: map[string]int{}, refusals: map[string]int{},
		payments: map[int64]pgkillPayment{}, keys: map[string]int64{}, days: map[string]time.Time{},
		checked: map[int64]bool{}, completed: map[int64]bool{}, shown: map[int64]pay.ExaminationStatus{},
		refusedScreening: map[int64]int{}, files: map[int64]bool{}, sent: map[int64]bool{}, transfers: map[int64]bool{},
		webhookSettled: map[string]bool{}}
}

// pgkillRead is the kind of the clients' reads: they are not writes acknowledged.
const pgkillRead = "read"

func (r *pgkillRecord) ack(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acks[r.epoch][kind]++
	if kind != pgkillRead && r.epoch > 0 && r.first[r.epoch-1] == 0 {
		r.first[r.epoch-1] = time.Since(r.restartAt[r.epoch-1])
	}
}

func (r *pgkillRecord) refused(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refusals[kind]++
}

// retried counts an error a client tried again after; one that is not the outage is kept
// to be shown.
func (r *pgkillRecord) retried(kind string, err error) {
	r.mu.Lock()
	r.retries[kind]++
	r.mu.Unlock()
	if !pgkillOutage(err) {
		r.oddError(kind, err)
	}
}

func (r *pgkillRecord) oddError(kind string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.oddN++
	msg := kind + ": " + err.Error()
	if len(r.odd) < 8 && !slices.Contains(r.odd, msg) {
		r.odd = append(r.odd, msg)
	}
}

func (r *pgkillRecord) restarted() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.epoch++
	r.acks = append(r.acks, map[string]int{})
	r.restartAt = append(r.restartAt, time.Now())
	r.first = append(r.first, 0)
}

// writesIn counts the writes acknowledged in epoch e; r.mu is held.
func (r *pgkillRecord) writesIn(e int) int {
	n := 0
	for kind, k := range r.acks[e] {
		if kind != pgkillRead {
			n += k
		}
	}
	return n
}

// waitAcks waits until the current epoch has n writes acknowledged, or timeout passes.
func (r *pgkillRecord) waitAcks(n int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		got := r.writesIn(r.epoch)
		r.mu.Unlock()
		if got >= n {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func (r *pgkillRecord) submitted(buyer int64, key string, p store.Payment) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id, ok := r.keys[key]; ok && id != p.ID {
		r.dupKeys = append(r.dupKeys, fmt.Sprintf("%s: %d and %d", key, id, p.ID))
	}
	r.keys[key] = p.ID
	if _, ok := r.payments[p.ID]; ok {
		return
	}
	rec := pgkillPayment{id: p.ID, buyer: buyer, key: key}
	if p.TransferDate != nil {
		rec.day = *p.TransferDate
		r.days[rec.day.Format("2006-01-02")] = rec.day
	}
	r.payments[p.ID] = rec
	r.order = append(r.order, p.ID)
}

func (r *pgkillRecord) duplicateKey(key string, first, again int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dupKeys = append(r.dupKeys, fmt.Sprintf("%s: %d, then %d", key, first, again))
}

// known is the screening state of payment id as far as the operators know; r.mu is held.
func (r *pgkillRecord) known(id int64) pay.ExaminationStatus {
	st := max(r.shown[id], pay.InProgress)
	if r.checked[id] {
		st = max(st, pay.InProgressExaminationChecked)
	}
	if r.completed[id] {
		st = max(st, pay.InProgressExaminationCompleted)
	}
	return st
}

// nextScreening picks, at random, a payment for screening operator i: one of its half to
// check, or one of the other half checked (by the other operator) to complete.
func (r *pgkillRecord) nextScreening(i int) (pgkillPayment, bool, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	type pick struct {
		id       int64
		complete bool
	}
	var picks []pick
	for _, id := range r.order {
		if r.refusedScreening[id] >= 3 {
			continue // the rules keep saying no: leave it
		}
		mine := int(id%2) == i
		switch st := r.known(id); {
		case mine && st == pay.InProgress:
			picks = append(picks, pick{id, false})
		case !mine && st == pay.InProgressExaminationChecked:
			picks = append(picks, pick{id, true})
		}
	}
	if len(picks) == 0 {
		return pgkillPayment{}, false, false
	}
	p := picks[rand.IntN(len(picks))]
	return r.payments[p.id], p.complete, true
}

func (r *pgkillRecord) screened(id int64, complete bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if complete {
		r.completed[id] = true
	} else {
		r.checked[id] = true
	}
}

// seen records the state the console showed after a refusal.
func (r *pgkillRecord) seen(id int64, st pay.ExaminationStatus) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refusedScreening[id]++
	r.shown[id] = max(r.shown[id], st)
}

func (r *pgkillRecord) filed(id int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files[id] = true
}

func (r *pgkillRecord) sentFile(id int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent[id] = true
}

func (r *pgkillRecord) transferred(id int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.transfers[id] = true
}

func (r *pgkillRecord) settledByWebhook(ref string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.webhookSettled[ref] = true
}

// daysOf are the transfer dates of the acknowledged payments.
func (r *pgkillRecord) daysOf() []time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]time.Time, 0, len(r.days))
	for _, d := range r.days {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

func (r *pgkillRecord) totalWrites() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for e := range r.acks {
		n += r.writesIn(e)
	}
	return n
}

// everyEpochWrote says whether writes were acknowledged after every restart.
func (r *pgkillRecord) everyEpochWrote() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for e := 1; e < len(r.acks); e++ {
		if r.writesIn(e) == 0 {
			return false
		}
	}
	return r.epoch > 0
}

func pgkillCounts(m map[string]int) string {
	kinds := make([]string, 0, len(m))
	for k := range m {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	var b strings.Builder
	for _, k := range kinds {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, m[k])
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}

func (r *pgkillRecord) ackSummary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	all := map[string]int{}
	for _, m := range r.acks {
		for k, v := range m {
			all[k] += v
		}
	}
	return pgkillCounts(all)
}

func (r *pgkillRecord) retrySummary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return pgkillCounts(r.retries) + "; refused by the rules: " + pgkillCounts(r.refusals)
}

func (r *pgkillRecord) oddSummary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.oddN == 0 {
		return "0"
	}
	return fmt.Sprintf("%d: %s", r.oddN, strings.Join(r.odd, "; "))
}

func (r *pgkillRecord) oddCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.oddN
}

func (r *pgkillRecord) epochSummary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	parts := []string{fmt.Sprintf("before the first kill %d", r.writesIn(0))}
	for e := 1; e < len(r.acks); e++ {
		first := "none"
		if r.first[e-1] > 0 {
			first = fmt.Sprintf("first %.2f s after", r.first[e-1].Seconds())
		}
		parts = append(parts, fmt.Sprintf("after restart %d: %d (%s)", e, r.writesIn(e), first))
	}
	return strings.Join(parts, "; ")
}

// pgkillFigures are the checks' results: each a figure as printed and its count of
// violations.
type pgkillFigures struct {
	lostSubmissions, lostScreening, lostTransfers, lostWebhooks     string
	lostSubmissionsN, lostScreeningN, lostTransfersN, lostWebhooksN int
	dupPayments, dupCharges, orphanAuths, leftovers                 string
	dupPaymentsN, dupChargesN, orphanAuthsN, leftoversN             int
	dupTransfers, unbalanced, ledgerState, ledgerPSP                string
	dupTransfersN, unbalancedN, ledgerStateN, ledgerPSPN            int
}

// pgkillInvoice is an invoice row as the checks read it.
type pgkillInvoice struct {
	ID          int64                 `db:"id"`
	BuyerID     int64                 `db:"buyer_id"`
	Ref         string                `db:"payment_ref"`
	Key         *string               `db:"submit_key"`
	SubmittedAt *time.Time            `db:"submitted_at"`
	Status      pay.ExaminationStatus `db:"examination_status"`
	Card        pay.CardStatus        `db:"card_status"`
	Transfer    pay.TransferStage     `db:"transfer_state"`
	Authorized  int64                 `db:"authorized_amount"`
}

// pgkillAuth is an authorisation as the sandbox PSP keeps it.
type pgkillAuth struct {
	PaymentID  string `db:"payment_id"`
	Amount     int64  `db:"amount"`
	Status     string `db:"status"`
	Captured   int64  `db:"captured"`
	Refunded   int64  `db:"refunded"`
	VerifyOnly bool   `db:"verify_only"`
	Captures   int    `db:"captures"`
}

// figures reads the app's database, the PSP's and the journal, and compares them with
// what was acknowledged.
func (w *pgkillWorld) figures(ctx context.Context) pgkillFigures {
	t := w.t
	t.Helper()
	must := func(err error) {
		if err != nil {
			t.Fatalf("figures: %v", err)
		}
	}
	var f pgkillFigures
	r := w.rec
	r.mu.Lock()
	defer r.mu.Unlock()

	var invs []pgkillInvoice
	must(w.st.DB.SelectContext(ctx, &invs, `SELECT id, buyer_id, payment_ref, submit_key, submitted_at, examination_status,
		card_status, transfer_state, authorized_amount FROM invoices`))
	byID, byRef := map[int64]pgkillInvoice{}, map[string]pgkillInvoice{}
	for _, in := range invs {
		byID[in.ID], byRef[in.Ref] = in, in
	}

	// Acknowledged writes, each still there.
	for _, p := range r.payments {
		in, ok := byID[p.id]
		if !ok || in.SubmittedAt == nil || in.BuyerID != p.buyer || in.Key == nil || *in.Key != p.key ||
			(in.Card != pay.CardAuthorized && in.Card != pay.CardCaptured) {
			f.lostSubmissionsN++
		}
	}
	f.lostSubmissions = fmt.Sprintf("%d of %d", f.lostSubmissionsN, len(r.payments))
	var lostChecks, lostCompletes int
	for id := range r.checked {
		if st := byID[id].Status; st != pay.InProgressExaminationChecked && st != pay.InProgressExaminationCompleted && st != pay.TransferCompleted {
			lostChecks++
		}
	}
	for id := range r.completed {
		if st := byID[id].Status; st != pay.InProgressExaminationCompleted && st != pay.TransferCompleted {
			lostCompletes++
		}
	}
	f.lostScreeningN = lostChecks + lostCompletes
	f.lostScreening = fmt.Sprintf("%d of %d checks, %d of %d completions", lostChecks, len(r.checked), lostCompletes, len(r.completed))

	var files []struct {
		ID      int64      `db:"id"`
		SentAt  *time.Time `db:"sent_at"`
		Content []byte     `db:"content"`
	}
	must(w.st.DB.SelectContext(ctx, &files, `SELECT id, sent_at, content FROM transfer_files ORDER BY id`))
	fileSent := map[int64]bool{}
	inFiles := map[int64]int{}
	for _, fl := range files {
		fileSent[fl.ID] = fl.SentAt != nil
		recs, err := invoices.ReadTransferFile(fl.Content)
		must(err)
		for _, rec := range recs {
			id, err := strconv.ParseInt(rec.CustomerCode, 10, 64)
			must(err)
			inFiles[id]++
		}
	}
	var lostFiles, lostSent, lostDone int
	for id := range r.files {
		if _, ok := fileSent[id]; !ok {
			lostFiles++
		}
	}
	for id := range r.sent {
		if !fileSent[id] {
			lostSent++
		}
	}
	for id := range r.transfers {
		if in := byID[id]; in.Status != pay.TransferCompleted || in.Transfer != pay.TransferDone {
			lostDone++
		}
	}
	f.lostTransfersN = lostFiles + lostSent + lostDone
	f.lostTransfers = fmt.Sprintf("%d of %d files, %d of %d sent, %d of %d transfers done", lostFiles, len(r.files),
		lostSent, len(r.sent), lostDone, len(r.transfers))
	for ref := range r.webhookSettled {
		if byRef[ref].SubmittedAt == nil {
			f.lostWebhooksN++
		}
	}
	f.lostWebhooks = fmt.Sprintf("%d of %d", f.lostWebhooksN, len(r.webhookSettled))

	// One payment per submit key.
	var sameKey int
	must(w.st.DB.GetContext(ctx, &sameKey, `SELECT count(*) FROM (SELECT 1 FROM invoices WHERE submit_key IS NOT NULL
		GROUP BY buyer_id, submit_key HAVING count(*) > 1) d`))
	f.dupPaymentsN = len(r.dupKeys) + sameKey
	f.dupPayments = fmt.Sprintf("%d answered another payment, %d keys with more than one row (%d keys submitted again)",
		len(r.dupKeys), sameKey, r.totalAcks("submit again"))
	if len(r.dupKeys) > 0 {
		f.dupPayments += ": " + strings.Join(r.dupKeys[:min(len(r.dupKeys), 5)], "; ")
	}

	// The PSP's side: every authorisation of an invoice, with its capture events.
	var auths []pgkillAuth
	must(w.pspDB.Store.DB.SelectContext(ctx, &auths, `SELECT a.payment_id, a.amount, a.status, a.captured, a.refunded, a.verify_only,
		(SELECT count(*) FROM sandbox_events e WHERE e.payment_id = a.payment_id AND e.type = $1) AS captures
		FROM sandbox_authorizations a WHERE a.payment_id LIKE 'inv-%'`, string(gateway.EventCaptured)))
	authByRef := map[string]pgkillAuth{}
	perInvoice := map[int64]int{}
	var capturedRefs, ledgerTwice int
	for _, a := range auths {
		authByRef[a.PaymentID] = a
		if a.Captured > 0 {
			capturedRefs++
		}
		if a.Captures > 1 || a.Captured > a.Amount || a.Refunded > a.Captured {
			f.dupChargesN++
		}
		in, ok := byRef[a.PaymentID]
		live := a.Status == string(gateway.StatusAuthorized) || a.Status == string(gateway.StatusCaptured) ||
			a.Status == string(gateway.StatusPartiallyRefunded)
		switch {
		case !ok, a.VerifyOnly, live && in.SubmittedAt == nil, a.Amount != in.Authorized:
			f.orphanAuthsN++
		default:
			perInvoice[in.ID]++
		}
	}
	for _, n := range perInvoice {
		if n > 1 {
			f.orphanAuthsN++
		}
	}

	// The journal.
	unbalanced, err := w.st.LedgerUnbalanced(ctx)
	must(err)
	f.unbalancedN = len(unbalanced)
	f.unbalanced = fmt.Sprintf("%d", len(unbalanced))
	ledger, err := w.st.PaymentLedger(ctx, 0)
	must(err)
	var transferredTwice, done int
	var examples []string
	for _, row := range ledger {
		if row.Captures > 1 {
			ledgerTwice++
		}
		if row.Done > 1 {
			transferredTwice++
		}
		if row.Transfer == pay.TransferDone {
			done++
		}
		want := row.Expected()
		if !row.Agrees() {
			f.ledgerStateN++
			if len(examples) < 3 {
				examples = append(examples, fmt.Sprintf("payment %d (%s, card %s, transfer %q): journal %v, state says %v",
					row.ID, row.Status.Label(), row.Card, row.Transfer, row.Balances, want))
			}
		}
		a, ok := authByRef[row.PaymentRef]
		agrees := ok && row.Balances[pay.AccountCardReceivable] == a.Captured-a.Refunded
		switch row.Card {
		case pay.CardCaptured:
			agrees = agrees && a.Status == string(gateway.StatusCaptured) && a.Captured == row.Authorized
		case pay.CardAuthorized:
			agrees = agrees && a.Status == string(gateway.StatusAuthorized)
		}
		if !agrees {
			f.ledgerPSPN++
		}
	}
	f.dupChargesN += ledgerTwice
	f.dupCharges = fmt.Sprintf("%d of %d payment refs (%d captured at the PSP); %d payments with more than one capture posting",
		f.dupChargesN-ledgerTwice, len(auths), capturedRefs, ledgerTwice)
	f.orphanAuths = fmt.Sprintf("%d of %d", f.orphanAuthsN, len(auths))
	f.ledgerState = fmt.Sprintf("%d of %d", f.ledgerStateN, len(ledger))
	if len(examples) > 0 {
		f.ledgerState += ": " + strings.Join(examples, "; ")
	}
	f.ledgerPSP = fmt.Sprintf("%d of %d (status or amount differs)", f.ledgerPSPN, len(ledger))

	// Transfers: a payment in more than one file, beyond the files the bank returned.
	var failed []struct {
		ID int64 `db:"invoice_id"`
		N  int   `db:"n"`
	}
	must(w.st.DB.SelectContext(ctx, &failed, `SELECT invoice_id, count(*) AS n FROM ledger_postings
		WHERE kind = 'transfer_failed' AND invoice_id IS NOT NULL GROUP BY invoice_id`))
	returned := map[int64]int{}
	for _, x := range failed {
		returned[x.ID] = x.N
	}
	var twice int
	for id, n := range inFiles {
		if n-returned[id] > 1 {
			twice++
		}
	}
	f.dupTransfersN = twice + transferredTwice
	f.dupTransfers = fmt.Sprintf("%d payments in two files, %d transferred twice (%d payments in %d files, %d transferred)",
		twice, transferredTwice, len(inFiles), len(files), done)

	// What the drain left.
	var unsettled, uncaptured, jobsFailed, jobsLeft int
	must(w.st.DB.GetContext(ctx, &unsettled, `SELECT count(*) FROM invoices WHERE card_status IN ('pending', 'requires_action')`))
	must(w.st.DB.GetContext(ctx, &uncaptured, `SELECT count(*) FROM invoices WHERE examination_status = 3 AND card_status <> 'captured'`))
	must(w.st.DB.GetContext(ctx, &jobsFailed, `SELECT count(*) FROM jobs WHERE kind = ANY($1) AND status = 'failed'`, pq.Array(pgkillMoneyJobs)))
	must(w.st.DB.GetContext(ctx, &jobsLeft, `SELECT count(*) FROM jobs WHERE kind = ANY($1) AND status IN ('queued', 'running')`, pq.Array(pgkillMoneyJobs)))
	f.leftoversN = unsettled + uncaptured + jobsFailed + jobsLeft
	f.leftovers = fmt.Sprintf("%d unsettled, %d not captured, %d jobs failed for good, %d jobs still queued or running",
		unsettled, uncaptured, jobsFailed, jobsLeft)
	return f
}

// totalAcks counts kind's acknowledgements over every epoch; r.mu is held.
func (r *pgkillRecord) totalAcks(kind string) int {
	n := 0
	for _, m := range r.acks {
		n += m[kind]
	}
	return n
}
