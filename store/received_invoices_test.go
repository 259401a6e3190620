package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cardpay/pay"
	"cardpay/store"
)

var receivedSeq int

// receive stores a file as a received invoice of u's buyer, with fields as its reading
// (JSON of invoiceread.Fields' shape; "" reads nothing).
func receive(t *testing.T, u store.User, fields string) store.ReceivedInvoice {
	return receiveFile(t, u, fields, "")
}

// receiveFile is receive with the file's SHA-256 given (the same bytes sent again).
func receiveFile(t *testing.T, u store.User, fields, sameFile string) store.ReceivedInvoice {
	t.Helper()
	ctx := context.Background()
	receivedSeq++
	var id int64
	nf := newInvoiceFile(1000 + receivedSeq)
	nf.SHA256 = strings.Repeat("c", 60) + fmt.Sprintf("%04x", receivedSeq) // its own bytes; no run of digits (storetest scans for card numbers)
	if sameFile != "" {
		nf.SHA256 = sameFile
	}
	f, err := db.Store.CreateInvoiceFile(ctx, u.BuyerID, nf, func(tx *sqlx.Tx, f store.InvoiceFile) error {
		var err error
		id, err = db.Store.CreateReceivedInvoice(ctx, tx, f, store.NewReceivedInvoice{Source: store.ReceivedByUpload,
			UserID: u.ID, Actor: "山田 太郎"})
		return err
	})
	require.NoError(t, err)
	if fields != "" {
		require.NoError(t, db.Store.SetInvoiceFileOCR(ctx, u.BuyerID, f.ID, store.InvoiceFileOCR{Status: store.OCRDone, Fields: []byte(fields)}))
	}
	r, err := db.Store.ReceivedInvoice(ctx, u.BuyerID, id)
	require.NoError(t, err)
	return r
}

func reading(issuer, date string, total int64) string {
	return fmt.Sprintf(`{"issuer_name": {"value": %q, "found": true}, "invoice_date": {"value": %q, "found": true},
		"total": {"value": %d, "found": true}, "registration_number": {"value": "T9234567890123", "found": true}}`, issuer, date, total)
}

// 電子帳簿保存法: a received invoice, its file and its history cannot be deleted, emptied
// or rewritten, whatever code runs the statement; nor can its buyer be deleted.
func TestReceivedInvoicesAreKept(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "kept@received.example", pay.Corporation)
	r := receive(t, u, "")
	assert.Equal(t, pay.RetainUntil(r.ReceivedAt).Format(time.DateOnly), r.RetainUntil.Format(time.DateOnly))
	for _, q := range []string{
		fmt.Sprintf(`DELETE FROM received_invoices WHERE id = %d`, r.ID),
		fmt.Sprintf(`DELETE FROM invoice_files WHERE id = %d`, r.FileID),
		fmt.Sprintf(`UPDATE received_invoices SET source = 'mail' WHERE id = %d`, r.ID),
		fmt.Sprintf(`UPDATE received_invoices SET retain_until = retain_until - 1 WHERE id = %d`, r.ID),
		fmt.Sprintf(`UPDATE invoice_files SET sha256 = repeat('cd', 32) WHERE id = %d`, r.FileID),
		fmt.Sprintf(`UPDATE received_invoice_events SET actor = 'x' WHERE received_invoice_id = %d`, r.ID),
		fmt.Sprintf(`DELETE FROM received_invoice_events WHERE received_invoice_id = %d`, r.ID),
		`TRUNCATE received_invoices CASCADE`,
		`TRUNCATE received_invoice_events`,
		`TRUNCATE invoice_files CASCADE`,
		fmt.Sprintf(`DELETE FROM buyers WHERE id = %d`, u.BuyerID),
	} {
		_, err := db.Store.DB.ExecContext(ctx, q)
		assert.Error(t, err, q)
	}
	// Kept to the day: a row whose retention ended could go (none can be made so here:
	// the check keeps retain_until at least seven years on).
	_, err := db.Store.DB.ExecContext(ctx, `UPDATE received_invoices SET retain_until = '2020-01-01' WHERE id = $1`, r.ID)
	assert.Error(t, err)
	again, err := db.Store.ReceivedInvoice(ctx, u.BuyerID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, r.SHA256, again.SHA256)
	events, err := db.Store.ReceivedInvoiceEvents(ctx, u.BuyerID, r.ID)
	require.NoError(t, err)
	require.Len(t, events, 1)
	assert.Equal(t, "received", events[0].Kind)
	assert.Equal(t, "山田 太郎", events[0].Actor)
}

