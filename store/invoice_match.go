package store

import (
	"context"
	"fmt"
)

// InvoiceMatchCandidate is one of the buyer's suppliers with its bank accounts: what an
// uploaded invoice's reading is matched against (invoiceread.Match, through
// invoicefiles.Service.FileMatch). The suppliers table keeps no invoice registration
// number (T + 13 digits): a corporation's is T and its corporate number, which Match
// tries; a sole proprietor's is not kept, so it cannot be matched.
type InvoiceMatchCandidate struct {
	Supplier
	Accounts []SupplierAccount
}

// InvoiceMatchCandidates lists the buyer's suppliers that are not deleted (rejected ones
// too: an invoice from one is still from a supplier the buyer registered), oldest first,
// each with its accounts oldest first. Two queries, whatever the number of suppliers.
func (s *Store) InvoiceMatchCandidates(ctx context.Context, buyerID int64) ([]InvoiceMatchCandidate, error) {
	var sups []Supplier
	if err := s.DB.SelectContext(ctx, &sups, `SELECT `+supplierColumns+` FROM suppliers
		WHERE buyer_id = $1 AND deleted_at IS NULL ORDER BY id`, buyerID); err != nil {
		return nil, fmt.Errorf("store: invoice match candidates of buyer %d: %w", buyerID, err)
	}
	out := make([]InvoiceMatchCandidate, len(sups))
	if len(sups) == 0 {
		return out, nil
	}
	at := make(map[int64]int, len(sups))
	for i, sp := range sups {
		out[i].Supplier = sp
		at[sp.ID] = i
	}
	var accts []SupplierAccount
	if err := s.DB.SelectContext(ctx, &accts, `SELECT `+accountColumns+` FROM supplier_accounts
		WHERE buyer_id = $1 AND supplier_id IN
		(SELECT id FROM suppliers WHERE buyer_id = $1 AND deleted_at IS NULL)
		ORDER BY supplier_id, id`, buyerID); err != nil {
		return nil, fmt.Errorf("store: invoice match accounts of buyer %d: %w", buyerID, err)
	}
	for _, a := range accts {
		// A supplier deleted between the two queries has no entry: its accounts are left out.
		if i, ok := at[a.SupplierID]; ok {
			out[i].Accounts = append(out[i].Accounts, a)
		}
	}
	return out, nil
}
