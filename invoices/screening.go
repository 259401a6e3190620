package invoices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"cardpay/gateway"
	"cardpay/invoiceread"
	"cardpay/pay"
	"cardpay/store"
)

// Screening (審査) by the operators: each action is a change of the payment's state
// machine (pay.NextPayment) with its event row, the buyer's notification and the
// operator's audit row, all in one transaction. Completing captures the card by a job
// enqueued in that transaction.

// Refusals of the screening actions, shown next to the action's button.
const (
	MsgNotScreener       = pay.MsgNotScreener
	MsgSameOperator      = "書類を確認した担当者とは別の担当者が審査を完了してください（二人による確認）"
	MsgSupplierNotReady  = "取引先が承認されていないため、審査を完了できません。先に取引先を承認してください"
	MsgScreeningMoved    = "このお支払いは状態が変わったため、この操作はできません。画面を読み込み直して、いまの状態を確かめてください"
	MsgNothingToScreen   = "このお支払いは審査の対象ではありません"
	MsgCaptureLapsedNote = "審査完了時にカードの与信が有効でなかったため、期限切れになりました"

	// MsgInvitedPair: one of the two invited the other within pay.InviterWindow, which
	// dual control counts as one person.
	MsgInvitedPair = "書類を確認した担当者とあなたの一方が、30日以内にもう一方を招待（提案または承認）しているため、審査を完了できません。別の担当者が完了してください（二人による確認）"
)

// ActorOf is how an operator appears in a payment's events ("operator:12").
func ActorOf(op store.Operator) string { return fmt.Sprintf("operator:%d", op.ID) }

// stateJSON is a payment's state as an audit row keeps it.
type stateJSON struct {
	Status         pay.ExaminationStatus `json:"examination_status"`
	StatusLabel    string                `json:"status_label"`
	ActionRequired bool                  `json:"action_required"`
}

func stateOf(st pay.PaymentState) stateJSON {
	return stateJSON{Status: st.Status, StatusLabel: st.Status.Label(), ActionRequired: st.ActionRequired}
}

// screen runs action a on payment id for operator op: the change, its event, its
// notification (store.Transition), then check (refusals inside the transaction) and the
// audit row.
func (s *Screening) screen(ctx context.Context, op store.Operator, id int64, a pay.PaymentAction, reason string,
	check func(tx *sqlx.Tx, p store.Payment) error) (store.Payment, error) {
	if !op.Has(pay.RoleScreening) {
		return store.Payment{}, pay.FieldErrors{{Field: string(a), Message: MsgNotScreener}}
	}
	buyerID, err := s.Store.InvoiceOwner(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Payment{}, pay.FieldErrors{{Field: string(a), Message: MsgNothingToScreen}}
	}
	if err != nil {
		return store.Payment{}, err
	}
	audit := func(tx *sqlx.Tx, p store.Payment) error {
		if check != nil {
			if err := check(tx, p); err != nil {
				return err
			}
		}
		return s.Store.AddAudit(ctx, tx, store.NewAudit{OperatorID: op.ID, ObjectType: store.AuditPayment, ObjectID: id,
			Action: string(a), Before: stateOf(p.Prior), After: stateOf(p.State()), Reason: reason}, s.now())
	}
	var p store.Payment
	if a == pay.ActCancel {
		p, err = s.payments.cancel(ctx, buyerID, ActorOf(op), id, reason, audit)
	} else {
		p, err = s.Store.Transition(ctx, buyerID, id, a, ActorOf(op), reason, s.now(), audit)
	}
	switch {
	case errors.Is(err, pay.ErrTransition), errors.Is(err, store.ErrStateChanged):
		return store.Payment{}, pay.FieldErrors{{Field: string(a), Message: MsgScreeningMoved}}
	case errors.Is(err, store.ErrNotFound):
		return store.Payment{}, pay.FieldErrors{{Field: string(a), Message: MsgNothingToScreen}}
	}
	return p, err
}

