package payments

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/cards"
	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/views"
	pages "cardpay/views/payments"
)

// A card-payment request received (SPEC.md §2 /payments/waiting/:id/creditcard): the
// customer sees who asks, for how much and by when, with the requester's invoice, and
// pays with a saved or new card (3-D Secure when the card company asks). Paying is
// idempotent like a payment: a double click or a second tab charges once.

// RequestLinkPath is the public page of a request's mailed link (invoices.RequestLinkPath).
const RequestLinkPath = invoices.RequestLinkPath

const requestPayTitle = "カード払いのご依頼：お支払い"

// waitingPath is 支払待ち, the list of requests received.
const waitingPath = links.PaymentsWaiting

// RequestLinkPattern is the mailed link of a card-payment request.
const RequestLinkPattern = RequestLinkPath + ":key"

// OpenRequestLink is the mailed link: the key waits in the server session and is linked
// on the next signed-in page (LinkPendingRequest); someone signed out signs in, or
// signs up and registers, first.
func (h *Handler) OpenRequestLink(c *echo.Context) error {
	h.SetPendingRequestKey(c, c.Param("key"))
	if web.CurrentUser(c) != nil {
		return c.Redirect(http.StatusSeeOther, waitingPath)
	}
	h.SetFlash(c, views.Flash{Color: "info", Title: "カード払いのご依頼を受け取るには、ログインしてください",
		Text: "アカウントをお持ちでない場合は、「新規登録」から登録（無料）のうえでお支払いいただけます。登録が終わると、ご依頼のお支払い画面が開きます。"})
	return c.Redirect(http.StatusSeeOther, links.SignIn+"?redirect="+waitingPath)
}

// requestToPay loads the customer's invoice id of a request and the request behind it;
// anything else (another buyer's, a payment of their own) is 404.
func (h *Handler) requestToPay(c *echo.Context, id int64) (store.Payment, store.Request, error) {
	u := web.CurrentUser(c)
	ctx := c.Request().Context()
	p, err := h.Store.Payment(ctx, u.BuyerID, id)
	if err != nil {
		return p, store.Request{}, err
	}
	if p.InvoiceType != pay.InvoiceRequestBuyer {
		return p, store.Request{}, web.ErrNotFound
	}
	r, err := h.Store.RequestOfPayment(ctx, u.BuyerID, id)
	return p, r, err
}

// RequestPayPattern is where a received card-payment request is paid by card
// (requestPayPath builds it for the request-key link).
const RequestPayPattern = waitingPath + "/:id/creditcard"

// ShowRequestPayPage is the request's creditcard page; a request no longer waiting for
// the card shows its own page instead.
func (h *Handler) ShowRequestPayPage(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	p, r, err := h.requestToPay(c, id)
	if err != nil {
		return err
	}
	if !pay.RequestOpen(p.ExaminationStatus) {
		return c.Redirect(http.StatusSeeOther, pay.PaymentLink(p.ID, p.State()))
	}
	cardID := h.defaultCardID(c)
	// Back from adding a card (?card=): the new card is the one to pay with.
	if n, err := strconv.ParseInt(c.QueryParam("card"), 10, 64); err == nil && n > 0 {
		if card, err := h.Cards.Card(c.Request().Context(), web.CurrentUser(c).BuyerID, n); err == nil && !card.Expired {
			cardID = card.ID
		}
	}
	return h.renderRequestPay(c, p, r, cardID, newSubmitKey(), nil)
}

