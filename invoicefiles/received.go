package invoicefiles

import (
	"context"

	"github.com/jmoiron/sqlx"

	"cardpay/store"
)

// Receive saves up as Save does and records it as a received invoice of the buyer
// (issue 29) in the same transaction: the file, its reading's job and where it came
// from are written together or not at all. A refusal (pay.CheckInvoiceFile) stores
// nothing and is returned as the message.
func (s *Service) Receive(ctx context.Context, buyerID int64, up Upload, from store.NewReceivedInvoice) (id int64, problem string, err error) {
	return s.ReceiveAlso(ctx, buyerID, up, from, nil)
}

// ReceiveAlso is Receive with also run in the same transaction after the record (a
// supplier's upload link counting its use: a link revoked meanwhile fails also, and
// nothing is kept).
func (s *Service) ReceiveAlso(ctx context.Context, buyerID int64, up Upload, from store.NewReceivedInvoice, also func(tx *sqlx.Tx) error) (id int64, problem string, err error) {
	_, problem, err = s.save(ctx, buyerID, up, func(tx *sqlx.Tx, f store.InvoiceFile) error {
		var err error
		if id, err = s.Store.CreateReceivedInvoice(ctx, tx, f, from); err != nil || also == nil {
			return err
		}
		return also(tx)
	})
	return id, problem, err
}
