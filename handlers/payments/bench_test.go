package payments_test

import (
	"context"
	"net/http"
	"testing"

	"cardpay/handlers/webtest"
)

// BenchmarkHistoryPage is the signed-in history page with 2,000 payments, in process
// (task bench measures it over HTTP under load; this one is for profiles:
// go test -run '^$' -bench History -cpuprofile cpu.out ./handlers/payments/).
func BenchmarkHistoryPage(b *testing.B) {
	t := &testing.T{}
	p := newPayer(t, "")
	if err := webtest.Store().SeedPayments(context.Background(), p.u.BuyerID, p.supplier.ID, p.account.ID, 2000); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if res := p.c.Get("/payments/history"); res.StatusCode != http.StatusOK {
			b.Fatal(res.StatusCode)
		}
	}
}