// The lists' state in SQL (received_invoice_views) is pay.ReceivedStateOf: every
// disposition with no payment and with a payment in each status.
func TestReceivedInvoiceStateIsTheRule(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "states@received.example", pay.Corporation)
	sup, err := db.Store.CreateSupplier(ctx, u.BuyerID, corpSupplier("状態商事株式会社"), nil)
	require.NoError(t, err)
	cases := [][]pay.ExaminationStatus{nil}
	for s := pay.InProgress; s <= pay.Expired; s++ {
		if s != pay.BuyerNotRegistered && s != pay.WaitingForPayment {
			cases = append(cases, []pay.ExaminationStatus{s})
		}
	}
	// Two payments from one file: paid once is paid, whatever came after.
	cases = append(cases, []pay.ExaminationStatus{pay.TransferCompleted, pay.Cancel}, []pay.ExaminationStatus{pay.Cancel, pay.InProgress})
	n := 0
	for _, d := range []pay.Disposition{pay.DispositionOpen, pay.DispositionPaidElsewhere, pay.DispositionNotToPay} {
		for _, payments := range cases {
			r := receive(t, u, "")
			if d != pay.DispositionOpen {
				require.NoError(t, db.Store.MarkReceivedInvoice(ctx, u.BuyerID, r.ID, pay.DispositionOpen, d, "理由", u.ID, "山田 太郎"))
			}
			for _, st := range payments {
				id, err := db.Store.CreateInvoice(ctx, u.BuyerID, store.NewInvoice{SupplierID: sup.ID, InvoiceType: pay.InvoicePayment,
					ExaminationStatus: st, Amount: 5000})
				require.NoError(t, err)
				_, err = db.Store.DB.ExecContext(ctx, `UPDATE invoices SET file_id = $1 WHERE id = $2`, r.FileID, id)
				require.NoError(t, err)
			}
			got, err := db.Store.ReceivedInvoice(ctx, u.BuyerID, r.ID)
			require.NoError(t, err)
			assert.Equal(t, pay.ReceivedStateOf(d, payments), got.State, "%s %v", d, payments)
			if len(payments) > 0 {
				assert.Equal(t, "状態商事株式会社", got.KeyCounterparty, "the paid supplier names the counterparty")
			}
			n++
		}
	}
	counts, err := db.Store.ReceivedInvoiceCounts(ctx, u.BuyerID)
	require.NoError(t, err)
	total := 0
	for _, c := range counts {
		total += c
	}
	assert.Equal(t, n, total)
	// The tabs' counts (their own query) are the view's states.
	all, _, err := db.Store.ReceivedInvoices(ctx, store.ReceivedFilter{BuyerID: u.BuyerID, Size: 1000})
	require.NoError(t, err)
	byView := map[pay.ReceivedState]int{}
	for _, r := range all {
		byView[r.State]++
	}
	assert.Equal(t, byView, counts)
	// The header's count (store.Stats, an anti-join) is the view's 新着.
	st, err := db.Store.Stats(ctx, u.BuyerID)
	require.NoError(t, err)
	assert.Equal(t, counts[pay.ReceivedNew], st.ReceivedNewCount)
	t.Logf("%d dispositions × payments: SQL and pay.ReceivedStateOf agree; counts %v; stats' new %d", n, counts, st.ReceivedNewCount)
}

