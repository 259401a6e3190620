package invoices

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/banks"
	"cardpay/calendar"
	"cardpay/pay"
	"cardpay/store"
)

// Bank transfers (振込) by the operators with the transfers role: the day's 総合振込 file
// of the screened payments, marking it sent, then each payment transferred (振込完了) or
// failed; a failed one is retried on a later bank day or cancelled (the card refunded).

// Refusals of the transfer actions.
const (
	MsgNotTransfers      = "この操作には「振込」の権限が必要です"
	MsgNotBankDay        = "銀行の営業日を選んでください（土日・祝日・12月31日〜1月3日は振込できません）"
	MsgNothingDue        = "この日に振込ファイルへ入れるお支払いはありません"
	MsgFileSentAlready   = "この振込ファイルは送信済みとして登録されています"
	MsgTransferMoved     = "このお支払いの振込は状態が変わったため、この操作はできません。画面を読み込み直してください"
	MsgTransferReason    = "振込できなかった理由を入力してください"
	MsgRetryDay          = "再振込日は、明日以降の銀行の営業日を選んでください"
	MsgTransferCancelWhy = "キャンセルの理由を入力してください"
)

func transfersRole(op store.Operator, field string) error {
	if !op.Has(pay.RoleTransfers) {
		return pay.FieldErrors{{Field: field, Message: MsgNotTransfers}}
	}
	return nil
}

// TransferFileOf builds the 総合振込 file of items for day, from remitter.
func TransferFileOf(remitter Remitter, day time.Time, items []store.TransferItem) TransferFile {
	f := TransferFile{Remitter: remitter, Date: day}
	for _, it := range items {
		t := Transfer{BankCode: it.BankCode, BranchCode: it.BranchCode, AccountType: it.AccountType,
			AccountNumber: it.AccountNumber, HolderName: it.HolderName, Amount: it.Amount, CustomerCode: fmt.Sprintf("%010d", it.ID)}
		if b, ok := banks.ByCode(it.BankCode); ok {
			t.BankKana = b.Kana
		}
		if br, ok := banks.BranchByCode(it.BankCode, it.BranchCode); ok {
			t.BranchKana = br.Kana
		}
		f.Transfers = append(f.Transfers, t)
	}
	return f
}

// MakeTransferFile makes the file of the payments due on day that are not in a file yet.
func (s *Transfers) MakeTransferFile(ctx context.Context, op store.Operator, day time.Time, remitter Remitter) (store.TransferFile, error) {
	if err := transfersRole(op, "date"); err != nil {
		return store.TransferFile{}, err
	}
	if calendar.IsBankHoliday(day) {
		return store.TransferFile{}, pay.FieldErrors{{Field: "date", Message: MsgNotBankDay}}
	}
	f, err := s.Store.MakeTransferFile(ctx, day, op.ID, s.now(), func(items []store.TransferItem) ([]byte, error) {
		return TransferFileOf(remitter, day, items).Bytes()
	}, func() { s.crash(CrashFileBeforeCommit) })
	if errors.Is(err, store.ErrNothingToTransfer) {
		return f, pay.FieldErrors{{Field: "date", Message: MsgNothingDue}}
	}
	if err == nil {
		s.crash(CrashFileAfterCommit)
	}
	return f, err
}

// MarkTransferFileSent records that the file went to the bank.
func (s *Transfers) MarkTransferFileSent(ctx context.Context, op store.Operator, fileID int64) error {
	if err := transfersRole(op, "file"); err != nil {
		return err
	}
	err := s.Store.MarkTransferFileSent(ctx, fileID, op.ID, s.now())
	if errors.Is(err, store.ErrStateChanged) {
		return pay.FieldErrors{{Field: "file", Message: MsgFileSentAlready}}
	}
	return err
}

// CompleteTransfer is 振込完了: the payment of a sent file reached the supplier.
func (s *Transfers) CompleteTransfer(ctx context.Context, op store.Operator, id int64) (store.Payment, error) {
	if err := transfersRole(op, "transfer"); err != nil {
		return store.Payment{}, err
	}
	buyerID, err := s.Store.InvoiceOwner(ctx, id)
	if err != nil {
		return store.Payment{}, err
	}
	p, err := s.Store.Transition(ctx, buyerID, id, pay.ActTransfer, ActorOf(op), "", s.now(), func(tx *sqlx.Tx, p store.Payment) error {
		if err := s.Store.SetTransferred(ctx, tx, buyerID, id, s.now()); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return store.ErrStateChanged
			}
			return err
		}
		return s.Store.AddAudit(ctx, tx, store.NewAudit{OperatorID: op.ID, ObjectType: store.AuditPayment, ObjectID: id,
			Action: string(pay.ActTransfer), Before: stateOf(p.Prior), After: stateOf(p.State())}, s.now())
	})
	if errors.Is(err, pay.ErrTransition) || errors.Is(err, store.ErrStateChanged) {
		return store.Payment{}, pay.FieldErrors{{Field: "transfer", Message: MsgTransferMoved}}
	}
	return p, err
}