func (h *Handler) renderRequestPay(c *echo.Context, p store.Payment, r store.Request, cardID int64, key string, errs pay.FieldErrors) error {
	u := web.CurrentUser(c)
	path := requestPayPath(p.ID)
	v := pages.RequestPayView{
		Action: path, SubmitKey: key, Number: pay.InvoiceNumber(p.ID), ListHref: waitingPath,
		Requester: r.RequesterName, RequesterCorporateNumber: r.RequesterCorporate,
		Amount: pay.Yen(p.Amount), FeeRate: pay.FeeRateLabel(p.FeeBasisPoints), Fee: pay.Yen(p.Fee), Total: pay.Yen(p.Amount + p.Fee),
		FeeByRequester: r.FeeBearer == pay.FeeByRequester, Deadline: pay.JapaneseDate(r.Deadline),
		InvoiceNumber: r.InvoiceNumber, Message: r.Message, Status: p.ExaminationStatus.Label(),
		TransferDate: pay.JapaneseDate(pay.EarliestTransferDate(h.Now())),
		CardID:       idString(cardID), AddCardHref: links.AddCreditCard + "?return=" + path,
	}
	if r.InvoiceDate != nil {
		v.InvoiceDate = pay.JapaneseDate(*r.InvoiceDate)
	}
	if r.FileID != nil {
		// The requester's file, shown to their customer: the signed URL is made here, for
		// this page only, after the request was found to be theirs.
		v.FileHref, _ = h.InvoiceFiles.DownloadURL(r.RequesterID, *r.FileID)
	}
	if p.AccountID != nil {
		a, err := h.Store.SupplierAccount(c.Request().Context(), u.BuyerID, p.SupplierID, *p.AccountID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err == nil {
			v.Account = fmt.Sprintf("%s %s %s %s %s", a.BankName, a.BranchName, a.AccountType.Label(), a.AccountNumber, a.HolderName)
			v.AccountNew = !a.Approved()
		}
	}
	cards, err := h.Cards.Cards(c.Request().Context(), u.BuyerID)
	if err != nil {
		return err
	}
	v.Cards = cardOptions(cards)
	return web.Show(h.App, c, requestPayTitle, errs, v, pages.RequestPayPage)
}

// PayRequest pays the request with the chosen card: 審査中 and its page, the card
// company's challenge first when asked, or the page again with the problem (a decline's
// message next to the card; the next attempt is a new one).
func (h *Handler) PayRequest(c *echo.Context) error {
	id, err := web.IDParam(c, "id")
	if err != nil {
		return err
	}
	p, r, err := h.requestToPay(c, id)
	if err != nil {
		return err
	}
	u := web.CurrentUser(c)
	cardID, _ := strconv.ParseInt(c.FormValue("card_id"), 10, 64)
	key := web.Clip(c.FormValue("submit_key"), 64)
	if key == "" {
		key = newSubmitKey()
	}
	res, err := h.Requests.PayRequest(c.Request().Context(), u.BuyerID, id, key, cardID)
	var fe pay.FieldErrors
	switch {
	case errors.As(err, &fe):
		if res.Payment.ID != 0 {
			p = res.Payment
		}
		if !pay.RequestOpen(p.ExaminationStatus) && fe.For("status") != "" {
			h.SetFlash(c, views.Flash{Color: "error", Title: fe.For("status")})
			return c.Redirect(http.StatusSeeOther, pay.PaymentLink(p.ID, p.State()))
		}
		if p.CardStatus == pay.CardDeclined {
			key = newSubmitKey()
		}
		return h.renderRequestPay(c, p, r, cardID, key, fe)
	case err != nil:
		return err
	case res.ActionURL != "":
		return h.RedirectToPSP(c, res.ActionURL)
	}
	return h.requestPaid(c, res.Payment)
}

// requestPaid tells the customer the request is paid and shows it under 審査中.
func (h *Handler) requestPaid(c *echo.Context, p store.Payment) error {
	h.SetFlash(c, views.Flash{Color: "success", Title: "お支払いを受け付けました",
		Text: "カードの与信が完了しました。審査が終わると、カードのご利用が確定します。"})
	return c.Redirect(http.StatusSeeOther, pay.PaymentLink(p.ID, p.State()))
}

// cardOptions are the buyer's cards as the card choice lists them.
func cardOptions(cards []cards.Card) []pages.CardOption {
	out := []pages.CardOption{}
	for _, card := range cards {
		out = append(out, pages.CardOption{ID: idString(card.ID), Label: string(card.Brand) + " •••• " + card.Last4,
			Expiry: card.Expiry(), Expired: card.Expired, Default: card.IsDefault})
	}
	return out
}