// The search 電子帳簿保存法 asks for: 取引年月日 in a range, 取引金額 in a range and 取引先,
// alone or combined; a correction is searched by its corrected value; another buyer's
// invoices are never found.
func TestReceivedInvoiceSearch(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "search@received.example", pay.Corporation)
	other := newBuyer(t, "search-other@received.example", pay.Corporation)
	a := receive(t, u, reading("株式会社青葉産業", "2026-04-10", 110000))
	b := receive(t, u, reading("株式会社青葉産業", "2026-05-20", 55000))
	c := receive(t, u, reading("有限会社松風商会", "2026-05-25", 110000))
	d := receive(t, u, "") // nothing read: found by no key until corrected
	receive(t, other, reading("株式会社青葉産業", "2026-04-10", 110000))
	day := func(s string) time.Time { v, _ := time.Parse(time.DateOnly, s); return v }

	ids := func(f store.ReceivedFilter) []int64 {
		f.BuyerID, f.Size = u.BuyerID, 50
		list, total, err := db.Store.ReceivedInvoices(ctx, f)
		require.NoError(t, err)
		out := []int64{}
		for _, r := range list {
			out = append(out, r.ID)
		}
		assert.Equal(t, len(out), total)
		return out
	}
	tests := []struct {
		name string
		f    store.ReceivedFilter
		want []int64
	}{
		{"all, newest first", store.ReceivedFilter{}, []int64{d.ID, c.ID, b.ID, a.ID}},
		{"a date range", store.ReceivedFilter{From: day("2026-05-01"), To: day("2026-05-31")}, []int64{c.ID, b.ID}},
		{"the range's days included", store.ReceivedFilter{From: day("2026-04-10"), To: day("2026-05-20")}, []int64{b.ID, a.ID}},
		{"an amount range", store.ReceivedFilter{Min: 100000, Max: 110000}, []int64{c.ID, a.ID}},
		{"an amount exactly", store.ReceivedFilter{Min: 55000, Max: 55000}, []int64{b.ID}},
		{"a counterparty", store.ReceivedFilter{Counterparty: "青葉"}, []int64{b.ID, a.ID}},
		{"date and amount", store.ReceivedFilter{From: day("2026-05-01"), Min: 100000}, []int64{c.ID}},
		{"all three", store.ReceivedFilter{From: day("2026-04-01"), To: day("2026-04-30"), Min: 1, Max: 200000, Counterparty: "青葉産業"}, []int64{a.ID}},
		{"LIKE's characters are themselves", store.ReceivedFilter{Counterparty: "%"}, []int64{}},
		{"a state's list", store.ReceivedFilter{State: pay.ReceivedNew}, []int64{d.ID, c.ID, b.ID, a.ID}},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, ids(tc.f), tc.name)
	}

	// d corrected: found by its corrected values, the reading's gone from b's keys.
	amt := int64(77000)
	when := day("2026-06-01")
	require.NoError(t, db.Store.CorrectReceivedInvoice(ctx, u.BuyerID, d.ID, d.Keys(),
		store.ReceivedKeys{TransactionDate: &when, Amount: &amt, Counterparty: "合同会社海鳴テクノロジー"}, u.ID, "山田 太郎"))
	assert.Equal(t, []int64{d.ID}, ids(store.ReceivedFilter{From: day("2026-06-01"), Min: 70000, Max: 80000, Counterparty: "海鳴"}))
	// A correction made from a stale page writes nothing.
	err := db.Store.CorrectReceivedInvoice(ctx, u.BuyerID, d.ID, d.Keys(), store.ReceivedKeys{Counterparty: "別名"}, u.ID, "山田 太郎")
	require.ErrorIs(t, err, store.ErrReceivedChanged)
	events, err := db.Store.ReceivedInvoiceEvents(ctx, u.BuyerID, d.ID)
	require.NoError(t, err)
	require.Len(t, events, 2)
	assert.Equal(t, "corrected", events[1].Kind)
	assert.JSONEq(t, `{"transaction_date": null, "due_date": null, "amount": null, "counterparty": "", "registration_number": "", "invoice_number": ""}`, string(events[1].Before))
	assert.Contains(t, string(events[1].After), "海鳴")

	// Another buyer's: not found, not markable, not correctable.
	_, err = db.Store.ReceivedInvoice(ctx, other.BuyerID, a.ID)
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorIs(t, db.Store.MarkReceivedInvoice(ctx, other.BuyerID, a.ID, pay.DispositionOpen, pay.DispositionNotToPay, "x", other.ID, "他人"), store.ErrReceivedChanged)
	require.ErrorIs(t, db.Store.CorrectReceivedInvoice(ctx, other.BuyerID, a.ID, a.Keys(), store.ReceivedKeys{Counterparty: "x"}, other.ID, "他人"), store.ErrNotFound)
	events, err = db.Store.ReceivedInvoiceEvents(ctx, other.BuyerID, a.ID)
	require.NoError(t, err)
	assert.Empty(t, events)
}