func operatorText(reason, missing string) (string, error) {
	reason = strings.TrimSpace(reason)
	switch {
	case reason == "":
		return "", pay.FieldErrors{{Field: "reason", Message: missing}}
	case pay.OperatorReasonTooLong(reason) != "":
		return "", pay.FieldErrors{{Field: "reason", Message: pay.OperatorReasonTooLong(reason)}}
	}
	return reason, nil
}

// FailTransfer records that the bank returned the payment's transfer, with the reason.
func (s *Transfers) FailTransfer(ctx context.Context, op store.Operator, id int64, reason string) error {
	if err := transfersRole(op, "reason"); err != nil {
		return err
	}
	reason, err := operatorText(reason, MsgTransferReason)
	if err != nil {
		return err
	}
	err = s.Store.SetTransferFailed(ctx, id, reason, store.NewAudit{OperatorID: op.ID, ObjectType: store.AuditPayment, ObjectID: id,
		Action: "transfer_failed", Before: map[string]string{"transfer_state": "filed"}, After: map[string]string{"transfer_state": "failed"},
		Reason: reason}, s.now())
	if errors.Is(err, store.ErrStateChanged) {
		return pay.FieldErrors{{Field: "reason", Message: MsgTransferMoved}}
	}
	return err
}

// RetryTransfer puts a failed transfer into a later bank day's file.
func (s *Transfers) RetryTransfer(ctx context.Context, op store.Operator, id int64, day time.Time) error {
	if err := transfersRole(op, "retry_date"); err != nil {
		return err
	}
	today := s.now().In(pay.Tokyo())
	if calendar.IsBankHoliday(day) || !day.After(time.Date(today.Year(), today.Month(), today.Day(), 23, 59, 59, 0, pay.Tokyo())) {
		return pay.FieldErrors{{Field: "retry_date", Message: MsgRetryDay}}
	}
	err := s.Store.RetryTransfer(ctx, id, day, store.NewAudit{OperatorID: op.ID, ObjectType: store.AuditPayment, ObjectID: id,
		Action: "transfer_retry", Before: map[string]string{"transfer_state": "failed"},
		After: map[string]string{"transfer_date": day.Format("2006-01-02")}}, s.now())
	if errors.Is(err, store.ErrStateChanged) {
		return pay.FieldErrors{{Field: "retry_date", Message: MsgTransferMoved}}
	}
	return err
}

// CancelFailedTransfer gives up a payment whose transfer failed (組戻し): the payment ends
// as キャンセル with the transfer stage returned, the card's capture is refunded by the card
// job (its refund posting then empties the payable), and the buyer is told. Only a failed
// transfer can be given up: a transfer the bank has or paid cannot.
func (s *Transfers) CancelFailedTransfer(ctx context.Context, op store.Operator, id int64, reason string) (store.Payment, error) {
	if err := transfersRole(op, "reason"); err != nil {
		return store.Payment{}, err
	}
	reason, err := operatorText(reason, MsgTransferCancelWhy)
	if err != nil {
		return store.Payment{}, err
	}
	buyerID, err := s.Store.InvoiceOwner(ctx, id)
	if err != nil {
		return store.Payment{}, err
	}
	p, err := s.Store.Transition(ctx, buyerID, id, pay.ActReturn, ActorOf(op), reason, s.now(), func(tx *sqlx.Tx, p store.Payment) error {
		if _, err := s.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: CardJobKind,
			Payload: PaymentJob{BuyerID: buyerID, ID: id, Ref: p.PaymentRef}, UniqueKey: "release-" + p.PaymentRef}); err != nil {
			return err
		}
		return s.Store.AddAudit(ctx, tx, store.NewAudit{OperatorID: op.ID, ObjectType: store.AuditPayment, ObjectID: id,
			Action: string(pay.ActReturn), Before: stateOf(p.Prior), After: stateOf(p.State()), Reason: reason}, s.now())
	})
	if errors.Is(err, pay.ErrTransition) || errors.Is(err, store.ErrStateChanged) {
		return store.Payment{}, pay.FieldErrors{{Field: "reason", Message: MsgTransferMoved}}
	}
	return p, err
}
