package myaccount

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v5"

	"cardpay/cards"
	"cardpay/handlers/links"
	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/static"
	"cardpay/views"
	pages "cardpay/views/myaccount"
)

// AddCreditCardPage is カードの追加: the card-entry island, which frames the PSP's card
// fields, over the form that sends a buyer without JavaScript to the PSP's hosted page.
var AddCreditCardPage = web.Page{Path: links.AddCreditCard, Title: "カードの追加", Access: web.SignedIn, Island: "card-entry"}

// sessionCardSetups are the PSP card setups this session started (space-separated, the
// newest last): only those are finished, so that no other site can make a buyer save a
// card of its choosing by linking to the return URL or posting a setup of its own.
const sessionCardSetups = "creditcard_setups"

// maxOpenSetups bounds the setups a session keeps: one per add page opened, a few tabs.
const maxOpenSetups = 5

// sessionCardReturn is where to go once the card is saved, when the add page was opened
// from a payment's confirm page (?return=…): the buyer goes back to the payment, which
// then offers the new card.
const sessionCardReturn = "creditcard_return"

// cardReturnPrefixes are the pages that may send the buyer here and get them back.
var cardReturnPrefixes = []string{links.PaymentConfirm, links.PaymentEdit, links.PaymentsWaiting + "/"}

