package ops

import (
	"context"
	"fmt"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/invoicefiles"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/ops"
)

// screeningForm is what an action's form sent, shown again with its errors.
type screeningForm struct {
	Reason, Message, CancelReason string
}

// ScreeningPattern is one payment under screening.
const ScreeningPattern = "/ops/screening/:id"

// ShowScreeningPage is one payment's screening: the entry beside the file and what
// the OCR read, the evidence check, the supplier's status and the actions.
func (h *Handler) ShowScreeningPage(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	return h.renderScreening(c, id, nil, screeningForm{})
}

func (h *Handler) renderScreening(c *echo.Context, id int64, errs pay.FieldErrors, form screeningForm) error {
	ctx := c.Request().Context()
	p, err := h.Store.ScreeningPayment(ctx, id)
	if err != nil {
		return err
	}
	ev, err := h.Screening.ScreeningEvidence(ctx, p)
	if err != nil {
		return err
	}
	op := CurrentOperator(c)
	st := p.State()
	v := pages.ScreeningView{
		ID: p.ID, Number: pay.InvoiceNumber(p.ID), Buyer: p.BuyerName, Status: p.ExaminationStatus.Label(),
		ActionRequired: p.ActionRequired, SendBackReason: p.SendBackReason, CardStatus: cardStatusLabel(p.CardStatus),
		Amount: pay.Yen(p.Amount), Fee: pay.Yen(p.Fee), Total: pay.Yen(p.Total()),
		Supplier: p.SupplierName, SupplierStatus: p.SupplierStatus.Label(), SupplierApproved: p.SupplierStatus == pay.SupplierApproved,
		SupplierHref: fmt.Sprintf("%s/%d", SuppliersPage.Path, p.SupplierID),
		Reason:       form.Reason, Message: form.Message, CancelReason: form.CancelReason,
	}
	if p.SubmittedAt != nil {
		v.Submitted = dateTime(*p.SubmittedAt)
	}
	if p.AccountID != nil {
		v.Account = fmt.Sprintf("%s %s %s %s %s", p.AccountBankName, p.AccountBranchName, p.AccountType.Label(), p.AccountNumber, p.AccountHolderName)
		v.AccountApproved = p.AccountApprovedAt != nil
		switch {
		case !v.AccountApproved:
			v.AccountState = "未承認（依頼者の口座。承認するまで振込ファイルに入りません）"
		case p.AccountApprovedBy != nil:
			v.AccountState = "承認済み（担当者が承認）"
		default:
			v.AccountState = "承認済み（購入者が登録）"
		}
		v.CanApproveAccount = !v.AccountApproved && op.Has(pay.RoleScreening)
		v.AccountNew = pay.AccountIsNew(p.AccountFirstPaidAt, h.Now())
		if p.AccountFirstPaidAt != nil {
			v.AccountFirstPaid = dateTime(*p.AccountFirstPaidAt)
		}
	}
	if p.TransferDate != nil {
		v.TransferDate = pay.JapaneseDate(*p.TransferDate)
	}
	if p.DueDate != nil {
		v.DueDate = pay.JapaneseDate(*p.DueDate)
	}
	if p.CheckedByName != nil && p.ExaminationStatus == pay.InProgressExaminationChecked {
		v.CheckedBy = *p.CheckedByName
	}
	can := func(a pay.PaymentAction) bool { _, err := pay.NextPayment(st, a); return err == nil }
	screener := op.Has(pay.RoleScreening)
	v.CanCheck = screener && can(pay.ActCheck) && p.CardStatus == pay.CardAuthorized
	v.CanComplete = screener && can(pay.ActComplete)
	v.CanSendBack = screener && can(pay.ActSendBack)
	v.CanCancel = screener && can(pay.ActCancel)
	invitedPair := false
	if v.CanComplete && p.CheckedBy != nil && *p.CheckedBy != op.ID {
		invited, err := h.Store.Invitations(c.Request().Context(), h.Store.DB, *p.CheckedBy, op.ID)
		if err != nil {
			return err
		}
		invitedPair = pay.InvitedEachOther(*p.CheckedBy, op.ID, invited, h.Now())
	}
	if v.CanComplete {
		switch {
		case p.CheckedBy != nil && *p.CheckedBy == op.ID:
			v.CompleteNote = "あなたが書類を確認したため、審査の完了は別の担当者が行います。"
		case invitedPair:
			v.CompleteNote = "書類を確認した担当者とあなたの一方が30日以内にもう一方を招待しているため、審査の完了は別の担当者が行います。"
		case p.SupplierStatus != pay.SupplierApproved:
			v.CompleteNote = "取引先が承認されていないため、いまは完了できません。"
		}
	}
	for _, r := range pay.SendBackReasons {
		v.Reasons = append(v.Reasons, views.FieldOption{Value: string(r), Label: r.Label()})
	}
	if ev.File != nil {
		v.FileHref = fmt.Sprintf("%s/%d/file", QueuePage.Path, p.ID)
		v.PreviewHref, v.PreviewWidth, v.PreviewHeight = fmt.Sprintf("%s/%d/preview", QueuePage.Path, p.ID), invoicefiles.PreviewWidth, invoicefiles.PreviewSide
		v.FileName = web.FileName(ev.File.OriginalName)
		v.OCRStatus = ocrStatusLabel(ev.File.OCRStatus)
	}
	for _, r := range ev.Compare(p) {
		v.Compare = append(v.Compare, pages.CompareRow{Label: r.Label, Entered: r.Entered, Read: r.Read, Differs: r.Differs})
	}
	for _, w := range ev.Warnings {
		v.Warnings = append(v.Warnings, w.Message)
	}
	v.Timeline, err = h.timeline(ctx, p)
	if err != nil {
		return err
	}
	v.Ledger, err = h.paymentLedger(ctx, p)
	if err != nil {
		return err
	}
	return show(h, c, v.Number+"の審査", errs, v, pages.ScreeningPage)
}

func ocrStatusLabel(s string) string {
	switch s {
	case store.OCRDone:
		return "済み"
	case store.OCRPending, store.OCRRunning:
		return "読み取り中"
	case store.OCRFailed:
		return "読み取れませんでした"
	}
	return "読み取りなし"
}

func cardStatusLabel(s pay.CardStatus) string {
	switch s {
	case pay.CardAuthorized:
		return "与信済み（未確定）"
	case pay.CardCaptured:
		return "売上確定"
	case pay.CardVoided:
		return "与信取消"
	case pay.CardRefunded:
		return "返金済み"
	}
	return string(s)
}

// timeline is the payment's events with who did each.
func (h *Handler) timeline(ctx context.Context, p store.ScreeningItem) ([]pages.TimelineItem, error) {
	events, err := h.Store.OperatorPaymentEvents(ctx, p.BuyerID, p.ID)
	if err != nil {
		return nil, err
	}
	ops, err := h.Store.Operators(ctx)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	for _, o := range ops {
		names["operator:"+strconv.FormatInt(o.ID, 10)] = o.Name
	}
	out := make([]pages.TimelineItem, len(events))
	for i, e := range events {
		out[i] = pages.TimelineItem{Label: e.Action.Label(), At: dateTime(e.CreatedAt), Actor: actorName(e.Actor, names), Reason: e.Reason}
	}
	return out, nil
}
