package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"cardpay/invoices"
	"cardpay/pay"
)

// reconcileCommand is `server reconcile [FROM [TO]]` (dates 2006-01-02, Japan's calendar;
// default: the month before and after today): the three-way reconciliation of the
// payments with those transfer dates — the PSP's charges and refunds, the transfer files
// and the ledger — printed as totals and differences. It changes nothing; it exits 1 when
// anything disagrees. It reads the configured database and PSP like the server (with
// PSP=sandbox it serves the sandbox on a free loopback port while it runs).
func reconcileCommand(args []string, out io.Writer, logger *slog.Logger) error {
	today := time.Now().In(pay.Tokyo())
	from, to := today.AddDate(0, 0, -invoices.ReconcileWindow), today.AddDate(0, 0, invoices.ReconcileWindow)
	for i, a := range args {
		d, ok := pay.ParseDate(a)
		if !ok || i > 1 {
			return errors.New("usage: server reconcile [FROM [TO]] (dates as 2006-01-02)")
		}
		if i == 0 {
			from, to = d, d
		} else {
			to = d
		}
	}
	ctx := context.Background()
	cfg, err := LoadConfig(os.Getenv)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	cfg.ResetDatabase = false
	cfg.SandboxPort = 0
	st, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	if !cfg.Production() {
		// A development database may not have been started by the server yet.
		if err := st.Migrate(ctx); err != nil {
			return err
		}
	}
	gw, _, sb, err := cardGateway(ctx, cfg, st.DB, logger)
	if err != nil {
		return err
	}
	if sb != nil {
		go func() { _ = sb.srv.Serve(sb.ln) }()
		defer sb.shutdown(context.Background())
	}
	svc := invoices.New(invoices.Config{Store: st, Gateway: gw, Logger: logger}).Transfers
	r, err := svc.Reconcile(ctx, from, to)
	if err != nil {
		return err
	}
	t := r.Totals
	fmt.Fprintf(out, "Reconciliation of transfer dates %s to %s: %d payments, %d transfer files\n\n",
		pay.ISODate(r.From), pay.ISODate(r.To), r.Payments, r.Files)
	fmt.Fprintln(out, "| what | PSP or files | ledger | agree |")
	fmt.Fprintln(out, "|---|---:|---:|---|")
	line := func(what string, outside, ledger int64) {
		fmt.Fprintf(out, "| %s | %s | %s | %s |\n", what, pay.Yen(outside), pay.Yen(ledger), yesNo(outside == ledger))
	}
	line("captured from cards", t.PSPCaptured, t.LedgerCaptured)
	line("refunded to cards", t.PSPRefunded, t.LedgerRefunded)
	line("transfer files made", t.FilesMade, t.LedgerFiled)
	line("transfer files sent to the bank", t.FilesSent, t.LedgerFiledSent)
	fmt.Fprintf(out, "| paid by the bank / returned (ledger) | | %s / %s | |\n", pay.Yen(t.LedgerDone), pay.Yen(t.LedgerFailed))
	fmt.Fprintf(out, "\n%d differences\n", len(r.Mismatches))
	for _, m := range r.Mismatches {
		fmt.Fprintf(out, "- payment %d, file %d: %s: %s\n", m.PaymentID, m.FileID, m.Kind, m.Detail)
	}
	if len(r.Mismatches) > 0 || !t.Agree() {
		return errors.New("the reconciliation found differences")
	}
	return nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}