// ShowAddCreditCardPage is カードの追加.
func (h *Handler) ShowAddCreditCardPage(c *echo.Context) error {
	if r := c.QueryParam("return"); r != "" {
		if target, ok := web.SafeRedirect(r); ok && hasAnyPrefix(target, cardReturnPrefixes) {
			h.Sessions.Put(c.Request().Context(), sessionCardReturn, target)
		}
	}
	return h.renderAddCreditCard(c, "")
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// renderAddCreditCard shows the add page, with refusal (a decline's message, a
// duplicate, the limit) under the card as a validation failure (422). The page opens a
// card setup at the PSP for the island; when the PSP does not answer, the page still
// offers its hosted page, which says so in turn.
func (h *Handler) renderAddCreditCard(c *echo.Context, refusal string) error {
	ctx := c.Request().Context()
	u := web.CurrentUser(c)
	n, err := h.Store.CardCount(ctx, u.BuyerID)
	if err != nil {
		return err
	}
	locked, err := h.Cards.Locked(ctx, u.BuyerID)
	if err != nil {
		return err
	}
	var errs pay.FieldErrors
	if refusal != "" {
		errs.Add("card", refusal)
	}
	v := pages.AddCreditCardView{
		HostedAction: HostedCardEntryPath,
		CanAdd:       n < pay.MaxSavedCards, MaxCards: pay.MaxSavedCards,
		Locked: locked,
	}
	if locked && refusal != cards.MsgLocked {
		v.LockedMessage = cards.MsgLocked
	}
	var labels []string
	for _, b := range pay.AcceptedBrands {
		labels = append(labels, b.Label())
	}
	v.AcceptedLabels = strings.Join(labels, "、")
	if v.CanAdd && !locked {
		v.Props, v.Island = h.cardEntryProps(c)
	}
	h.AllowCardEntry(c)
	return web.Show(h.App, c, AddCreditCardPage.Title, errs, v, pages.AddCreditCardPage)
}

// cardEntryProps opens a card setup for the island and answers its props; false when the
// island cannot run (the PSP did not answer, or Stripe without a publishable key).
func (h *Handler) cardEntryProps(c *echo.Context) (pages.CardEntryProps, bool) {
	ctx := c.Request().Context()
	p := pages.CardEntryProps{PSP: h.PSPName(), Action: AddCreditCardPage.Path, IconHref: static.URL("dist/icons.svg")}
	for _, b := range pay.AcceptedBrands {
		p.AcceptedBrands = append(p.AcceptedBrands, string(b))
	}
	if p.PSP == "stripe" && h.StripePublishableKey == "" {
		return p, false
	}
	setup, err := h.Cards.StartSetup(ctx, false)
	if err != nil {
		h.Logger.WarnContext(ctx, "card setup for the add page", "error", err)
		return p, false
	}
	p.Setup = setup.ID
	switch p.PSP {
	case "stripe":
		p.PublishableKey, p.ClientSecret = h.StripePublishableKey, setup.ClientSecret
		p.ReturnURL = h.BaseURL + cards.HostedReturnPath
	default:
		p.PSPOrigin, p.FieldsURL = strings.TrimRight(h.PSPOrigin, "/"), setup.FieldsURL
		if !h.PSPPage(p.FieldsURL) {
			h.Logger.WarnContext(ctx, "card setup: the fields are not on the PSP's origin", "fields", p.FieldsURL)
			return p, false
		}
	}
	h.rememberSetup(c, setup.ID)
	return p, true
}

// rememberSetup keeps a setup this session started.
func (h *Handler) rememberSetup(c *echo.Context, id string) {
	ctx := c.Request().Context()
	ids := append(strings.Fields(h.Sessions.GetString(ctx, sessionCardSetups)), id)
	if len(ids) > maxOpenSetups {
		ids = ids[len(ids)-maxOpenSetups:]
	}
	h.Sessions.Put(ctx, sessionCardSetups, strings.Join(ids, " "))
}

// takeSetup answers whether this session started setup id, and forgets it: a setup is
// finished once.
func (h *Handler) takeSetup(c *echo.Context, id string) bool {
	ctx := c.Request().Context()
	ids := strings.Fields(h.Sessions.GetString(ctx, sessionCardSetups))
	i := slices.Index(ids, id)
	if id == "" || i < 0 {
		return false
	}
	h.Sessions.Put(ctx, sessionCardSetups, strings.Join(slices.Delete(ids, i, i+1), " "))
	return true
}

// AddCreditCard is the island's post: the buyer entered a card into the PSP's fields
// (setup), and the PSP holds it for this session's setup.
func (h *Handler) AddCreditCard(c *echo.Context) error {
	setup := c.FormValue("setup")
	if !h.takeSetup(c, setup) {
		return h.renderAddCreditCard(c, cards.MsgTokenUnusable)
	}
	return h.addCard(c, setup)
}

// HostedCardEntryPath starts the PSP's hosted card entry.
const HostedCardEntryPath = links.AddCreditCard + "/hosted"

// StartHostedCardEntry opens a card setup on the PSP's hosted page and sends the buyer
// there (DESIGN.md: the no-JavaScript path of the add page).
func (h *Handler) StartHostedCardEntry(c *echo.Context) error {
	setup, err := h.Cards.StartSetup(c.Request().Context(), true)
	if err != nil {
		h.Logger.WarnContext(c.Request().Context(), "card setup for the hosted page", "error", err)
		return errNoHostedPage
	}
	h.rememberSetup(c, setup.ID)
	return h.RedirectToPSP(c, setup.RedirectURL)
}

// ReturnFromHostedCardEntry is where the PSP sends the buyer back: ?setup=… from the
// hosted page (the sandbox's, Stripe Checkout's), ?setup_intent=… from Stripe.js after
// a 3-D Secure redirect, or ?hosted_cancel=1. Only a setup this session started is
// finished.
func (h *Handler) ReturnFromHostedCardEntry(c *echo.Context) error {
	setup := c.QueryParam("setup")
	if setup == "" {
		setup = c.QueryParam("setup_intent")
	}
	if c.QueryParam("hosted_cancel") != "" || !h.takeSetup(c, setup) {
		return c.Redirect(http.StatusSeeOther, AddCreditCardPage.Path)
	}
	return h.addCard(c, setup)
}

// addCard saves the card the buyer entered for setup, or sends the buyer to the 3-D
// Secure challenge, or shows why the card was refused.
func (h *Handler) addCard(c *echo.Context, setup string) error {
	u := web.CurrentUser(c)
	added, err := h.Cards.AddSetupCard(c.Request().Context(), u.BuyerID, setup)
	return h.answerAdded(c, added, err)
}

// ReturnFromCardVerification is cards.VerifyReturnPath: the buyer is back from the 3-D
// Secure challenge, and the outcome is looked up by our payment id.
func (h *Handler) ReturnFromCardVerification(c *echo.Context) error {
	u := web.CurrentUser(c)
	paymentID := c.QueryParam("payment_id")
	if paymentID == "" {
		return web.ErrNotFound
	}
	added, err := h.Cards.FinishCheck(c.Request().Context(), u.BuyerID, paymentID)
	return h.answerAdded(c, added, err)
}

func (h *Handler) answerAdded(c *echo.Context, added cards.Added, err error) error {
	if r, ok := cards.AsRefusal(err); ok {
		return h.renderAddCreditCard(c, r.Message)
	}
	// Over the card checks' limits: the page answers 429 with the time to try again.
	var limited pay.FieldErrors
	if web.Refused(c, &limited, "card", err) {
		return h.renderAddCreditCard(c, limited[0].Message)
	}
	if err != nil {
		return err
	}
	if added.ActionURL != "" {
		return h.RedirectToPSP(c, added.ActionURL)
	}
	f := views.Flash{Color: "success", Title: "カードを登録しました"}
	if added.Card != nil {
		f.Text = cardName(*added.Card) + "を登録しました。"
		if added.Card.IsDefault {
			f.Text += "既定のカードとして使われます。"
		}
	}
	h.SetFlash(c, f)
	if back := h.Sessions.PopString(c.Request().Context(), sessionCardReturn); back != "" {
		if added.Card != nil {
			back += "?card=" + strconv.FormatInt(added.Card.ID, 10)
		}
		return c.Redirect(http.StatusSeeOther, back)
	}
	return c.Redirect(http.StatusSeeOther, CreditCardsPage.Path)
}
