package payments

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/receipts"
	"cardpay/store"
	pages "cardpay/views/payments"
)

// ShowPaymentPage is one payment, under any of the lists (/payments/review/:id, …): its
// timeline, amounts, card, supplier and account, transfer date, invoice file, the reason
// it was sent back, and what the buyer can still do. Another buyer's payment is 404.
func (h *Handler) ShowPaymentPage(l List) echo.HandlerFunc {
	return func(c *echo.Context) error {
		u := web.CurrentUser(c)
		ctx := c.Request().Context()
		id, err := web.IDParam(c, "id")
		if err != nil {
			return err
		}
		p, err := h.Store.Payment(ctx, u.BuyerID, id)
		if err != nil {
			return err
		}
		if to := l.elsewhere(c, p); to != "" {
			return c.Redirect(http.StatusSeeOther, to)
		}
		events, err := h.Store.PaymentEvents(ctx, u.BuyerID, id)
		if err != nil {
			return err
		}
		v := pages.PaymentView{
			ListHref: l.Path, ListLabel: l.Title, Number: pay.InvoiceNumber(p.ID), Supplier: p.SupplierName,
			Status: p.ExaminationStatus.Label(), ActionRequired: p.ActionRequired, SendBackReason: p.SendBackReason,
			Amount: pay.Yen(p.Amount), Fee: pay.Yen(p.Fee), Total: pay.Yen(p.Total()),
			FeeRate: pay.FeeRateLabel(p.FeeBasisPoints), InvoiceNumber: p.InvoiceNumber, Memo: p.Memo,
			RegistrationNumber: p.RegistrationNumber, CardStatus: cardStatusLabel(p.CardStatus),
			CanCancel: pay.BuyerCanCancel(p.State()), CancelHref: l.CancelPath(p.ID),
			CanResubmit: pay.BuyerCanResubmit(p.State()), ResubmitHref: editPath(p.ID, "invoiceinfo"),
		}
		if p.ExaminationStatus == pay.InProgressExaminationCompleted {
			// On its way to the supplier: say why there is no cancel link.
			v.CancelNote = invoices.CancelRefusal(p)
		}
		if p.PromotionCode != "" {
			v.Promotion = p.PromotionCode
		}
		if p.InvoiceType == pay.InvoiceRequestBuyer && pay.RequestOpen(p.ExaminationStatus) {
			v.PayHref = requestPayPath(p.ID)
			v.Next = "カードでお支払いいただくと、審査のうえ、" + p.SupplierName + "へお振り込みします。"
		}
		if p.TransferDate != nil {
			v.TransferDate = pay.JapaneseDate(*p.TransferDate)
		}
		if p.DueDate != nil {
			v.DueDate = pay.JapaneseDate(*p.DueDate)
		}
		if p.InvoiceDate != nil {
			v.InvoiceDate = pay.JapaneseDate(*p.InvoiceDate)
		}
		if p.AccountID != nil {
			a, err := h.Store.SupplierAccount(ctx, u.BuyerID, p.SupplierID, *p.AccountID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			if err == nil {
				v.Account = a.BankName + "　" + a.BranchName + "　" + a.AccountType.Label() + "　" + a.AccountNumber + "　" + a.HolderName
			}
		}
		if p.CardID != nil {
			card, err := h.Store.CardAny(ctx, u.BuyerID, *p.CardID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			if err == nil {
				v.Card = string(card.Brand) + " •••• " + card.Last4
			}
		}
		if p.FileID != nil {
			v.FileHref, _ = h.InvoiceFiles.DownloadURL(u.BuyerID, *p.FileID)
		}
		if p.ExaminationStatus == pay.TransferCompleted {
			v.StatementHref = ReceiptPath + idString(p.ID) + "/" + receipts.StatementKind
			v.FeeInvoiceHref = ReceiptPath + idString(p.ID) + "/" + receipts.FeeInvoiceKind
		}
		for _, e := range events {
			v.Timeline = append(v.Timeline, pages.TimelineItem{Label: eventLabel(e), At: pay.JapaneseDateTime(e.CreatedAt), Reason: e.Reason})
		}
		if p.ExaminationStatus == pay.InProgress || p.ExaminationStatus == pay.InProgressExaminationChecked {
			if p.TransferDate != nil {
				v.Next = "審査が完了すると、カードのご利用が確定し、" + pay.JapaneseDate(*p.TransferDate) + "に取引先へ振り込みます。"
			}
		}
		return web.Show(h.App, c, pay.InvoiceNumber(p.ID)+"のお支払い", nil, v, pages.PaymentPage)
	}
}

func eventLabel(e store.PaymentEvent) string {
	switch e.Action {
	case pay.ActSubmit:
		return "支払申請（カードの与信が完了）"
	case pay.ActCancel:
		if strings.HasPrefix(e.Actor, "buyer:") {
			return "キャンセル（お客様による）"
		}
	}
	return e.Action.Label()
}

func cardStatusLabel(s pay.CardStatus) string {
	switch s {
	case pay.CardAuthorized:
		return "与信済み（ご利用枠を確保しています）"
	case pay.CardCaptured:
		return "売上確定"
	case pay.CardVoided:
		return "与信取消済み"
	case pay.CardRefunded:
		return "返金済み"
	case pay.CardNone:
		return "未払い"
	}
	return "確認中"
}

// ShowCancelPage asks whether to cancel (はい / いいえ, SPEC.md §8).
func (h *Handler) ShowCancelPage(l List) echo.HandlerFunc {
	return func(c *echo.Context) error {
		p, err := h.payment(c)
		if err != nil {
			return err
		}
		if to := l.elsewhere(c, p); to != "" {
			return c.Redirect(http.StatusSeeOther, to)
		}
		back := l.ItemPath(p.ID)
		if !pay.BuyerCanCancel(p.State()) {
			return c.Redirect(http.StatusSeeOther, back)
		}
		v := pages.CancelView{Number: pay.InvoiceNumber(p.ID), Supplier: p.SupplierName, Total: pay.Yen(p.Total()),
			Action: back + "/cancel", BackHref: back, Captured: p.CardStatus == pay.CardCaptured}
		return web.Show(h.App, c, pay.InvoiceNumber(p.ID)+"のキャンセル", nil, v, pages.CancelPage)
	}
}

// CancelPayment cancels the payment; the card is released by a background job.
func (h *Handler) CancelPayment(l List) echo.HandlerFunc {
	return func(c *echo.Context) error {
		p, err := h.payment(c)
		if err != nil {
			return err
		}
		u := web.CurrentUser(c)
		_, err = h.Payments.Cancel(c.Request().Context(), u.BuyerID, "buyer:"+idString(u.ID), p.ID, "")
		var fe pay.FieldErrors
		switch {
		case errors.As(err, &fe):
			h.SetFlash(c, flashError("キャンセルできませんでした", fe[0].Message))
			return c.Redirect(http.StatusSeeOther, listOf(p, l).ItemPath(p.ID))
		case err != nil:
			return err
		}
		text := "カードの与信を取り消します。ご利用明細に表示されることはありません。"
		if p.CardStatus == pay.CardCaptured {
			text = "カードのご利用分は返金します。返金の時期はカード会社により異なります。"
		}
		h.SetFlash(c, flashSuccess(pay.InvoiceNumber(p.ID)+"のお支払いをキャンセルしました", text))
		return c.Redirect(http.StatusSeeOther, paymentPath(historyListPath, p.ID))
	}
}

// listOf is the list payment p is in now (its bucket's: 要対応 is on the 審査中 page),
// or def when it is in none of them.
func listOf(p store.Payment, def List) List {
	b, ok := pay.PaymentBucketOf(p.ExaminationStatus, p.InvoiceType, p.ActionRequired)
	if b == pay.BucketReview || b == pay.BucketActionRequired {
		b = pay.BucketReviewAll
	}
	for _, l := range Lists {
		if ok && l.Bucket == b {
			return l
		}
	}
	return def
}

// elsewhere is where a page of payment p opened under list l belongs when p is in
// another list now (the same page under that list's path), "" when it is in l. A
// payment moves from list to list as it goes on, so an old link or bookmark is
// redirected with 303, not 301: the next move would make a remembered answer wrong.
func (l List) elsewhere(c *echo.Context, p store.Payment) string {
	own := listOf(p, l)
	if own.Path == l.Path {
		return ""
	}
	return strings.Replace(c.Request().URL.Path, l.Path, own.Path, 1)
}

func (h *Handler) payment(c *echo.Context) (store.Payment, error) {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return store.Payment{}, err
	}
	return h.Store.Payment(c.Request().Context(), web.CurrentUser(c).BuyerID, id)
}
