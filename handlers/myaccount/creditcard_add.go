package myaccount

import (
	"strconv"

	"net/http"
	"net/url"
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

// AddCreditCardPage is カードの追加: the card-entry island over the hosted-page fallback.
var AddCreditCardPage = web.Page{Path: links.AddCreditCard, Title: "カードの追加", Access: web.SignedIn, Island: "card-entry"}

// sessionHostedCard marks that this session sent the buyer to the PSP's hosted card
// page: only then is a token arriving on the return URL (a GET anyone could link to)
// taken, so that no other site can make a buyer save a card of its choosing.
const sessionHostedCard = "creditcard_hosted_pending"

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
// duplicate, the limit) under the card as a validation failure (422).
func (h *Handler) renderAddCreditCard(c *echo.Context, refusal string) error {
	u := web.CurrentUser(c)
	n, err := h.Store.CardCount(c.Request().Context(), u.BuyerID)
	if err != nil {
		return err
	}
	locked, err := h.Cards.Locked(c.Request().Context(), u.BuyerID)
	if err != nil {
		return err
	}
	var errs pay.FieldErrors
	if refusal != "" {
		errs.Add("card", refusal)
	}
	v := pages.AddCreditCardView{
		Props: pages.CardEntryProps{
			TokenizeURL: strings.TrimRight(h.PSPOrigin, "/") + "/v1/tokens", Action: AddCreditCardPage.Path,
			IconHref: static.URL("dist/icons.svg"),
		},
		HostedAction: HostedCardEntryPath,
		CanAdd:       n < pay.MaxSavedCards, MaxCards: pay.MaxSavedCards,
		Locked: locked,
	}
	if locked && refusal != cards.MsgLocked {
		v.LockedMessage = cards.MsgLocked
	}
	var labels []string
	for _, b := range pay.AcceptedBrands {
		v.Props.AcceptedBrands = append(v.Props.AcceptedBrands, string(b))
		labels = append(labels, b.Label())
	}
	v.AcceptedLabels = strings.Join(labels, "、")
	return web.Show(h.App, c, AddCreditCardPage.Title, errs, v, pages.AddCreditCardPage)
}

// AddCreditCard takes the one-time token the card-entry island got from the PSP.
func (h *Handler) AddCreditCard(c *echo.Context) error {
	return h.addCard(c, c.FormValue("token"))
}

// HostedCardEntryPath starts the PSP's hosted card entry.
const HostedCardEntryPath = links.AddCreditCard + "/hosted"

// StartHostedCardEntry creates a session on the PSP's hosted card page and sends the
// buyer there (DESIGN.md: the no-JavaScript path of the add page).
func (h *Handler) StartHostedCardEntry(c *echo.Context) error {
	page, err := h.Cards.HostedPage(c.Request().Context())
	if isNoHostedPage(err) {
		return errNoHostedPage
	}
	if err != nil {
		return err
	}
	// Only ever redirect to the PSP the CSP names.
	if !sameOrigin(page, h.PSPOrigin) {
		return errNoHostedPage
	}
	h.Sessions.Put(c.Request().Context(), sessionHostedCard, true)
	return c.Redirect(http.StatusSeeOther, page)
}

// ReturnFromHostedCardEntry is where the hosted card page sends the buyer back:
// ?token=… (or ?hosted_cancel=1). The token is taken only from the session that went
// there.
func (h *Handler) ReturnFromHostedCardEntry(c *echo.Context) error {
	ctx := c.Request().Context()
	pending := h.Sessions.PopBool(ctx, sessionHostedCard)
	token := c.QueryParam("token")
	if !pending || token == "" || c.QueryParam("hosted_cancel") != "" {
		return c.Redirect(http.StatusSeeOther, AddCreditCardPage.Path)
	}
	return h.addCard(c, token)
}

// addCard saves the card of token, or sends the buyer to the 3-D Secure challenge, or
// shows why the card was refused.
func (h *Handler) addCard(c *echo.Context, token string) error {
	u := web.CurrentUser(c)
	added, err := h.Cards.AddCard(c.Request().Context(), u.BuyerID, token)
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
		if !sameOrigin(added.ActionURL, h.PSPOrigin) {
			return errNoHostedPage
		}
		return c.Redirect(http.StatusSeeOther, added.ActionURL)
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

// sameOrigin reports whether raw is an absolute URL on origin.
func sameOrigin(raw, origin string) bool {
	u, err := url.Parse(raw)
	o, oerr := url.Parse(strings.TrimRight(origin, "/"))
	return err == nil && oerr == nil && u.Scheme != "" && u.Scheme == o.Scheme && u.Host == o.Host
}
