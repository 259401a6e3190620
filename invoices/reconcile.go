package invoices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"cardpay/gateway"
	"cardpay/pay"
	"cardpay/store"
)

// The reconciliation, three ways: for a range of transfer dates, each payment's ledger
// against its state, against the PSP's record of every authorisation it had (captured
// and refunded) and against the transfer files; each file against its payments and the
// ledger's postings of it. Every difference is listed with its cause; nothing is changed.

// Mismatch is one difference found.
type Mismatch struct {
	PaymentID int64 // 0 for a file's own problem
	FileID    int64 // 0 when no file is concerned
	Kind      string
	Detail    string
}

// Kinds of mismatch, as the page shows them.
const (
	MismatchGateway  = "カード会社の記録と不一致"
	MismatchCapture  = "売上確定の漏れ"
	MismatchRelease  = "取消・返金の漏れ"
	MismatchTransfer = "振込の記録と不一致"
	MismatchFile     = "振込ファイルの不整合"
	MismatchLedger   = "会計記録と不一致"
)

// Reconciliation is the result for a range.
type Reconciliation struct {
	From, To   time.Time
	Payments   int
	Files      int
	Mismatches []Mismatch
	Totals     ThreeWay
}

// ThreeWay are the range's totals as the PSP, the ledger and the transfer files see them.
type ThreeWay struct {
	// The card: what the PSP captured and refunded for the range's payments (every
	// authorisation of each), and what the ledger posted for them.
	PSPCaptured, PSPRefunded       int64
	LedgerCaptured, LedgerRefunded int64
	// The bank: the totals of the range's transfer files (those given to the bank apart),
	// and what the ledger posted into them, as paid and as returned.
	FilesMade, FilesSent                  int64
	LedgerFiled, LedgerDone, LedgerFailed int64
	LedgerFiledSent                       int64
}

// Agree says whether the three agree: the PSP's money and the ledger's to the yen, and
// every file's total posted into it.
func (t ThreeWay) Agree() bool {
	return t.PSPCaptured == t.LedgerCaptured && t.PSPRefunded == t.LedgerRefunded && t.FilesMade == t.LedgerFiled
}

// gatewayAgrees says whether the PSP's record matches card status cs, and names cs.
func gatewayAgrees(cs pay.CardStatus, tx gateway.Transaction, authorized int64) (bool, string) {
	switch cs {
	case pay.CardAuthorized:
		return tx.Status == gateway.StatusAuthorized && tx.Amount == authorized, "与信中"
	case pay.CardCaptured:
		return (tx.Status == gateway.StatusCaptured) && tx.Captured == authorized, "売上確定"
	case pay.CardVoided:
		return tx.Status == gateway.StatusVoided || tx.Status == gateway.StatusLapsed, "与信取消"
	case pay.CardRefunded:
		return tx.Status == gateway.StatusRefunded && tx.Refunded == tx.Captured, "返金済み"
	}
	return false, string(cs)
}

