package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
	"cardpay/receipts"
	"cardpay/store"
)

// A transferred payment's two receipts, in Japanese PDFs: the payment statement
// (支払明細) and the qualified invoice of the fee (適格請求書). The pages serve them to the
// buyer signed in; the API answers short-lived signed URLs to them.

// Receipt kinds, in paths and signed URLs.
const (
	ReceiptStatement  = "statement"
	ReceiptFeeInvoice = "fee-invoice"
)

// ReceiptKinds in the order the pages list them.
var ReceiptKinds = []string{ReceiptStatement, ReceiptFeeInvoice}

// ErrNoReceipt: the payment has no receipts (not transferred yet, or another buyer's).
var ErrNoReceipt = errors.New("web: no receipt for this payment")

// SignedReceiptPath is where the API serves a signed receipt URL: kind, then the token.
const SignedReceiptPath = "/api/v1/invoices/receipts/signed_download/"

// ReceiptURL is a signed, root-relative URL of one receipt, working until the time
// returned (DownloadURLTTL).
func (a *App) ReceiptURL(buyerID, id int64, kind string) (string, time.Time) {
	exp := a.Now().Add(DownloadURLTTL)
	return SignedReceiptPath + kind + "/" + a.FileSigner.Sign("receipt-"+kind, buyerID, id, exp), exp
}

// VerifyReceiptURL checks a signed receipt token of kind.
func (a *App) VerifyReceiptURL(kind, token string) (buyerID, id int64, err error) {
	if kind != ReceiptStatement && kind != ReceiptFeeInvoice {
		return 0, 0, ErrNoReceipt
	}
	return a.FileSigner.Verify("receipt-"+kind, token, a.Now())
}

// ReceiptPDF renders one receipt of the buyer's transferred payment, with its file name.
func (a *App) ReceiptPDF(ctx context.Context, buyerID, id int64, kind string) (string, []byte, error) {
	p, err := a.Store.Payment(ctx, buyerID, id)
	if err != nil {
		return "", nil, err
	}
	if p.ExaminationStatus != pay.TransferCompleted {
		return "", nil, ErrNoReceipt
	}
	facts, err := a.Store.ReceiptFactsOf(ctx, buyerID, id)
	if err != nil {
		return "", nil, err
	}
	issued := a.Now()
	if facts.TransferredAt != nil {
		issued = *facts.TransferredAt
	}
	number := pay.InvoiceNumber(p.ID)
	switch kind {
	case ReceiptStatement:
		s := receipts.Statement{ServiceName: a.ServiceName, IssuedAt: issued, Number: number, BuyerName: facts.BuyerName,
			SupplierName: p.SupplierName, InvoiceNumber: p.InvoiceNumber, InvoiceDate: p.InvoiceDate, DueDate: p.DueDate,
			Amount: p.Amount, Fee: p.Fee, Total: p.Total(), CapturedAt: facts.CapturedAt}
		if p.TransferDate != nil {
			s.TransferDate = *p.TransferDate
		}
		if p.AccountID != nil {
			acct, err := a.Store.SupplierAccount(ctx, buyerID, p.SupplierID, *p.AccountID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return "", nil, err
			}
			s.BankName, s.BranchName, s.AccountType = acct.BankName, acct.BranchName, acct.AccountType.Label()
			s.AccountNumber, s.HolderName = acct.AccountNumber, acct.HolderName
		}
		if p.CardID != nil {
			if card, err := a.Store.CardAny(ctx, buyerID, *p.CardID); err == nil {
				s.CardLabel = string(card.Brand) + " •••• " + card.Last4
			}
		}
		b, err := s.PDF()
		return fmt.Sprintf("shiharai-meisai-%d.pdf", p.ID), b, err
	case ReceiptFeeInvoice:
		f := receipts.FeeInvoice{ServiceName: a.ServiceName, IssuerName: a.IssuerName, RegistrationNumber: a.IssuerRegistrationNumber,
			IssuedAt: issued, Number: number, BuyerName: facts.BuyerName, Fee: p.Fee,
			Description: fmt.Sprintf("%s 決済手数料（%s）", a.ServiceName, number)}
		b, err := f.PDF()
		return fmt.Sprintf("tekikaku-seikyusho-%d.pdf", p.ID), b, err
	}
	return "", nil, ErrNoReceipt
}

// ServePDF sends a generated PDF as a download that no cache keeps.
func ServePDF(c *echo.Context, name string, b []byte) error {
	h := c.Response().Header()
	h.Set("Content-Disposition", ContentDisposition(name))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "private, no-store")
	return c.Blob(http.StatusOK, "application/pdf", b)
}