// A mark is a conditional update: from the disposition the buyer saw, and never over a
// payment made here.
func TestMarkReceivedInvoice(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "mark@received.example", pay.Corporation)
	r := receive(t, u, "")
	require.NoError(t, db.Store.MarkReceivedInvoice(ctx, u.BuyerID, r.ID, pay.DispositionOpen, pay.DispositionNotToPay, "二重請求", u.ID, "山田 太郎"))
	// The same mark again from the page seen before: refused, nothing written.
	require.ErrorIs(t, db.Store.MarkReceivedInvoice(ctx, u.BuyerID, r.ID, pay.DispositionOpen, pay.DispositionPaidElsewhere, "", u.ID, "山田 太郎"), store.ErrReceivedChanged)
	got, err := db.Store.ReceivedInvoice(ctx, u.BuyerID, r.ID)
	require.NoError(t, err)
	assert.Equal(t, pay.ReceivedSetAside, got.State)
	assert.Equal(t, "二重請求", got.DispositionReason)
	// A payment in screening: no mark at all.
	sup, err := db.Store.CreateSupplier(ctx, u.BuyerID, corpSupplier("印商事株式会社"), nil)
	require.NoError(t, err)
	id, err := db.Store.CreateInvoice(ctx, u.BuyerID, store.NewInvoice{SupplierID: sup.ID, InvoiceType: pay.InvoicePayment,
		ExaminationStatus: pay.InProgress, Amount: 5000})
	require.NoError(t, err)
	_, err = db.Store.DB.ExecContext(ctx, `UPDATE invoices SET file_id = $1 WHERE id = $2`, r.FileID, id)
	require.NoError(t, err)
	require.ErrorIs(t, db.Store.MarkReceivedInvoice(ctx, u.BuyerID, r.ID, pay.DispositionNotToPay, pay.DispositionOpen, "", u.ID, "山田 太郎"), store.ErrReceivedChanged)
	events, err := db.Store.ReceivedInvoiceEvents(ctx, u.BuyerID, r.ID)
	require.NoError(t, err)
	require.Len(t, events, 2)
	assert.Equal(t, "marked", events[1].Kind)
}