// Reconcile compares the payments with transfer dates in [from, to] and the files of
// those days.
func (s *Transfers) Reconcile(ctx context.Context, from, to time.Time) (Reconciliation, error) {
	r := Reconciliation{From: from, To: to}
	list, err := s.Store.PaymentsBetween(ctx, from, to)
	if err != nil {
		return r, err
	}
	r.Payments = len(list)
	add := func(m Mismatch) { r.Mismatches = append(r.Mismatches, m) }
	ids := make([]int64, len(list))
	for i, p := range list {
		ids[i] = p.ID
	}
	books, err := s.Store.PaymentLedgerOf(ctx, ids)
	if err != nil {
		return r, err
	}
	byID := map[int64]store.PaymentLedgerRow{}
	for _, b := range books {
		byID[b.ID] = b
	}
	moves, err := s.Store.PaymentMoves(ctx, ids)
	if err != nil {
		return r, err
	}
	for _, p := range list {
		book, mv := byID[p.ID], moves[p.ID]
		r.Totals.LedgerCaptured += mv.Captured
		r.Totals.LedgerRefunded += mv.Refunded
		if !book.Agrees() {
			add(Mismatch{PaymentID: p.ID, Kind: MismatchLedger, Detail: fmt.Sprintf("会計記録の残高（%s）が、お支払いの状態（%s・%s・%s）から見込まれる残高（%s）と違います",
				balancesText(book.Balances), p.Status.Label(), cardLabel(p.CardStatus), p.TransferState.Label(), balancesText(book.Expected()))})
		}
		// Every authorisation the payment had (a corrected amount is authorised anew).
		var captured, refunded int64
		for seq := 1; seq <= refSeq(p.PaymentRef); seq++ {
			tx, err := s.Gateway.Lookup(ctx, fmt.Sprintf("inv-%d-%d", p.ID, seq))
			if errors.Is(err, gateway.ErrNotFound) {
				continue
			}
			if err != nil {
				return r, fmt.Errorf("invoices: reconcile %s: %w", p.PaymentRef, err)
			}
			captured += tx.Captured
			refunded += tx.Refunded
		}
		r.Totals.PSPCaptured += captured
		r.Totals.PSPRefunded += refunded
		if captured != mv.Captured || refunded != mv.Refunded {
			add(Mismatch{PaymentID: p.ID, Kind: MismatchLedger, Detail: fmt.Sprintf("カード会社の売上 %s・返金 %s に対し、会計記録は売上 %s・返金 %s です",
				pay.Yen(captured), pay.Yen(refunded), pay.Yen(mv.Captured), pay.Yen(mv.Refunded))})
		}
		tx, err := s.Gateway.Lookup(ctx, p.PaymentRef)
		if errors.Is(err, gateway.ErrNotFound) {
			add(Mismatch{PaymentID: p.ID, Kind: MismatchGateway, Detail: "カード会社にこのお支払いの記録がありません"})
			continue
		}
		if err != nil {
			return r, fmt.Errorf("invoices: reconcile %s: %w", p.PaymentRef, err)
		}
		if ok, want := gatewayAgrees(p.CardStatus, tx, p.AuthorizedAmount); !ok {
			add(Mismatch{PaymentID: p.ID, Kind: MismatchGateway, Detail: fmt.Sprintf("当社の記録は「%s」（%s）、カード会社は %s（与信 %s・売上 %s・返金 %s）",
				want, pay.Yen(p.AuthorizedAmount), tx.Status, pay.Yen(tx.Amount), pay.Yen(tx.Captured), pay.Yen(tx.Refunded))})
		}
		switch p.Status {
		case pay.InProgressExaminationCompleted, pay.TransferCompleted:
			if p.CardStatus != pay.CardCaptured {
				add(Mismatch{PaymentID: p.ID, Kind: MismatchCapture, Detail: "審査完了後なのに、カードの売上が確定していません"})
			}
		case pay.Cancel, pay.Expired:
			if p.CardStatus != pay.CardVoided && p.CardStatus != pay.CardRefunded {
				add(Mismatch{PaymentID: p.ID, Kind: MismatchRelease, Detail: "キャンセル・期限切れなのに、カードの与信が取り消されていません"})
			}
		}
		if p.Status == pay.TransferCompleted && (p.TransferFileID == nil || p.TransferredAt == nil) {
			add(Mismatch{PaymentID: p.ID, Kind: MismatchTransfer, Detail: "振込完了なのに、送信済みの振込ファイルに入っていません"})
		}
	}
	// The database refuses an unbalanced posting at commit; this proves it still holds.
	unbalanced, err := s.Store.LedgerUnbalanced(ctx)
	if err != nil {
		return r, err
	}
	for _, id := range unbalanced {
		add(Mismatch{Kind: MismatchLedger, Detail: fmt.Sprintf("仕訳 #%d の借方と貸方の合計が一致しません", id)})
	}
	files, err := s.Store.TransferFilesBetween(ctx, from, to)
	if err != nil {
		return r, err
	}
	r.Files = len(files)
	fileIDs := make([]int64, len(files))
	for i, f := range files {
		fileIDs[i] = f.ID
	}
	fileMoves, err := s.Store.FileMoves(ctx, fileIDs)
	if err != nil {
		return r, err
	}
	for _, f := range files {
		mv := fileMoves[f.ID]
		r.Totals.FilesMade += f.Total
		r.Totals.LedgerFiled += mv.Filed
		r.Totals.LedgerDone += mv.Done
		r.Totals.LedgerFailed += mv.Failed
		if f.SentAt != nil {
			r.Totals.FilesSent += f.Total
			r.Totals.LedgerFiledSent += mv.Filed
		}
		if mv.Filed != f.Total {
			add(Mismatch{FileID: f.ID, Kind: MismatchLedger, Detail: fmt.Sprintf("振込ファイルの合計 %s に対し、会計記録で振込に回した額は %s です",
				pay.Yen(f.Total), pay.Yen(mv.Filed))})
		}
		if mv.Done+mv.Failed > mv.Filed {
			add(Mismatch{FileID: f.ID, Kind: MismatchLedger, Detail: fmt.Sprintf("会計記録で振込完了 %s・振込不能 %s が、振込に回した %s を超えています",
				pay.Yen(mv.Done), pay.Yen(mv.Failed), pay.Yen(mv.Filed))})
		}
		_, b, err := s.Store.TransferFileContent(ctx, f.ID)
		if err != nil {
			return r, err
		}
		records, err := ReadTransferFile(b)
		if err != nil {
			add(Mismatch{FileID: f.ID, Kind: MismatchFile, Detail: err.Error()})
			continue
		}
		var total int64
		ids := make([]int64, 0, len(records))
		amounts := map[int64]int64{}
		for _, rec := range records {
			id, err := strconv.ParseInt(rec.CustomerCode, 10, 64)
			if err != nil {
				add(Mismatch{FileID: f.ID, Kind: MismatchFile, Detail: fmt.Sprintf("顧客コード %q がお支払いの番号ではありません", rec.CustomerCode)})
				continue
			}
			ids = append(ids, id)
			amounts[id] = rec.Amount
			total += rec.Amount
		}
		if len(records) != f.RecordCount || total != f.Total {
			add(Mismatch{FileID: f.ID, Kind: MismatchFile, Detail: fmt.Sprintf("作成時の記録（%d件・%s）とファイルの中身（%d件・%s）が違います",
				f.RecordCount, pay.Yen(f.Total), len(records), pay.Yen(total))})
		}
		filed, err := s.Store.TransfersByID(ctx, ids)
		if err != nil {
			return r, err
		}
		found := map[int64]bool{}
		for _, p := range filed {
			found[p.ID] = true
			if amounts[p.ID] != p.Amount {
				add(Mismatch{PaymentID: p.ID, FileID: f.ID, Kind: MismatchFile, Detail: fmt.Sprintf("ファイルの金額 %s とお支払いの金額 %s が違います",
					pay.Yen(amounts[p.ID]), pay.Yen(p.Amount))})
			}
			inThisFile := p.TransferFileID != nil && *p.TransferFileID == f.ID
			switch {
			case p.Status == pay.TransferCompleted && inThisFile, p.TransferFailure != "":
				// paid from this file, or returned by the bank (retried or cancelled)
			case f.SentAt == nil && inThisFile && p.TransferState == pay.TransferFiled:
				// not sent yet
			case f.SentAt != nil && inThisFile && p.TransferState == pay.TransferSent:
				// sent, waiting for the bank's answer
			default:
				add(Mismatch{PaymentID: p.ID, FileID: f.ID, Kind: MismatchTransfer,
					Detail: fmt.Sprintf("振込ファイル #%d に入っていますが、お支払いは「%s」です", f.ID, p.Status.Label())})
			}
		}
		for _, id := range ids {
			if !found[id] {
				add(Mismatch{PaymentID: id, FileID: f.ID, Kind: MismatchFile, Detail: "ファイルにあるお支払いが見つかりません"})
			}
		}
	}
	return r, nil
}

