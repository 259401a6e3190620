package payments

import (
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/invoices"
	"cardpay/oauth"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/payments"
)

const confirmTitle = "支払申請：内容の確認"

// ShowConfirmPage is the check-answers page: every answer with its 変更 link, the fee
// (with a promotion code), the evidence check against the uploaded invoice, the card and
// the deadline plan.
func (h *Handler) ShowConfirmPage(c *echo.Context) error {
	j, missing := h.load(c, ConfirmPath)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	// Back from adding a card (?card=): the new card is the one to pay with.
	if id, err := strconv.ParseInt(c.QueryParam("card"), 10, 64); err == nil && id > 0 {
		if card, err := h.Cards.Card(c.Request().Context(), web.CurrentUser(c).BuyerID, id); err == nil && !card.Expired {
			j.CardID = card.ID
			if err := h.save(c, j); err != nil {
				return err
			}
		}
	}
	if j.SubmitKey == "" || j.CardID == 0 {
		if j.SubmitKey == "" {
			j.SubmitKey = newSubmitKey()
		}
		if j.CardID == 0 {
			j.CardID = h.defaultCardID(c)
		}
		if err := h.save(c, j); err != nil {
			return err
		}
	}
	return h.renderConfirm(c, j, nil)
}

func (h *Handler) defaultCardID(c *echo.Context) int64 {
	list, err := h.Cards.Cards(c.Request().Context(), web.CurrentUser(c).BuyerID)
	if err != nil {
		return 0
	}
	for _, card := range list {
		if card.IsDefault && !card.Expired {
			return card.ID
		}
	}
	for _, card := range list {
		if !card.Expired {
			return card.ID
		}
	}
	return 0
}

func (h *Handler) renderConfirm(c *echo.Context, j journey, errs pay.FieldErrors) error {
	u := web.CurrentUser(c)
	ctx := c.Request().Context()
	chk, err := h.Payments.Check(ctx, u.BuyerID, j.submission(u.ID))
	var fe pay.FieldErrors
	if err != nil && !errors.As(err, &fe) {
		return err
	}
	v := pages.ConfirmView{Steps: journeySteps(3), Action: ConfirmPath, SubmitKey: j.SubmitKey,
		PromotionCode: j.PromotionCode, CardID: idString(j.CardID), AddCardHref: links.AddCreditCard + "?return=" + ConfirmPath}
	// The supplier and its account.
	supHref, acctHref := InvoiceInfoPath, AccountStepPath
	if j.IsNewSupplier {
		v.NewSupplier = true
		for _, f := range j.NewSupplier.Fields() {
			v.Supplier = append(v.Supplier, views.ConfirmRow{Label: f.Label, Value: f.Value, ChangeHref: NewSupplierPath})
		}
	} else {
		v.Supplier = append(v.Supplier, views.ConfirmRow{Label: "取引先", Value: chk.Supplier.Name, ChangeHref: supHref})
	}
	if j.IsNewAccount || j.IsNewSupplier {
		acctHref = NewAccountPath
		v.NewAccount = true
	}
	a := chk.Account
	if a.BankCode != "" {
		v.Account = []views.ConfirmRow{
			{Label: "金融機関", Value: a.BankName + "（" + a.BankCode + "）", ChangeHref: acctHref},
			{Label: "支店", Value: a.BranchName + "（" + a.BranchCode + "）", ChangeHref: acctHref},
			{Label: "口座種別", Value: a.AccountType.Label(), ChangeHref: acctHref},
			{Label: "口座番号", Value: a.AccountNumber, ChangeHref: acctHref},
			{Label: "口座名義", Value: a.HolderName, ChangeHref: acctHref},
		}
	}
	if !chk.Invoice.DueDate.IsZero() {
		for _, f := range chk.Invoice.Fields() {
			v.Invoice = append(v.Invoice, views.ConfirmRow{Label: f.Label, Value: f.Value, ChangeHref: InvoiceStepPath + "#" + f.Field})
		}
		plan := pay.PlanFor(chk.Invoice.TransferDate, chk.Card.Cycle())
		v.Plan = &plan
		if chk.Card.ID != 0 {
			if cy := chk.Card.Cycle(); cy != nil {
				v.CycleLabel = cy.Label()
			}
		}
	}
	cm := chk.Commission
	v.Amount, v.Fee, v.Total, v.Discount = pay.Yen(cm.Amount), pay.Yen(cm.Fee), pay.Yen(cm.Total), ""
	v.FeeRate = pay.FeeRateLabel(cm.FeeBasisPoints)
	if chk.Promotion != nil {
		v.Discount = pay.Yen(cm.Discount)
		v.PromotionApplied = chk.Promotion.Code
	}
	for _, w := range chk.Warnings {
		v.Warnings = append(v.Warnings, pages.EvidenceWarning{Field: w.Field, Message: w.Message, Acknowledged: slices.Contains(j.Acknowledged, w.Field)})
	}
	for _, w := range chk.Invoice.Warnings {
		v.Notes = append(v.Notes, w.Message)
	}
	cards, err := h.Cards.Cards(ctx, u.BuyerID)
	if err != nil {
		return err
	}
	v.Cards = cardOptions(cards)
	if j.FileID != 0 {
		v.FileHref = FilePath + idString(j.FileID)
	}
	return web.Show(h.App, c, confirmTitle, errs, v, pages.ConfirmPage)
}