// The same registration and invoice number, or the same counterparty, amount and date:
// flagged, in the buyer's own invoices only.
func TestReceivedInvoiceDuplicates(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "dup@received.example", pay.Corporation)
	other := newBuyer(t, "dup-other@received.example", pay.Corporation)
	a := receive(t, u, reading("株式会社青葉産業", "2026-04-10", 110000))
	b := receive(t, u, reading("株式会社青葉産業", "2026-04-10", 110000)) // the same, sent twice
	c := receive(t, u, reading("株式会社青葉産業", "2026-04-11", 110000)) // another day
	receive(t, other, reading("株式会社青葉産業", "2026-04-10", 110000))
	dups, err := db.Store.ReceivedInvoiceDuplicates(ctx, b)
	require.NoError(t, err)
	require.Len(t, dups, 1)
	assert.Equal(t, a.ID, dups[0].ID)
	dups, err = db.Store.ReceivedInvoiceDuplicates(ctx, c)
	require.NoError(t, err)
	assert.Empty(t, dups)
	// The same file sent again, nothing read from either: its bytes say.
	x := receive(t, u, "")
	y := receiveFile(t, u, "", x.SHA256)
	dups, err = db.Store.ReceivedInvoiceDuplicates(ctx, y)
	require.NoError(t, err)
	require.Len(t, dups, 1)
	assert.Equal(t, x.ID, dups[0].ID)
	// c given the same invoice number as a: the registration number and it match.
	for _, r := range []store.ReceivedInvoice{a, c} {
		require.NoError(t, db.Store.CorrectReceivedInvoice(ctx, u.BuyerID, r.ID, r.Keys(), store.ReceivedKeys{InvoiceNumber: "INV-001"}, u.ID, "山田 太郎"))
	}
	c, err = db.Store.ReceivedInvoice(ctx, u.BuyerID, c.ID)
	require.NoError(t, err)
	dups, err = db.Store.ReceivedInvoiceDuplicates(ctx, c)
	require.NoError(t, err)
	require.Len(t, dups, 1)
	assert.Equal(t, a.ID, dups[0].ID)
}

// A card payment made here from another file that is the same invoice — the same bytes,
// the same registration and invoice number, or the same supplier, amount and invoice
// date — is flagged; one cancelled, one made from this file, or another buyer's is not.
func TestReceivedInvoicePaymentDuplicates(t *testing.T) {
	ctx := context.Background()
	u := newBuyer(t, "paydup@received.example", pay.Corporation)
	other := newBuyer(t, "paydup-other@received.example", pay.Corporation)
	sup, err := db.Store.CreateSupplier(ctx, u.BuyerID, corpSupplier("株式会社青葉産業"), nil)
	require.NoError(t, err)
	osup, err := db.Store.CreateSupplier(ctx, other.BuyerID, corpSupplier("株式会社青葉産業"), nil)
	require.NoError(t, err)
	r := receive(t, u, reading("株式会社青葉産業", "2026-04-10", 110000))
	pay1 := func(buyer store.User, supplierID int64, st pay.ExaminationStatus, amount int64, set string, args ...any) int64 {
		id, err := db.Store.CreateInvoice(ctx, buyer.BuyerID, store.NewInvoice{SupplierID: supplierID, InvoiceType: pay.InvoicePayment,
			ExaminationStatus: st, Amount: amount})
		require.NoError(t, err)
		if set != "" {
			_, err = db.Store.DB.ExecContext(ctx, `UPDATE invoices SET `+set+` WHERE id = $1`, append([]any{id}, args...)...)
			require.NoError(t, err)
		}
		return id
	}
	same := pay1(u, sup.ID, pay.InProgress, 110000, `invoice_date = '2026-04-10'`)
	pay1(u, sup.ID, pay.Cancel, 110000, `invoice_date = '2026-04-10'`)                             // cancelled: counts for nothing
	pay1(u, sup.ID, pay.InProgress, 110000, `invoice_date = '2026-04-11'`)                         // another day
	pay1(u, sup.ID, pay.InProgress, 110000, `invoice_date = '2026-04-10', file_id = $2`, r.FileID) // its own payment
	pay1(other, osup.ID, pay.InProgress, 110000, `invoice_date = '2026-04-10'`)                    // another buyer's
	dups, err := db.Store.ReceivedInvoicePaymentDuplicates(ctx, r)
	require.NoError(t, err)
	require.Len(t, dups, 1)
	assert.Equal(t, same, dups[0].ID)
	assert.Equal(t, "株式会社青葉産業", dups[0].SupplierName)

	// The same bytes paid from another upload, nothing read.
	x := receive(t, u, "")
	y := receiveFile(t, u, "", x.SHA256)
	bytesSame := pay1(u, sup.ID, pay.TransferCompleted, 5000, `file_id = $2`, y.FileID)
	dups, err = db.Store.ReceivedInvoicePaymentDuplicates(ctx, x)
	require.NoError(t, err)
	require.Len(t, dups, 1)
	assert.Equal(t, bytesSame, dups[0].ID)

	// The registration and invoice number.
	z := receive(t, u, "")
	require.NoError(t, db.Store.CorrectReceivedInvoice(ctx, u.BuyerID, z.ID, z.Keys(),
		store.ReceivedKeys{RegistrationNumber: "T1234567890123", InvoiceNumber: "INV-9"}, u.ID, "山田 太郎"))
	z, err = db.Store.ReceivedInvoice(ctx, u.BuyerID, z.ID)
	require.NoError(t, err)
	numbered := pay1(u, sup.ID, pay.InProgressExaminationChecked, 7000, `registration_number = 'T1234567890123', invoice_number = 'INV-9'`)
	dups, err = db.Store.ReceivedInvoicePaymentDuplicates(ctx, z)
	require.NoError(t, err)
	require.Len(t, dups, 1)
	assert.Equal(t, numbered, dups[0].ID)
}

