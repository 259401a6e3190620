package api

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/cards"
	"cardpay/pay"
)

// The card calls of SPEC.md §7 (Cards, and v_result_message of Invoices), with the
// rules of the お支払い方法 pages (package cards). Every one is scoped by the caller's
// buyer: another buyer's card is 404, exactly like one that does not exist.

// creditCard is a saved card as the API shows it: never more of the number than the
// last 4 digits.
type creditCard struct {
	ID         int64         `json:"id"`
	Brand      pay.CardBrand `json:"brand"`
	BrandLabel string        `json:"brand_label"`
	Last4      string        `json:"last4"`
	ExpMonth   int           `json:"exp_month"`
	ExpYear    int           `json:"exp_year"`
	Expiry     string        `json:"expiry"`
	HolderName string        `json:"holder_name"`
	IsDefault  bool          `json:"is_default"`
	// Expired cards are listed but cannot be chosen.
	Expired   bool      `json:"expired"`
	CreatedAt time.Time `json:"created_at"`
}

func creditCardOf(c cards.Card) creditCard {
	return creditCard{
		ID: c.ID, Brand: c.Brand, BrandLabel: c.Brand.Label(), Last4: c.Last4, ExpMonth: c.ExpMonth, ExpYear: c.ExpYear,
		Expiry: c.Expiry(), HolderName: c.HolderName, IsDefault: c.IsDefault, Expired: c.Expired,
		CreatedAt: c.CreatedAt.In(pay.Tokyo()),
	}
}

type creditCardList struct {
	CreditCards []creditCard `json:"credit_cards"`
	MaxCount    int          `json:"max_count"`
}

// creditCards is GET invoices/credit_cards: the caller's saved cards, the default first.
func (s *server) creditCards(c *echo.Context) error {
	list, err := s.Cards.Cards(c.Request().Context(), caller(c).User.BuyerID)
	if err != nil {
		return err
	}
	a := creditCardList{CreditCards: make([]creditCard, len(list)), MaxCount: pay.MaxSavedCards}
	for i, cd := range list {
		a.CreditCards[i] = creditCardOf(cd)
	}
	return c.JSON(http.StatusOK, a)
}

type addCardRequest struct {
	Token string `json:"token"`
}

func (r *addCardRequest) check() (errs pay.FieldErrors) {
	if r.Token == "" {
		errs.Add("token", cards.MsgTokenMissing)
	}
	return errs
}

// cardChallenge asks the client to send the buyer to the PSP's 3-D Secure challenge.
type cardChallenge struct {
	Status       string `json:"status"` // requires_action
	ChallengeURL string `json:"challenge_url"`
	PaymentID    string `json:"payment_id"`
}

type cardSaved struct {
	Status     string     `json:"status"` // saved
	CreditCard creditCard `json:"credit_card"`
}

// addCreditCard is POST invoices/credit_cards {"token"}: the one-time token of the PSP's
// tokenisation endpoint (or its hosted page) becomes a saved card after the card is
// verified: 201 with the card, 202 with the challenge URL when the PSP asks for 3-D
// Secure (the card is saved once the buyer passes it), or 422 with the reason nothing
// was saved.
func (s *server) addCreditCard(c *echo.Context) error {
	var req addCardRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	added, err := s.Cards.AddCard(c.Request().Context(), caller(c).User.BuyerID, req.Token)
	if err != nil {
		return cardError(err)
	}
	if added.ActionURL != "" {
		return c.JSON(http.StatusAccepted, cardChallenge{Status: "requires_action", ChallengeURL: added.ActionURL, PaymentID: added.PaymentID})
	}
	if added.Card == nil {
		// Saved and deleted again in the meantime: nothing to show.
		return errNotFound
	}
	return c.JSON(http.StatusCreated, cardSaved{Status: "saved", CreditCard: creditCardOf(*added.Card)})
}

