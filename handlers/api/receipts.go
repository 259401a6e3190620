package api

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/handlers/web"
	"cardpay/pay"
	"cardpay/receipts"
)

// receiptURLsAnswer is GET invoices/{id}/receipts/download/url: a short-lived signed URL
// of each receipt of a transferred payment.
type receiptURLsAnswer struct {
	StatementURL  string    `json:"statement_url"`
	FeeInvoiceURL string    `json:"fee_invoice_url"`
	ExpiresAt     time.Time `json:"expires_at"`
}

var errNoReceipt = newError(http.StatusConflict, "invalid_state", "領収書は、取引先へのお振り込みが完了してから発行されます")

// receiptURLs answers the two receipts' signed URLs; 409 before the transfer.
func (s *server) receiptURLs(c *echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	buyerID := caller(c).User.BuyerID
	p, err := s.Store.Payment(c.Request().Context(), buyerID, id)
	if err != nil {
		return err
	}
	if p.ExaminationStatus != pay.TransferCompleted {
		return errNoReceipt
	}
	st, exp := s.Receipts.URL(buyerID, id, receipts.StatementKind)
	fee, _ := s.Receipts.URL(buyerID, id, receipts.FeeInvoiceKind)
	return c.JSON(http.StatusOK, receiptURLsAnswer{StatementURL: s.absolute(strings.TrimPrefix(st, Prefix)),
		FeeInvoiceURL: s.absolute(strings.TrimPrefix(fee, Prefix)), ExpiresAt: exp.In(pay.Tokyo())})
}

// signedReceipt is GET invoices/receipts/signed_download/{kind}/{token}: the PDF as an
// attachment, no sign-in (the signature authenticates).
func (s *server) signedReceipt(c *echo.Context) error {
	buyerID, id, err := s.Receipts.VerifyURL(c.Param("kind"), c.Param("token"))
	if err != nil {
		return errBadSignedURL
	}
	name, b, err := s.Receipts.PDF(c.Request().Context(), buyerID, id, c.Param("kind"))
	if errors.Is(err, receipts.ErrNoReceipt) {
		return errNoReceipt
	}
	if err != nil {
		return err
	}
	return web.ServePDF(c, name, b)
}