// refSeq is the authorisation number at the end of a payment id ("inv-12-3" → 3).
func refSeq(ref string) int {
	i := strings.LastIndexByte(ref, '-')
	n, err := strconv.Atoi(ref[i+1:])
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// balancesText shows balances as the console reads them: 勘定科目 借方/貸方 amount.
func balancesText(b map[pay.LedgerAccount]int64) string {
	var parts []string
	for _, a := range pay.LedgerAccounts {
		switch v := b[a]; {
		case v > 0:
			parts = append(parts, a.Label()+" 借方"+pay.Yen(v))
		case v < 0:
			parts = append(parts, a.Label()+" 貸方"+pay.Yen(-v))
		}
	}
	if len(parts) == 0 {
		return "残高なし"
	}
	return strings.Join(parts, "、")
}

func cardLabel(c pay.CardStatus) string {
	switch c {
	case pay.CardAuthorized:
		return "与信中"
	case pay.CardCaptured:
		return "売上確定"
	case pay.CardVoided:
		return "与信取消"
	case pay.CardRefunded:
		return "返金済み"
	}
	return string(c)
}

// The daily reconciliation: at 02:00 in Japan, the transfer dates of the month before
// and the month after, kept for the console (store.ReconciliationRun); a difference is
// logged as an error for whoever watches the logs.

// ReconcileJobKind is the daily reconciliation's job.
const ReconcileJobKind = "daily_reconcile"

// ReconcileWindow is how far before and after the day the daily run looks.
const ReconcileWindow = 31

// ScheduleReconcile enqueues day's reconciliation (once: its key is the day's).
func (s *Transfers) ScheduleReconcile(ctx context.Context, day time.Time) error {
	d := day.In(pay.Tokyo())
	date := d.Format("2006-01-02")
	_, err := s.Store.EnqueueJob(ctx, nil, store.NewJob{Kind: ReconcileJobKind, Payload: ExpiryJob{Date: date},
		UniqueKey: "reconcile-" + date, RunAt: time.Date(d.Year(), d.Month(), d.Day(), 2, 0, 0, 0, pay.Tokyo())})
	return err
}

// RunReconcileJob is the ReconcileJobKind job: the day's run, then tomorrow's scheduled.
func (s *Transfers) RunReconcileJob(ctx context.Context, payload json.RawMessage) error {
	var j ExpiryJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return fmt.Errorf("invoices: reconcile job payload: %w", err)
	}
	day, err := time.ParseInLocation("2006-01-02", j.Date, pay.Tokyo())
	if err != nil {
		return fmt.Errorf("invoices: reconcile job date %q: %w", j.Date, err)
	}
	if _, err := s.ReconcileDay(ctx, day); err != nil {
		return err
	}
	return s.ScheduleReconcile(ctx, day.AddDate(0, 0, 1))
}

