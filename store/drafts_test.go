package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/migrations"
	"cardpay/pay"
	"cardpay/store"
	"cardpay/store/storetest"
)

// A draft is read, replaced and deleted only by its buyer and only as its kind: another
// buyer's id, or a payment draft's id asked as a request draft's (and the reverse), is
// not found, and deleting it deletes nothing.
func TestDraftsAreScopedByBuyerAndKind(t *testing.T) {
	ctx := context.Background()
	a := newBuyer(t, "a@drafts.example", pay.Corporation)
	b := newBuyer(t, "b@drafts.example", pay.Corporation)
	now := time.Date(2026, 4, 1, 10, 0, 0, 0, pay.Tokyo())
	amount := int64(7000)

	pid, err := db.Store.SaveDraft(ctx, a.BuyerID, store.PaymentDraft, 0, []byte(`{"invoice":{"memo":"支払"}}`),
		store.DraftSummary{Counterparty: "仕入先", Amount: &amount, Step: "/payments/add/invoice"}, now)
	require.NoError(t, err)
	rid, err := db.Store.SaveDraft(ctx, a.BuyerID, store.RequestDraft, 0, []byte(`{"request":{"customer_name":"請求先"}}`),
		store.DraftSummary{Counterparty: "請求先", Step: "/collections/add/bank"}, now.Add(time.Minute))
	require.NoError(t, err)

	d, err := db.Store.Draft(ctx, a.BuyerID, store.PaymentDraft, pid)
	require.NoError(t, err)
	assert.Equal(t, store.PaymentDraft, d.Kind)
	assert.Equal(t, "仕入先", d.Counterparty)
	assert.Equal(t, &amount, d.Amount)
	assert.JSONEq(t, `{"invoice":{"memo":"支払"}}`, string(d.Data))

	for _, c := range []struct {
		name    string
		buyerID int64
		kind    store.DraftKind
		id      int64
	}{
		{"another buyer's payment draft", b.BuyerID, store.PaymentDraft, pid},
		{"another buyer's request draft", b.BuyerID, store.RequestDraft, rid},
		{"a payment draft as a request draft", a.BuyerID, store.RequestDraft, pid},
		{"a request draft as a payment draft", a.BuyerID, store.PaymentDraft, rid},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := db.Store.Draft(ctx, c.buyerID, c.kind, c.id)
			assert.ErrorIs(t, err, store.ErrNotFound)
			_, err = db.Store.SaveDraft(ctx, c.buyerID, c.kind, c.id, []byte(`{}`), store.DraftSummary{Counterparty: "上書き"}, now)
			assert.ErrorIs(t, err, store.ErrNotFound)
			byID, err := db.Store.DraftsByID(ctx, c.buyerID, c.kind, []int64{c.id})
			require.NoError(t, err)
			assert.Empty(t, byID)
			n, err := db.Store.DeleteDrafts(ctx, c.buyerID, c.kind, []int64{c.id})
			require.NoError(t, err)
			assert.Zero(t, n)
		})
	}

	byID, err := db.Store.DraftsByID(ctx, a.BuyerID, store.PaymentDraft, []int64{pid, rid, pid + rid + 1000})
	require.NoError(t, err)
	require.Len(t, byID, 1, "the buyer's drafts of the kind only")
	assert.Equal(t, pid, byID[0].ID)

	list, n, err := db.Store.Drafts(ctx, a.BuyerID, store.PaymentDraft, 0, 20)
	require.NoError(t, err)
	require.Equal(t, 1, n, "each kind lists its own drafts")
	assert.Equal(t, pid, list[0].ID)
	assert.Equal(t, "仕入先", list[0].Counterparty, "nothing was replaced")
	list, n, err = db.Store.Drafts(ctx, a.BuyerID, store.RequestDraft, 0, 20)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	assert.Equal(t, rid, list[0].ID)
	_, n, err = db.Store.Drafts(ctx, b.BuyerID, store.PaymentDraft, 0, 20)
	require.NoError(t, err)
	assert.Zero(t, n)

	counts, err := db.Store.PaymentCounts(ctx, a.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, 1, counts.Draft)
	cc, err := db.Store.CollectionCounts(ctx, a.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, 1, cc.Draft)

	n, err = db.Store.DeleteDrafts(ctx, a.BuyerID, store.RequestDraft, []int64{pid, rid})
	require.NoError(t, err)
	assert.Equal(t, 1, n, "only the request draft goes")
	_, err = db.Store.Draft(ctx, a.BuyerID, store.PaymentDraft, pid)
	assert.NoError(t, err)
}

