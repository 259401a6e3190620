package collections

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/account"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/collections"
)

const confirmTitle = "カード払い依頼：依頼内容の確認"

// ShowConfirmPage is the check-answers page: every answer with its 変更 link, the fee and
// who bears it, then 依頼を送信する.
func (h *Handler) ShowConfirmPage(c *echo.Context) error {
	j, missing := h.load(c, ConfirmPath)
	if missing != "" {
		return c.Redirect(http.StatusSeeOther, missing)
	}
	if j.SubmitKey == "" {
		j.SubmitKey = newSubmitKey()
		if err := h.save(c, j); err != nil {
			return err
		}
	}
	return h.renderConfirm(c, j, nil)
}

func (h *Handler) renderConfirm(c *echo.Context, j journey, errs pay.FieldErrors) error {
	u := web.CurrentUser(c)
	chk, err := h.Requests.CheckRequest(c.Request().Context(), u.BuyerID, j.Submission(u.ID))
	var fe pay.FieldErrors
	if errors.As(err, &fe) {
		errs = append(errs, fe...)
	} else if err != nil {
		return err
	}
	errs = onThisPage(errs)
	v := pages.ConfirmView{Action: ConfirmPath, SubmitKey: j.SubmitKey, FeeBearer: string(chk.FeeBearer)}
	for _, f := range chk.Request.Fields() {
		v.Request = append(v.Request, views.ConfirmRow{Label: f.Label, Value: f.Value, ChangeHref: InvoiceStepPath + "#" + f.Field})
	}
	if a := chk.Account; a.ID != 0 {
		v.Account = []views.ConfirmRow{
			{Label: "金融機関", Value: a.BankName + "（" + a.BankCode + "）", ChangeHref: BankStepPath},
			{Label: "支店", Value: a.BranchName + "（" + a.BranchCode + "）", ChangeHref: BankStepPath},
			{Label: "口座種別", Value: a.AccountType.Label(), ChangeHref: BankStepPath},
			{Label: "口座番号", Value: a.AccountNumber, ChangeHref: BankStepPath},
			{Label: "口座名義", Value: a.HolderName, ChangeHref: BankStepPath},
		}
	}
	if j.FileID != 0 {
		if f, err := h.Store.InvoiceFile(c.Request().Context(), u.BuyerID, j.FileID); err == nil {
			v.FileName = web.FileName(f.OriginalName)
			v.FileHref, _ = h.InvoiceFiles.DownloadURL(u.BuyerID, f.ID)
		}
	}
	cm := chk.Commission
	v.Amount, v.Fee, v.FeeRate = pay.Yen(cm.Amount), pay.Yen(cm.Fee), pay.FeeRateLabel(cm.FeeBasisPoints)
	v.CustomerPays, v.RequesterReceives = pay.Yen(chk.CustomerCharge), pay.Yen(chk.Transfer)
	v.FeeBearers = []views.FieldOption{
		{Value: string(pay.FeeByCustomer), Label: pay.FeeByCustomer.Label(),
			Hint: "お客さまのカードへ " + pay.Yen(cm.Amount+cm.Fee) + " をご請求し、" + pay.Yen(cm.Amount) + " をお振り込みします。"},
		{Value: string(pay.FeeByRequester), Label: pay.FeeByRequester.Label(),
			Hint: "お客さまのカードへ " + pay.Yen(cm.Amount) + " をご請求し、手数料を差し引いた " + pay.Yen(cm.Amount-cm.Fee) + " をお振り込みします。"},
	}
	return web.Show(h.App, c, confirmTitle, errs, v, pages.ConfirmPage)
}

// onThisPage points each error at what this page shows of its field: the fee's choice
// is here; an answer of an earlier step is a row of its section, with its 変更 link.
func onThisPage(errs pay.FieldErrors) pay.FieldErrors {
	out := make(pay.FieldErrors, 0, len(errs))
	for _, e := range errs {
		switch e.Field {
		case "fee_bearer":
		case "account_id", "account":
			e.Field = "account-section"
		default:
			e.Field = "request-section"
		}
		out = append(out, e)
	}
	return out
}

// Send sends the request (or shows the fee again with the chosen bearer, or saves a
// draft): the request, its key and the customer's mail, once however often it is sent.
func (h *Handler) Send(c *echo.Context) error {
	j, missing := h.load(c, ConfirmPath)
	if missing != "" {
		// A second click on a page already sent: the journey is gone, its request is not.
		if id, ok := h.sentWith(c, c.FormValue("submit_key")); ok {
			return c.Redirect(http.StatusSeeOther, CompletePath+"?id="+idString(id))
		}
		return c.Redirect(http.StatusSeeOther, missing)
	}
	if b := pay.FeeBearer(c.FormValue("fee_bearer")); b.Valid() {
		j.FeeBearer = b
	}
	if wantsDraft(c) {
		return h.saveDraft(c, j, ConfirmPath)
	}
	if c.FormValue("action") == "fee" {
		if err := h.save(c, j); err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, ConfirmPath+"#fee")
	}
	if key := web.Clip(c.FormValue("submit_key"), 64); key != "" {
		j.SubmitKey = key
	}
	if j.SubmitKey == "" {
		j.SubmitKey = newSubmitKey()
	}
	u := web.CurrentUser(c)
	ctx := c.Request().Context()
	err := h.Account.LimitBuyer(ctx, account.ActRequestMail, u.BuyerID)
	if errs := (pay.FieldErrors{}); web.Refused(c, &errs, "request-section", err) {
		if err := h.save(c, j); err != nil {
			return err
		}
		return h.renderConfirm(c, j, errs)
	} else if err != nil {
		return err
	}
	r, err := h.Requests.SendRequest(ctx, u.BuyerID, j.Submission(u.ID))
	var fe pay.FieldErrors
	switch {
	case errors.As(err, &fe):
		if err := h.save(c, j); err != nil {
			return err
		}
		return h.renderConfirm(c, j, nil)
	case errors.Is(err, store.ErrNotFound):
		// The account or file went away meanwhile (another tab): choose again.
		j.BankDone = false
		if err := h.save(c, j); err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, BankStepPath)
	case err != nil:
		return err
	}
	if j.DraftID != 0 {
		if _, err := h.Store.DeleteDrafts(ctx, u.BuyerID, store.RequestDraft, []int64{j.DraftID}); err != nil {
			return err
		}
	}
	Journey.Clear(h.Sessions, c)
	h.Sessions.Put(ctx, sessionSent, j.SubmitKey+" "+idString(r.ID))
	return c.Redirect(http.StatusSeeOther, CompletePath+"?id="+idString(r.ID))
}

// sessionSent keeps the last sent confirm page's key with its request ("key id"), so
// that the same page sent again after the journey ended shows that request's 完了.
const sessionSent = "collection_sent"

func (h *Handler) sentWith(c *echo.Context, key string) (int64, bool) {
	k, id, ok := strings.Cut(h.Sessions.GetString(c.Request().Context(), sessionSent), " ")
	if !ok || key == "" || k != key {
		return 0, false
	}
	n, err := strconv.ParseInt(id, 10, 64)
	return n, err == nil
}