// ReconcileDay runs and keeps day's reconciliation.
func (s *Transfers) ReconcileDay(ctx context.Context, day time.Time) (Reconciliation, error) {
	r, err := s.Reconcile(ctx, day.AddDate(0, 0, -ReconcileWindow), day.AddDate(0, 0, ReconcileWindow))
	if err != nil {
		return r, err
	}
	mismatches, err := json.Marshal(r.Mismatches)
	if err != nil {
		return r, err
	}
	totals, err := json.Marshal(r.Totals)
	if err != nil {
		return r, err
	}
	if err := s.Store.SaveReconciliationRun(ctx, store.ReconciliationRun{RunDate: day, From: r.From, To: r.To, Payments: r.Payments,
		Files: r.Files, Mismatches: mismatches, Totals: totals}); err != nil {
		return r, err
	}
	if len(r.Mismatches) > 0 || !r.Totals.Agree() {
		s.logger().Error("daily reconciliation found differences", "date", day.Format("2006-01-02"), "mismatches", len(r.Mismatches),
			"psp_captured", r.Totals.PSPCaptured, "ledger_captured", r.Totals.LedgerCaptured, "files", r.Totals.FilesMade, "ledger_filed", r.Totals.LedgerFiled)
	} else {
		s.logger().Info("daily reconciliation", "date", day.Format("2006-01-02"), "payments", r.Payments, "files", r.Files)
	}
	return r, nil
}

// LastDailyReconciliation is the newest daily run, decoded; ok false before the first.
func (s *Transfers) LastDailyReconciliation(ctx context.Context) (Reconciliation, time.Time, bool, error) {
	run, err := s.Store.LastReconciliationRun(ctx)
	if errors.Is(err, store.ErrNotFound) {
		return Reconciliation{}, time.Time{}, false, nil
	}
	if err != nil {
		return Reconciliation{}, time.Time{}, false, err
	}
	r := Reconciliation{From: run.From, To: run.To, Payments: run.Payments, Files: run.Files}
	if err := json.Unmarshal(run.Mismatches, &r.Mismatches); err != nil {
		return r, run.CreatedAt, false, fmt.Errorf("invoices: reconciliation run: %w", err)
	}
	if err := json.Unmarshal(run.Totals, &r.Totals); err != nil {
		return r, run.CreatedAt, false, fmt.Errorf("invoices: reconciliation run: %w", err)
	}
	return r, run.CreatedAt, true, nil
}
