package receipts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cardpay/pay"
	"cardpay/store"
)

// A transferred payment's two receipts: the pages serve them to the buyer signed in; the
// API answers short-lived signed URLs to them. Service finds the payment's facts in the
// store, draws the PDF, and signs and checks those URLs.

// Receipt kinds, in paths and signed URLs.
const (
	StatementKind  = "statement"
	FeeInvoiceKind = "fee-invoice"
)

// Kinds in the order the pages list them.
var Kinds = []string{StatementKind, FeeInvoiceKind}

// ErrNoReceipt: the payment has no receipts (not transferred yet, or another buyer's).
var ErrNoReceipt = errors.New("receipts: no receipt for this payment")

// SignedPath is where the API serves a signed receipt URL: kind, then the token.
const SignedPath = "/api/v1/invoices/receipts/signed_download/"

// URLTTL is how long a signed receipt URL works (as long as a file's download URL).
const URLTTL = 5 * time.Minute

// URLSigner makes and checks the app's signed URL tokens (files.Signer): the purpose,
// the buyer, the payment and the expiry are bound by an HMAC of SECRET_KEY.
type URLSigner interface {
	Sign(purpose string, buyerID, id int64, expires time.Time) string
	Verify(purpose, token string, now time.Time) (buyerID, id int64, err error)
}

// Service makes the receipts of the buyers' transferred payments.
type Service struct {
	Store  *store.Store
	Signer URLSigner
	// ServiceName heads both receipts; IssuerName and IssuerRegistrationNumber print on
	// the fee's qualified invoice.
	ServiceName              string
	IssuerName               string
	IssuerRegistrationNumber string
	// Now is the time; tests move it. nil is time.Now.
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// URL is a signed, root-relative URL of one receipt, working until the time returned
// (URLTTL).
func (s *Service) URL(buyerID, id int64, kind string) (string, time.Time) {
	exp := s.now().Add(URLTTL)
	return SignedPath + kind + "/" + s.Signer.Sign("receipt-"+kind, buyerID, id, exp), exp
}

// VerifyURL checks a signed receipt token of kind.
func (s *Service) VerifyURL(kind, token string) (buyerID, id int64, err error) {
	if kind != StatementKind && kind != FeeInvoiceKind {
		return 0, 0, ErrNoReceipt
	}
	return s.Signer.Verify("receipt-"+kind, token, s.now())
}

// PDF renders one receipt of the buyer's transferred payment, with its file name.
func (s *Service) PDF(ctx context.Context, buyerID, id int64, kind string) (string, []byte, error) {
	p, err := s.Store.Payment(ctx, buyerID, id)
	if err != nil {
		return "", nil, err
	}
	if p.ExaminationStatus != pay.TransferCompleted {
		return "", nil, ErrNoReceipt
	}
	facts, err := s.Store.ReceiptFactsOf(ctx, buyerID, id)
	if err != nil {
		return "", nil, err
	}
	issued := s.now()
	if facts.TransferredAt != nil {
		issued = *facts.TransferredAt
	}
	number := pay.InvoiceNumber(p.ID)
	switch kind {
	case StatementKind:
		st := Statement{ServiceName: s.ServiceName, IssuedAt: issued, Number: number, BuyerName: facts.BuyerName,
			SupplierName: p.SupplierName, InvoiceNumber: p.InvoiceNumber, InvoiceDate: p.InvoiceDate, DueDate: p.DueDate,
			Amount: p.Amount, Fee: p.Fee, Total: p.Total(), CapturedAt: facts.CapturedAt}
		if p.TransferDate != nil {
			st.TransferDate = *p.TransferDate
		}
		if p.AccountID != nil {
			acct, err := s.Store.SupplierAccount(ctx, buyerID, p.SupplierID, *p.AccountID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return "", nil, err
			}
			st.BankName, st.BranchName, st.AccountType = acct.BankName, acct.BranchName, acct.AccountType.Label()
			st.AccountNumber, st.HolderName = acct.AccountNumber, acct.HolderName
		}
		if p.CardID != nil {
			if card, err := s.Store.CardAny(ctx, buyerID, *p.CardID); err == nil {
				st.CardLabel = string(card.Brand) + " •••• " + card.Last4
			}
		}
		b, err := st.PDF()
		return fmt.Sprintf("shiharai-meisai-%d.pdf", p.ID), b, err
	case FeeInvoiceKind:
		f := FeeInvoice{ServiceName: s.ServiceName, IssuerName: s.IssuerName, RegistrationNumber: s.IssuerRegistrationNumber,
			IssuedAt: issued, Number: number, BuyerName: facts.BuyerName, Fee: p.Fee,
			Description: fmt.Sprintf("%s 決済手数料（%s）", s.ServiceName, number)}
		b, err := f.PDF()
		return fmt.Sprintf("tekikaku-seikyusho-%d.pdf", p.ID), b, err
	}
	return "", nil, ErrNoReceipt
}
