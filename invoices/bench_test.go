package invoices_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"cardpay/calendar"
	"cardpay/invoices"
	"cardpay/pay"
	"cardpay/store"
)

// `task ops-bench` prints these: the time one screening action takes, as an operator
// waits for it (the change, its event, the notification, its mail job and the audit row
// in one transaction), and the time to build a transfer file of 10,000 payments.

// quantiles reports p50 and p99 of ds in milliseconds.
func quantiles(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	q := func(p float64) float64 { return float64(ds[int(p*float64(len(ds)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

func BenchmarkScreeningAction(b *testing.B) {
	ctx := context.Background()
	t := &testing.T{}
	f := newFixture(t)
	s := newService(newPSP())
	op := newOperator(t, pay.RoleScreening)
	ids := make([]int64, b.N)
	for i := range ids {
		res, err := s.Payments.Submit(ctx, f.buyer, f.submission(fmt.Sprintf("bench-%d-%d", b.N, i)))
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = res.Payment.ID
	}
	ds := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		if _, err := s.Screening.CheckPayment(ctx, op, ids[i]); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
	}
	b.StopTimer()
	quantiles(b, ds)
}

// BenchmarkTransferFile10000 makes the file of 10,000 payments due on one day: the
// select that locks them, the zengin bytes, the file row and the payments marked.
func BenchmarkTransferFile10000(b *testing.B) {
	ctx := context.Background()
	t := &testing.T{}
	f := newFixture(t)
	s := newService(newPSP())
	op := newOperator(t, pay.RoleTransfers)
	remitter := invoices.Remitter{Code: "1234567890", Name: "ｾｲｷﾕｳ", BankCode: "0001", BranchCode: "001",
		AccountType: pay.AccountOrdinary, AccountNumber: "1234567"}
	ds := make([]time.Duration, 0, b.N)
	for i := range b.N {
		day := time.Date(2031, 4, 1, 0, 0, 0, 0, pay.Tokyo()).AddDate(0, 0, 7*i)
		day = calendar.AddBankDays(day, 0)
		if _, err := db.Store.DB.ExecContext(ctx, `INSERT INTO invoices (buyer_id, supplier_id, account_id, invoice_type,
			examination_status, amount, fee, due_date, transfer_date, submitted_at, authorized_amount, fee_basis_points,
			invoice_number, card_status)
			SELECT $1, $2, $3, 1, 3, 10000 + g, 300, $4, $4, now(), 10300 + g, 300, 'B-' || g, 'captured'
			FROM generate_series(1, 10000) g`, f.buyer, f.supplier, f.account, day.Format("2006-01-02")); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		file, err := s.Transfers.MakeTransferFile(ctx, op, day, remitter)
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		if file.RecordCount != 10000 {
			b.Fatalf("%d records", file.RecordCount)
		}
	}
	quantiles(b, ds)
	b.ReportMetric(0, "ns/op")
}

// BenchmarkTransferFileBytes10000 is the zengin encoding alone.
func BenchmarkTransferFileBytes10000(b *testing.B) {
	items := make([]store.TransferItem, 10000)
	for i := range items {
		items[i] = store.TransferItem{ID: int64(i + 1), BankCode: "0001", BranchCode: "001", AccountType: pay.AccountOrdinary,
			AccountNumber: "1234567", HolderName: "ｶ)ﾔﾏﾀﾞｼﾖｳｼﾞ", Amount: int64(10000 + i)}
	}
	remitter := invoices.Remitter{Code: "1234567890", Name: "ｾｲｷﾕｳ", BankCode: "0001", BranchCode: "001",
		AccountType: pay.AccountOrdinary, AccountNumber: "1234567"}
	day := time.Date(2031, 4, 1, 0, 0, 0, 0, pay.Tokyo())
	for range b.N {
		if _, err := invoices.TransferFileOf(remitter, day, items).Bytes(); err != nil {
			b.Fatal(err)
		}
	}
}
