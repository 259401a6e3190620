package payments

import (
	"strconv"

	"github.com/labstack/echo/v5"

	"cardpay/pay"
)

// journeyFromFile starts a journey from one of the buyer's uploaded invoices (another
// buyer's file is 404): what its reading found, with the supplier's history merged in,
// fills the invoice form (each field marked as pre-filled), the supplier and account it matched are chosen, and a supplier it did not
// match is offered as a new one with the name and bank account it read.
func (h *Handler) journeyFromFile(c *echo.Context, buyerID, fileID int64) (journey, error) {
	ctx := c.Request().Context()
	f, err := h.Store.InvoiceFile(ctx, buyerID, fileID)
	if err != nil {
		return journey{}, err
	}
	j := journey{}
	j.FileID = f.ID
	m, ok, err := h.InvoiceFiles.FileMatch(ctx, buyerID, f)
	if err != nil || !ok {
		return j, err
	}
	// What is offered: the reading, with the supplier's history where it knows better
	// (invoicefiles.Match.Offered); each step says where each value came from (provenance.go).
	r := m.Offered.Fields
	mark := func(field string) { j.Prefilled = append(j.Prefilled, field) }
	if r.Total.Found && r.Total.Value > 0 {
		j.Invoice.Amount = strconv.FormatInt(r.Total.Value, 10)
		mark("amount")
	}
	if r.InvoiceDate.Found {
		j.Invoice.InvoiceDate = r.InvoiceDate.Value
		mark("invoice_date")
	}
	if r.DueDate.Found {
		j.Invoice.DueDate = r.DueDate.Value
		mark("due_date")
		if t, ok := pay.ParseDate(r.DueDate.Value); ok && !pay.DueDateUnmet(t, h.Now()) {
			j.Invoice.TransferDate = pay.ISODate(pay.DefaultTransferDate(h.Now(), &t))
		}
	}
	if r.RegistrationNumber.Found {
		j.Invoice.RegistrationNumber = r.RegistrationNumber.Value
		mark("registration_number")
	}
	if m.Supplier != nil {
		j.SupplierID = m.Supplier.ID
		if m.Account != nil {
			j.AccountID = m.Account.ID
		}
	} else if r.IssuerName.Found {
		j.NewSupplier.Name = r.IssuerName.Value
	}
	if m.Account == nil {
		j.NewAccount = pay.AccountInput{BankCode: m.BankCode, BranchCode: m.BranchCode}
		if r.AccountType.Found {
			j.NewAccount.AccountType = r.AccountType.Value
		}
		if r.AccountNumber.Found {
			j.NewAccount.AccountNumber = r.AccountNumber.Value
		}
		if r.AccountHolder.Found {
			j.NewAccount.HolderName = r.AccountHolder.Value
		}
	}
	return j, nil
}