// CheckPayment is 確認済: op checked the documents. The operator is remembered so that
// another one completes the screening.
func (s *Screening) CheckPayment(ctx context.Context, op store.Operator, id int64) (store.Payment, error) {
	return s.screen(ctx, op, id, pay.ActCheck, "", func(tx *sqlx.Tx, p store.Payment) error {
		if p.CardStatus != pay.CardAuthorized {
			return pay.FieldErrors{{Field: string(pay.ActCheck), Message: MsgNothingToScreen}}
		}
		return s.Store.SetCheckedBy(ctx, tx, p.BuyerID, p.ID, op.ID, "")
	})
}

// CompleteScreening is 審査完了: refused while the supplier is not approved, and when op
// is the operator who checked the payment (dual control). The card's authorisation is
// captured by a job enqueued with the change.
func (s *Screening) CompleteScreening(ctx context.Context, op store.Operator, id int64) (store.Payment, error) {
	return s.screen(ctx, op, id, pay.ActComplete, "", func(tx *sqlx.Tx, p store.Payment) error {
		by, err := s.Store.CheckedBy(ctx, tx, p.BuyerID, p.ID)
		if err != nil {
			return err
		}
		if by == op.ID {
			return pay.FieldErrors{{Field: string(pay.ActComplete), Message: MsgSameOperator}}
		}
		invited, err := s.Store.Invitations(ctx, tx, by, op.ID)
		if err != nil {
			return err
		}
		if pay.InvitedEachOther(by, op.ID, invited, s.now()) {
			return pay.FieldErrors{{Field: string(pay.ActComplete), Message: MsgInvitedPair}}
		}
		st, err := s.Store.SupplierStatusOf(ctx, tx, p.BuyerID, p.SupplierID)
		if err != nil {
			return err
		}
		if st != pay.SupplierApproved {
			return pay.FieldErrors{{Field: string(pay.ActComplete), Message: MsgSupplierNotReady}}
		}
		// One capture job per completion: a payment sent back and completed again under the
		// same authorisation (its first job found it no longer complete and ended) gets a
		// new one. A unique key of the reference alone would have kept the first, and the
		// payment would never be captured.
		_, err = s.Store.EnqueueJob(ctx, tx, store.NewJob{Kind: CaptureJobKind,
			Payload:   PaymentJob{BuyerID: p.BuyerID, ID: p.ID, Ref: p.PaymentRef},
			UniqueKey: fmt.Sprintf("capture-%s-event-%d", p.PaymentRef, p.EventID)})
		return err
	})
}

// SendBack is 差し戻し: the buyer is asked to correct the payment, for reason (one of
// pay.SendBackReasons) and the operator's message; the payment is action-required until
// the buyer resubmits it, and must be checked again.
func (s *Screening) SendBack(ctx context.Context, op store.Operator, id int64, reason pay.SendBackReason, message string) (store.Payment, error) {
	text, errs := pay.SendBackText(reason, message)
	if len(errs) > 0 {
		return store.Payment{}, errs
	}
	return s.screen(ctx, op, id, pay.ActSendBack, text, func(tx *sqlx.Tx, p store.Payment) error {
		return s.Store.SetCheckedBy(ctx, tx, p.BuyerID, p.ID, 0, string(reason))
	})
}

// CancelByOperator is キャンセル by screening, with its reason: the authorisation is
// voided (or the capture refunded) by the card job, as when the buyer cancels.
func (s *Screening) CancelByOperator(ctx context.Context, op store.Operator, id int64, reason string) (store.Payment, error) {
	text, errs := pay.CancelText(reason)
	if len(errs) > 0 {
		return store.Payment{}, errs
	}
	return s.screen(ctx, op, id, pay.ActCancel, text, nil)
}

// CaptureJobKind captures the card's authorisation of a payment whose screening
// completed (RunCaptureJob).
const CaptureJobKind = "payment_capture"

