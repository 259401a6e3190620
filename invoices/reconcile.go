package invoices

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"cardpay/gateway"
	"cardpay/pay"
)

// The reconciliation: for a range of transfer dates, each payment against the PSP's
// record of it and against the transfer files, and each file against its payments.
// Every difference is listed; nothing is changed.

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
)

// Reconciliation is the result for a range.
type Reconciliation struct {
	From, To   time.Time
	Payments   int
	Files      int
	Mismatches []Mismatch
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
func (s *Service) Reconcile(ctx context.Context, from, to time.Time) (Reconciliation, error) {
	r := Reconciliation{From: from, To: to}
	list, err := s.Store.PaymentsBetween(ctx, from, to)
	if err != nil {
		return r, err
	}
	r.Payments = len(list)
	add := func(m Mismatch) { r.Mismatches = append(r.Mismatches, m) }
	for _, p := range list {
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
	files, err := s.Store.TransferFilesBetween(ctx, from, to)
	if err != nil {
		return r, err
	}
	r.Files = len(files)
	for _, f := range files {
		_, b, err := s.Store.TransferFileContent(ctx, f.ID)
		if err != nil {
			return r, err
		}
		records, err := pay.ReadTransferFile(b)
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
			case f.SentAt == nil && inThisFile:
				// not sent yet
			case f.SentAt != nil && inThisFile && p.TransferState == "filed":
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
