package invoicefiles

import (
	"context"
	"encoding/json"
	"log/slog"

	"cardpay/banks"
	"cardpay/invoiceread"
	"cardpay/store"
)

// The invoice-file match the file page and GET /api/v1/invoices/files/{id} share (issue
// 11): what the OCR job read (invoiceread.Fields, stored as JSON on the file), matched
// with invoiceread.Match against the buyer's own suppliers and accounts
// (store.InvoiceMatchCandidates, scoped by buyer) and the zengin data, with the names a
// person reads. It is computed when asked, so that a supplier registered after the upload
// is found the next time the file is looked at, and a payment made since teaches the
// file's offer.

// Match is what an invoice's reading matched. The embedded MatchResult holds the ids,
// codes and reasons (zero and empty where nothing matched); Supplier and Account are the
// matched rows, BankName and BranchName the zengin names of the matched codes.
//
// The match is made with what is offered (issue 28, learn per supplier): the reading with
// the history of the issuer's supplier merged in (invoiceread.Suggest over
// store.SupplierHistories, the buyer's own), so that the account and holder the buyer paid
// last time come first.
type Match struct {
	invoiceread.MatchResult
	// Read is what the invoice says, for saying what was not found.
	Read invoiceread.Fields
	// Offered is what pre-fills the payment, each field with its source (the reading, the
	// supplier's history, or both agreeing) and its confidence.
	Offered    invoiceread.Offered
	Supplier   *store.Supplier
	Account    *store.SupplierAccount
	BankName   string
	BranchName string
}

// FileMatch matches the reading of f, one of buyerID's files. ok is false when there is
// nothing to match: the reading is not done, or its stored fields do not decode (a file
// read by an older version); only a failing query is an error.
func (s *Service) FileMatch(ctx context.Context, buyerID int64, f store.InvoiceFile) (m Match, ok bool, err error) {
	if f.BuyerID != buyerID || f.OCRStatus != store.OCRDone || len(f.OCRFields) == 0 {
		return Match{}, false, nil
	}
	var read invoiceread.Fields
	if json.Unmarshal(f.OCRFields, &read) != nil {
		return Match{}, false, nil
	}
	cands, err := s.Store.InvoiceMatchCandidates(ctx, buyerID)
	if err != nil {
		return Match{}, false, err
	}
	hs, err := s.Store.SupplierHistories(ctx, buyerID)
	if err != nil {
		return Match{}, false, err
	}
	offered, result := invoiceread.Suggest(read, matchCandidates(cands), histories(hs))
	m = Match{Read: read, Offered: offered, MatchResult: result}
	for i := range cands {
		c := &cands[i]
		if c.ID != m.SupplierID {
			continue
		}
		m.Supplier = &c.Supplier
		for j := range c.Accounts {
			if c.Accounts[j].ID == m.AccountID {
				m.Account = &c.Accounts[j]
			}
		}
	}
	if b, found := banks.ByCode(m.BankCode); found && m.BankCode != "" {
		m.BankName = b.Name
		if br, found := banks.BranchByCode(m.BankCode, m.BranchCode); found && m.BranchCode != "" {
			m.BranchName = br.Name
		}
	}
	return m, true, nil
}

// matchCandidates is the store's rows in invoiceread's terms. The suppliers table keeps
// no registration number: Match tries T and the corporate number instead.
func matchCandidates(cands []store.InvoiceMatchCandidate) invoiceread.Candidates {
	out := invoiceread.Candidates{Suppliers: make([]invoiceread.Supplier, 0, len(cands))}
	for _, c := range cands {
		s := invoiceread.Supplier{ID: c.ID, CorporateNumber: c.CorporateNumber}
		for _, n := range []string{c.Name, c.BusinessName, c.NameKana} {
			if n != "" {
				s.Names = append(s.Names, n)
			}
		}
		for _, acct := range c.Accounts {
			s.Accounts = append(s.Accounts, invoiceread.Account{
				ID: acct.ID, BankCode: acct.BankCode, BranchCode: acct.BranchCode, Type: acct.AccountType,
				Number: acct.AccountNumber, Holder: acct.HolderName,
			})
		}
		out.Suppliers = append(out.Suppliers, s)
	}
	return out
}

// histories are the store's rows in invoiceread's terms.
func histories(rows []store.SupplierHistory) []invoiceread.History {
	out := make([]invoiceread.History, len(rows))
	for i, h := range rows {
		out[i] = invoiceread.History{
			SupplierID: h.SupplierID, CorporateNumber: h.CorporateNumber, Corrected: h.Corrected,
			Remembered: invoiceread.Remembered{
				IssuerName: h.IssuerName, RegistrationNumber: h.RegistrationNumber,
				BankCode: h.BankCode, BankName: h.BankName, BranchCode: h.BranchCode, BranchName: h.BranchName,
				AccountType: h.AccountType, AccountNumber: h.AccountNumber, AccountHolder: h.HolderName,
			},
		}
	}
	return out
}

// knownPlaces answers, for an invoice of buyerID read so far, where the issuer's last
// paid invoice printed its changing values (store.SupplierHistory.Places of the supplier
// invoiceread.IssuerHistory finds): the OCR job reads a missed amount or date there. A
// failing query guides nothing; the reading goes on as it is.
func knownPlaces(ctx context.Context, st *store.Store, buyerID int64, log *slog.Logger) func(invoiceread.Fields) []invoiceread.Place {
	return func(read invoiceread.Fields) []invoiceread.Place {
		hs, err := st.SupplierHistories(ctx, buyerID)
		if err != nil || len(hs) == 0 {
			if err != nil {
				log.Warn("supplier histories not read: no learned places", "error", err)
			}
			return nil
		}
		cands, err := st.InvoiceMatchCandidates(ctx, buyerID)
		if err != nil {
			log.Warn("match candidates not read: no learned places", "error", err)
			return nil
		}
		h, ok := invoiceread.IssuerHistory(read, matchCandidates(cands), histories(hs))
		if !ok {
			return nil
		}
		// Only the issuer's places are decoded (the file page's match needs none).
		var places []invoiceread.Place
		for _, row := range hs {
			if row.SupplierID == h.SupplierID && len(row.Places) > 0 {
				_ = json.Unmarshal(row.Places, &places) // places that do not decode guide nothing
			}
		}
		return places
	}
}