// RunCaptureJob is the CaptureJobKind job: it captures the whole authorised amount
// (invoice and fee) of a payment whose screening completed, under the payment's id, so
// asking twice captures once. An authorisation that is no longer there (voided, lapsed)
// expires the payment instead.
func (s *Screening) RunCaptureJob(ctx context.Context, payload json.RawMessage) error {
	var j PaymentJob
	if err := json.Unmarshal(payload, &j); err != nil {
		return fmt.Errorf("invoices: capture job payload: %w", err)
	}
	p, err := s.Store.Submission(ctx, j.BuyerID, j.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if p.PaymentRef != j.Ref || p.CardStatus == pay.CardCaptured {
		// Corrected to a new authorisation (the correction's card job releases this one),
		// or captured by an earlier run.
		return nil
	}
	if p.ExaminationStatus != pay.InProgressExaminationCompleted {
		if p.CardStatus == pay.CardAuthorized {
			return s.recordLostCapture(ctx, j)
		}
		return nil // released: the card job did the rest
	}
	tx, err := s.Gateway.Lookup(ctx, j.Ref)
	if err != nil && !errors.Is(err, gateway.ErrNotFound) {
		return fmt.Errorf("invoices: capture %s: %w", j.Ref, err)
	}
	switch {
	case err == nil && tx.Status == gateway.StatusAuthorized:
		s.crash(CrashCaptureBeforePSP)
		tx, err = s.Gateway.Capture(ctx, j.Ref, p.AuthorizedAmount)
		if err != nil {
			return fmt.Errorf("invoices: capture %s: %w", j.Ref, err)
		}
		s.crash(CrashCaptureAfterPSP)
	case err == nil && (tx.Status == gateway.StatusCaptured || tx.Status == gateway.StatusPartiallyRefunded):
		// captured by an earlier run that died before recording it
	default:
		// Nothing to capture: the payment cannot be paid, and the buyer is told.
		_, err := s.Store.Transition(ctx, j.BuyerID, j.ID, pay.ActExpire, "system", MsgCaptureLapsedNote, s.now(), func(q *sqlx.Tx, _ store.Payment) error {
			return s.Store.SetPaymentCard(ctx, q, j.BuyerID, j.ID, j.Ref, pay.CardVoided, "", s.now())
		})
		if errors.Is(err, pay.ErrTransition) || errors.Is(err, store.ErrStateChanged) {
			return nil
		}
		return err
	}
	err = s.Store.SetPaymentCard(ctx, nil, j.BuyerID, j.ID, j.Ref, pay.CardCaptured, string(resultOr(tx.ResultCode, gateway.ResultApproved)), s.now())
	if errors.Is(err, pay.ErrCardTransition) || errors.Is(err, store.ErrStateChanged) {
		// Cancelled and refunded while the capture was under way: a capture answered after
		// the refund never turns the payment back into a charge. Or sent back and
		// corrected to a new authorisation meanwhile: the correction's job releases
		// (refunds) this one, and the new one is captured when screening completes again.
		return nil
	}
	return err
}

// recordLostCapture is the capture job of a payment that left 審査完了 under the same
// authorisation (sent back and corrected, cancelled or expired) before the job ran
// again: nothing is to be captured now, but an earlier run may have captured with its
// answer lost (a timeout), and the retry that would have recorded it finds the payment
// elsewhere. The card at the PSP is then charged while the books say authorised. The
// PSP's word is recorded: a payment completed again is not captured twice, and the card
// job of a cancelled one refunds the capture, posting both.
func (s *Screening) recordLostCapture(ctx context.Context, j PaymentJob) error {
	tx, err := s.Gateway.Lookup(ctx, j.Ref)
	if errors.Is(err, gateway.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("invoices: capture %s: %w", j.Ref, err)
	}
	if tx.Status != gateway.StatusCaptured && tx.Status != gateway.StatusPartiallyRefunded {
		return nil
	}
	err = s.Store.SetPaymentCard(ctx, nil, j.BuyerID, j.ID, j.Ref, pay.CardCaptured, string(resultOr(tx.ResultCode, gateway.ResultApproved)), s.now())
	if errors.Is(err, pay.ErrCardTransition) || errors.Is(err, store.ErrStateChanged) {
		return nil // released or corrected since it was read: that change's job has the money
	}
	return err
}

// Refusals of a supplier's review.
const (
	MsgReviewReason = "承認しない理由、または確認が必要な理由を入力してください"
	MsgReviewMoved  = "この取引先は、ほかの担当者がすでに確認しました。画面を読み込み直してください"
	MsgReviewTarget = "選んだ結果には変更できません"
)

// ReviewSupplier is an operator's review of a supplier: approve (承認済), escalate
// (確認中, with a reason) or reject (否認, with a reason). An unapproved or escalated
// supplier can be reviewed; the buyer is notified and the audit row written with it.
func (s *Screening) ReviewSupplier(ctx context.Context, op store.Operator, id int64, to pay.SupplierStatus, reason string) error {
	if !op.Has(pay.RoleScreening) {
		return pay.FieldErrors{{Field: "status", Message: MsgNotScreener}}
	}
	reason = strings.TrimSpace(reason)
	var errs pay.FieldErrors
	switch to {
	case pay.SupplierApproved:
	case pay.SupplierEscalation, pay.SupplierRejected:
		if reason == "" {
			errs.Add("reason", MsgReviewReason)
		}
	default:
		errs.Add("status", MsgReviewTarget)
	}
	errs.Add("reason", pay.OperatorReasonTooLong(reason))
	if len(errs) > 0 {
		return errs
	}
	cur, err := s.Store.SupplierReview(ctx, id)
	if err != nil {
		return err
	}
	if cur.Status != pay.SupplierUnapproved && cur.Status != pay.SupplierEscalation || cur.Status == to {
		return pay.FieldErrors{{Field: "status", Message: MsgReviewMoved}}
	}
	type state struct {
		Status pay.SupplierStatus `json:"status"`
		Label  string             `json:"status_label"`
	}
	now := s.now()
	err = s.Store.ReviewSupplier(ctx, id, cur.Status, to, reason, store.NewAudit{OperatorID: op.ID, ObjectType: store.AuditSupplier,
		ObjectID: id, Action: "review", Before: state{cur.Status, cur.Status.Label()}, After: state{to, to.Label()}, Reason: reason}, now,
		func(tx *sqlx.Tx, buyerID int64, name string, auditID int64) error {
			title, body := pay.SupplierNotice(name, to, reason)
			return s.notices.notify(ctx, tx, buyerID, store.NewNotification{EventKey: fmt.Sprintf("supplier-review-%d", auditID),
				Title: title, Body: body, Link: pay.SupplierLink(id)}, now)
		})
	if errors.Is(err, store.ErrStateChanged) {
		return pay.FieldErrors{{Field: "status", Message: MsgReviewMoved}}
	}
	return err
}

// Evidence is what the screening page shows beside the buyer's entry: the bank account
// paid, the invoice file, what the OCR read from it, and the evidence check's warnings.
type Evidence struct {
	Account  store.SupplierAccount
	File     *store.InvoiceFile
	Read     *invoiceread.Fields
	Warnings []invoiceread.Warning
}

// ScreeningEvidence gathers the evidence of payment p for its screening page.
func (s *Screening) ScreeningEvidence(ctx context.Context, p store.ScreeningItem) (Evidence, error) {
	var ev Evidence
	var acct store.SupplierAccount
	if p.AccountID != nil {
		a, err := s.Store.SupplierAccount(ctx, p.BuyerID, p.SupplierID, *p.AccountID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return ev, err
		}
		acct = a
	}
	ev.Account = acct
	owner, fileID := p.EvidenceFile()
	if fileID == nil {
		return ev, nil
	}
	f, err := s.Store.InvoiceFile(ctx, owner, *fileID)
	if errors.Is(err, store.ErrNotFound) {
		return ev, nil
	}
	if err != nil {
		return ev, err
	}
	ev.File = &f
	var read invoiceread.Fields
	if f.OCRStatus == store.OCRDone && len(f.OCRFields) > 0 && json.Unmarshal(f.OCRFields, &read) == nil {
		ev.Read = &read
		sup := store.Supplier{Name: p.SupplierName}
		ev.Warnings = evidence(f, Checked{Invoice: pay.CheckedInvoice{Amount: p.Amount}, Supplier: sup,
			Account: store.AccountFields{BankCode: acct.BankCode, BankName: acct.BankName, BranchCode: acct.BranchCode,
				BranchName: acct.BranchName, AccountType: acct.AccountType, AccountNumber: acct.AccountNumber, HolderName: acct.HolderName}},
			buyerNames(ctx, s.Store, p.BuyerID))
	}
	return ev, nil
}

// CompareRow is one field of a payment as entered beside what the OCR read, and
// whether the evidence check found them apart.
type CompareRow struct {
	Label, Entered, Read string
	Differs              bool
}

// Compare lines up payment p's entry with the reading, field by field.
func (ev Evidence) Compare(p store.ScreeningItem) []CompareRow {
	differs := map[string]bool{}
	for _, w := range ev.Warnings {
		differs[w.Field] = true
	}
	var r invoiceread.Fields
	if ev.Read != nil {
		r = *ev.Read
	}
	str := func(f invoiceread.Field[string]) string {
		if !f.Found {
			return ""
		}
		return f.Value
	}
	a := ev.Account
	return []CompareRow{
		{Label: "請求金額", Entered: pay.Yen(p.Amount), Read: yenIf(r.Total), Differs: differs["amount"]},
		{Label: "支払先（発行者）", Entered: p.SupplierName, Read: str(r.IssuerName), Differs: differs["payee"]},
		{Label: "銀行", Entered: codeName(a.BankCode, a.BankName), Read: str(r.BankName), Differs: differs["bank"]},
		{Label: "支店", Entered: codeName(a.BranchCode, a.BranchName), Read: str(r.BranchName), Differs: differs["branch"]},
		{Label: "預金種目", Entered: accountType(a.AccountType), Read: accountTypeIf(r.AccountType), Differs: differs["account_type"]},
		{Label: "口座番号", Entered: a.AccountNumber, Read: str(r.AccountNumber), Differs: differs["account_number"]},
		{Label: "口座名義", Entered: a.HolderName, Read: str(r.AccountHolder), Differs: differs["account_holder"]},
		{Label: "宛名", Entered: p.BuyerName, Read: str(r.Addressee), Differs: differs["addressee"]},
		{Label: "請求書番号", Entered: p.InvoiceNumber},
		{Label: "登録番号", Entered: p.RegistrationNumber, Read: str(r.RegistrationNumber)},
		{Label: "支払期日", Entered: dateIf(p.DueDate), Read: str(r.DueDate)},
	}
}

func yenIf(f invoiceread.Field[int64]) string {
	if !f.Found {
		return ""
	}
	return pay.Yen(f.Value)
}

func accountType(t pay.AccountType) string {
	if t == 0 {
		return ""
	}
	return t.Label()
}

func accountTypeIf(f invoiceread.Field[pay.AccountType]) string {
	if !f.Found {
		return ""
	}
	return f.Value.Label()
}

func codeName(code, name string) string {
	if code == "" {
		return ""
	}
	return name + "（" + code + "）"
}

func dateIf(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.Format("2006-01-02")
}

// Messages of the account approval.
const (
	MsgAccountApproved = "この振込先口座はすでに承認されています"
	MsgNoAccount       = "このお支払いには振込先口座がありません"
)

// ApproveAccount is an operator's approval of the bank account payment id goes to, when
// that account came with a card-payment request and waits for one: only then do
// transfer files take payments to it (store.MakeTransferFile). Refusals are on
// "approve_account".
func (s *Screening) ApproveAccount(ctx context.Context, op store.Operator, id int64) error {
	if !op.Has(pay.RoleScreening) {
		return pay.FieldErrors{{Field: "approve_account", Message: MsgNotScreener}}
	}
	p, err := s.Store.ScreeningPayment(ctx, id)
	if err != nil {
		return err
	}
	if p.AccountID == nil {
		return pay.FieldErrors{{Field: "approve_account", Message: MsgNoAccount}}
	}
	if p.AccountApprovedAt != nil {
		return pay.FieldErrors{{Field: "approve_account", Message: MsgAccountApproved}}
	}
	type state struct {
		Approved bool   `json:"approved"`
		Payment  int64  `json:"payment_id"`
		Bank     string `json:"bank"`
		Number   string `json:"account_number"`
		Holder   string `json:"holder_name"`
	}
	bank := p.AccountBankName + " " + p.AccountBranchName
	err = s.Store.ApproveSupplierAccount(ctx, *p.AccountID, store.NewAudit{OperatorID: op.ID, Action: "approve_account",
		Before: state{false, id, bank, p.AccountNumber, p.AccountHolderName},
		After:  state{true, id, bank, p.AccountNumber, p.AccountHolderName}}, s.now())
	if errors.Is(err, store.ErrStateChanged) {
		return pay.FieldErrors{{Field: "approve_account", Message: MsgAccountApproved}}
	}
	return err
}