// Confirm applies a promotion code, saves a draft, or submits: the card is authorised
// for the amount and the fee (with a 3-D Secure challenge when the card company asks),
// and the payment is 審査中. A decline keeps every answer and says why next to the card.
func (h *Handler) Confirm(c *echo.Context) error {
	j, missing := h.load(c, ConfirmPath)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	if id, err := strconv.ParseInt(c.FormValue("card_id"), 10, 64); err == nil {
		j.CardID = id
	}
	j.Acknowledged = c.Request().PostForm["acknowledge"]
	if wantsDraft(c) {
		return h.saveDraft(c, j, ConfirmPath)
	}
	u := web.CurrentUser(c)
	ctx := c.Request().Context()
	switch c.FormValue("action") {
	case "promotion":
		j.PromotionCode = invoices.NormalizePromotionCode(c.FormValue("promotion_code"))
		if _, err := h.Payments.Promotion(ctx, u.BuyerID, j.PromotionCode); err != nil {
			var fe pay.FieldErrors
			if !errors.As(err, &fe) {
				return err
			}
			bad := j.PromotionCode
			j.PromotionCode = ""
			if err := h.save(c, j); err != nil {
				return err
			}
			j.PromotionCode = bad
			return h.renderConfirm(c, j, fe)
		}
		if err := h.save(c, j); err != nil {
			return err
		}
		h.SetFlash(c, views.Flash{Color: "success", Title: "プロモーションコードを適用しました"})
		return c.Redirect(http.StatusSeeOther, ConfirmPath+"#fee")
	case "remove_promotion":
		j.PromotionCode = ""
		if err := h.save(c, j); err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, ConfirmPath+"#fee")
	}
	// A new account for a registered supplier goes with a fresh second factor: the
	// account step asked for it, but a draft (saved through the API, or long ago) or a
	// slow confirm may come without one; then the account step asks again.
	if j.IsNewAccount && !j.IsNewSupplier {
		fresh, err := h.Account.StepUpFresh(ctx, *u)
		if err != nil {
			return err
		}
		if !fresh {
			j.NewAccountDone = false
			if err := h.save(c, j); err != nil {
				return err
			}
			h.SetFlash(c, views.Flash{Color: "info", Title: "振込先口座の登録には確認が必要です",
				Text: "新しい振込先口座でお支払いいただくため、確認コードを入力してください。"})
			return c.Redirect(http.StatusSeeOther, NewAccountPath)
		}
	}
	// The key the page was rendered with: a replay of an old page finds its own payment.
	if key := c.FormValue("submit_key"); key != "" {
		j.SubmitKey = key
	}
	if j.SubmitKey == "" {
		j.SubmitKey = newSubmitKey()
	}
	res, err := h.Payments.Submit(ctx, u.BuyerID, j.submission(u.ID))
	return h.submitted(c, j, res, err)
}

// submitted answers a submission's outcome: the challenge, the complete page, or the
// confirm page again with the problem.
func (h *Handler) submitted(c *echo.Context, j journey, res invoices.Submitted, err error) error {
	var fe pay.FieldErrors
	switch {
	case errors.As(err, &fe):
		if res.Payment.ID != 0 && res.Payment.CardStatus == pay.CardDeclined {
			// The next attempt is a new payment under a new key; a supplier or account
			// created with the declined one is now registered and is chosen as such.
			j.SubmitKey = newSubmitKey()
			if j.IsNewSupplier || j.IsNewAccount {
				j.SupplierID, j.IsNewSupplier = res.Payment.SupplierID, false
				if res.Payment.AccountID != nil {
					j.AccountID, j.IsNewAccount = *res.Payment.AccountID, false
				}
			}
		}
		if err := h.save(c, j); err != nil {
			return err
		}
		return h.renderConfirm(c, j, fe)
	case errors.Is(err, store.ErrNotFound):
		return err
	case err != nil:
		return err
	case res.ActionURL != "":
		if err := h.save(c, j); err != nil {
			return err
		}
		return h.RedirectToPSP(c, res.ActionURL)
	}
	return h.finish(c, j, res.Payment)
}

// finish ends the journey: its draft is gone (it became a payment) and the buyer sees
// what happens next.
func (h *Handler) finish(c *echo.Context, j journey, p store.Payment) error {
	if j.DraftID != 0 {
		// A partner's draft gives the payment its partner, who hears of it from now on.
		if err := h.Store.FinishDraft(c.Request().Context(), web.CurrentUser(c).BuyerID, store.PaymentDraft, j.DraftID, p.ID,
			int(p.ExaminationStatus), h.Now(), oauth.WebhookJob); err != nil {
			return err
		}
	}
	Journey.Clear(h.Sessions, c)
	return c.Redirect(http.StatusSeeOther, CompletePath+"?id="+idString(p.ID))
}

// ChallengeReturned receives the buyer back from the card company's 3-D Secure page.
func (h *Handler) ChallengeReturned(c *echo.Context) error {
	u := web.CurrentUser(c)
	res, err := h.Payments.Returned(c.Request().Context(), u.BuyerID, web.Clip(c.QueryParam("payment"), 80))
	if res.Payment.InvoiceType == pay.InvoiceRequestBuyer {
		// A card-payment request received: back to its creditcard page, or on to its page.
		var fe pay.FieldErrors
		if errors.As(err, &fe) {
			h.SetFlash(c, views.Flash{Color: "error", Title: "お支払いを完了できませんでした", Text: fe[0].Message})
			return c.Redirect(http.StatusSeeOther, requestPayPath(res.Payment.ID))
		}
		if err != nil {
			return err
		}
		return h.requestPaid(c, res.Payment)
	}
	j := Journey.Load(h.Sessions, c)
	if err == nil {
		return h.finish(c, j, res.Payment)
	}
	if j.missingStep(ConfirmPath) != "" {
		// The journey is gone (another tab finished it): show the payment if it exists.
		var fe pay.FieldErrors
		if errors.As(err, &fe) {
			return web.Forbidden("お支払いを完了できませんでした", fe[0].Message)
		}
		return err
	}
	return h.submitted(c, j, res, err)
}