// BenchmarkReceivedInvoiceCounts: the area's tabs for a buyer with 5,000 received
// invoices (a tenth of them paid from their file), by the counts' own query and, for
// comparison, by the view's state. go test ./store -run '^$' -bench ReceivedInvoiceCounts
func BenchmarkReceivedInvoiceCounts(b *testing.B) {
	ctx := context.Background()
	var u store.User
	{
		t := &testing.T{}
		u = newBuyer(t, fmt.Sprintf("bench-%d@received.example", time.Now().UnixNano()%1e6), pay.Corporation)
	}
	sup, err := db.Store.CreateSupplier(ctx, u.BuyerID, corpSupplier("株式会社計測"), nil)
	require.NoError(b, err)
	_, err = db.Store.DB.ExecContext(ctx, `WITH f AS (
		INSERT INTO invoice_files (buyer_id, storage_key, original_name, size, media_type, sha256, pages, ocr_status, ocr_fields)
		SELECT $1, 'invoices/bench/' || g, 'bench.pdf', 10, 'application/pdf', md5(g::text) || md5(g::text), 1, 'done',
			'{"total": {"found": true, "value": "110000"}, "invoice_date": {"found": true, "value": "2026-04-10"}}'
		FROM generate_series(1, 5000) g RETURNING id, created_at)
		INSERT INTO received_invoices (buyer_id, file_id, source, retain_until, received_at)
		SELECT $1, id, 'upload', (created_at + interval '9 years')::date, created_at FROM f`, u.BuyerID)
	require.NoError(b, err)
	_, err = db.Store.DB.ExecContext(ctx, `INSERT INTO invoices (buyer_id, supplier_id, invoice_type, examination_status, amount, file_id, submitted_at)
		SELECT $1, $2, 1, 4, 110000, file_id, now() FROM received_invoices WHERE buyer_id = $1 AND id % 10 = 0`, u.BuyerID, sup.ID)
	require.NoError(b, err)
	_, err = db.Store.DB.ExecContext(ctx, `ANALYZE received_invoices; ANALYZE invoices; ANALYZE invoice_files`)
	require.NoError(b, err)

	b.Run("counts query", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.Store.ReceivedInvoiceCounts(ctx, u.BuyerID); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("the view's state", func(b *testing.B) {
		for b.Loop() {
			var n int
			if err := db.Store.DB.GetContext(ctx, &n, `SELECT count(*) FROM (SELECT state, count(*) FROM received_invoice_views
				WHERE buyer_id = $1 GROUP BY state) s`, u.BuyerID); err != nil {
				b.Fatal(err)
			}
		}
	})
}