// deleteCreditCard is DELETE invoices/credit_cards/{id}.
func (s *server) deleteCreditCard(c *echo.Context) error {
	id, err := idParam(c, "id")
	if err != nil {
		return err
	}
	if err := s.Cards.Delete(c.Request().Context(), caller(c).User.BuyerID, id); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

type approvalRequest struct {
	CreditCardID int64  `json:"credit_card_id"`
	Amount       int64  `json:"amount"`
	PaymentID    string `json:"payment_id"`
	ReturnURL    string `json:"return_url"`
}

func (r *approvalRequest) check() (errs pay.FieldErrors) {
	if r.CreditCardID <= 0 {
		errs.Add("credit_card_id", msgMissing("credit_card_id"))
	}
	return errs
}

type approvalAnswer struct {
	Status       string `json:"status"` // authorized or requires_action
	PaymentID    string `json:"payment_id"`
	CreditCardID int64  `json:"credit_card_id"`
	Amount       int64  `json:"amount"`
	ResultCode   string `json:"result_code"`
	Message      string `json:"message"`
	ChallengeURL string `json:"challenge_url,omitempty"`
}

// approveCreditCard is POST invoices/credit_cards/approval: authorise (与信) an amount on
// one of the caller's saved cards for the payment being prepared. 200 authorized, 202
// requires_action with the challenge URL, 422 with the decline's message (or a problem
// with the request), 404 for a card that is not the caller's. The same payment_id again
// answers the same authorisation and never charges twice.
func (s *server) approveCreditCard(c *echo.Context) error {
	var req approvalRequest
	if err := decodeChecked(c, &req); err != nil {
		return err
	}
	a, err := s.Cards.Approve(c.Request().Context(), caller(c).User.BuyerID, cards.ApproveRequest{
		CardID: req.CreditCardID, Amount: req.Amount, PaymentID: req.PaymentID, ReturnURL: req.ReturnURL,
	})
	if err != nil {
		return cardError(err)
	}
	msg, _ := cards.ResultMessage(string(a.ResultCode))
	ans := approvalAnswer{
		Status: string(a.Status), PaymentID: a.PaymentID, CreditCardID: a.CardID, Amount: a.Amount,
		ResultCode: string(a.ResultCode), Message: msg, ChallengeURL: a.ActionURL,
	}
	if a.ActionURL != "" {
		return c.JSON(http.StatusAccepted, ans)
	}
	return c.JSON(http.StatusOK, ans)
}

// cardError answers a refusal of the card rules as 422: card_declined with the gateway's
// result code when the card itself was refused (a decline, a brand the service does not
// take), validation_error otherwise (a duplicate, the limit, a bad amount); and adding
// cards locked after the day's declined checks as 403 card_check_locked.
func cardError(err error) error {
	r, ok := cards.AsRefusal(err)
	if !ok {
		return err
	}
	e := fieldError(r.Field, r.Message)
	e.Message = r.Message
	if r.Locked {
		// Not a 429: waiting a while does not help; the next day (JST) or an operator does.
		e.code, e.Status = http.StatusForbidden, "card_check_locked"
		return e
	}
	if r.Code != "" && cards.IsDecline(string(r.Code)) {
		e.Status = "card_declined"
		e.ResultCode = string(r.Code)
	}
	return e
}

type resultMessage struct {
	ID      string `json:"id"`
	Message string `json:"message"`
	Decline bool   `json:"decline"`
}

// resultMessageOf is GET v_result_message/{id}: the buyer's Japanese message for a
// gateway result code, which says what to do next; 404 for a code the service does not
// know.
func (s *server) resultMessageOf(c *echo.Context) error {
	id := c.Param("id")
	msg, ok := cards.ResultMessage(id)
	if !ok {
		return errNotFound
	}
	return c.JSON(http.StatusOK, resultMessage{ID: id, Message: msg, Decline: cards.IsDecline(id)})
}