// The migration to one drafts table keeps both old tables' rows (payment drafts with
// their ids, request drafts with new ones past every old id) and its Down gives them back.
func TestMigrateDraftsIntoOneTable(t *testing.T) {
	ctx := context.Background()
	d, err := storetest.New(ctx)
	require.NoError(t, err)
	defer d.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, d.Store.DB.DB, migrations.FS)
	require.NoError(t, err)
	_, err = p.DownTo(ctx, 18)
	require.NoError(t, err)

	u, err := d.Store.CreateBuyer(ctx, store.NewBuyer{BusinessForm: pay.Corporation, CorporateName: "移行株式会社",
		EmailAddress: "m@drafts.example", PasswordHash: "hash", LastName: "山田", FirstName: "太郎"})
	require.NoError(t, err)
	_, err = d.Store.DB.ExecContext(ctx, `INSERT INTO payment_drafts (id, buyer_id, data, supplier_name, amount, due_date, step)
		VALUES (5, $1, '{"invoice":{"memo":"a"}}', '仕入先', 1000, '2026-05-31', '/payments/add/invoice'),
		       (2, $1, '{}', '', NULL, NULL, '')`, u.BuyerID)
	require.NoError(t, err)
	_, err = d.Store.DB.ExecContext(ctx, `INSERT INTO invoice_request_drafts (buyer_id, data, customer_name, amount, deadline, step)
		VALUES ($1, '{"request":{"customer_name":"請求先"}}', '請求先', 2000, '2026-06-30', '/collections/add/bank')`, u.BuyerID)
	require.NoError(t, err)

	_, err = p.Up(ctx)
	require.NoError(t, err)
	got, err := d.Store.Draft(ctx, u.BuyerID, store.PaymentDraft, 5)
	require.NoError(t, err, "a payment draft keeps its id")
	assert.Equal(t, "仕入先", got.Counterparty)
	assert.Equal(t, "2026-05-31", pay.ISODate(*got.DueDate))
	_, n, err := d.Store.Drafts(ctx, u.BuyerID, store.PaymentDraft, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	reqs, n, err := d.Store.Drafts(ctx, u.BuyerID, store.RequestDraft, 0, 20)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	assert.Equal(t, int64(6), reqs[0].ID, "a request draft is numbered past every old id")
	assert.Equal(t, "請求先", reqs[0].Counterparty)
	assert.Equal(t, int64(2000), *reqs[0].Amount)
	next, err := d.Store.SaveDraft(ctx, u.BuyerID, store.PaymentDraft, 0, []byte(`{}`), store.DraftSummary{}, time.Now())
	require.NoError(t, err)
	assert.Equal(t, int64(7), next, "the sequence is past the copied ids")

	_, err = p.DownTo(ctx, 18)
	require.NoError(t, err)
	var payments, requests []struct {
		ID   int64  `db:"id"`
		Name string `db:"name"`
	}
	require.NoError(t, d.Store.DB.SelectContext(ctx, &payments, `SELECT id, supplier_name AS name FROM payment_drafts ORDER BY id`))
	require.NoError(t, d.Store.DB.SelectContext(ctx, &requests, `SELECT id, customer_name AS name FROM invoice_request_drafts ORDER BY id`))
	assert.Len(t, payments, 3)
	assert.Equal(t, int64(5), payments[1].ID)
	assert.Equal(t, "仕入先", payments[1].Name)
	require.Len(t, requests, 1)
	assert.Equal(t, "請求先", requests[0].Name)
	var nextPayment int64
	require.NoError(t, d.Store.DB.GetContext(ctx, &nextPayment, `INSERT INTO payment_drafts (buyer_id, data) VALUES ($1, '{}') RETURNING id`, u.BuyerID))
	assert.Equal(t, int64(8), nextPayment, "the restored sequence goes on past every id")

	_, err = p.Up(ctx)
	require.NoError(t, err, "and up again")
}
