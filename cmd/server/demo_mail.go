package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"time"

	"cardpay/inbox"
	"cardpay/ocr/invoicegen"
	"cardpay/store"
)

// demoMailSeed is the invoice the demo corporation's supplier mails it: a generated
// invoice as the OCR accuracy run makes them, so the reading shows what it finds.
const demoMailSeed = 2026

// seedDemoMail gives the demo corporation a receiving address and, the first time, one
// supplier's mail with an invoice, delivered through the inbound service as a real mail
// would be (its checks, its reading job, its notification). Without the font the
// invoice is drawn with, it gives the address alone.
func seedDemoMail(ctx context.Context, st *store.Store, svc *inbox.Service, logger *slog.Logger) error {
	corp, err := st.UserByEmail(ctx, "corp@demo.example")
	if err != nil {
		return err
	}
	a, err := st.ReceivingAddress(ctx, corp.BuyerID)
	if errors.Is(err, store.ErrNotFound) {
		a, err = st.RenewReceivingAddress(ctx, corp.BuyerID, corp.ID, time.Now())
	}
	if err != nil {
		return err
	}
	if logged, err := st.InboundMails(ctx, corp.BuyerID, 1); err != nil || len(logged) > 0 {
		return err
	}
	truth := invoicegen.New(demoMailSeed).Invoice()
	pdf, err := invoicegen.RenderPDF(truth, invoicegen.LayoutClassic)
	if err != nil {
		logger.Warn("demo: no mailed invoice (the invoice font is missing: task ocr-tools)", "error", err)
		return nil
	}
	from := "keiri@" + "hirose-seisakusho.example"
	var raw bytes.Buffer
	fmt.Fprintf(&raw, "Authentication-Results: %s; spf=pass smtp.mailfrom=hirose-seisakusho.example; dkim=pass header.d=hirose-seisakusho.example; dmarc=pass header.from=hirose-seisakusho.example\r\n", svc.AuthservID)
	fmt.Fprintf(&raw, "From: %s <%s>\r\nSubject: %s\r\nMessage-ID: <demo-invoice@hirose-seisakusho.example>\r\nMIME-Version: 1.0\r\n",
		mime.BEncoding.Encode("UTF-8", truth.IssuerName+" 経理部"), from, mime.BEncoding.Encode("UTF-8", "請求書送付のご案内（"+truth.InvoiceNumber+"）"))
	raw.WriteString("Content-Type: multipart/mixed; boundary=\"demo\"\r\n\r\n--demo\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	raw.WriteString(base64.StdEncoding.EncodeToString([]byte("いつもお世話になっております。今月分の請求書をお送りします。")) + "\r\n--demo\r\n")
	name := mime.BEncoding.Encode("UTF-8", "請求書_"+truth.InvoiceNumber+".pdf")
	fmt.Fprintf(&raw, "Content-Type: application/pdf; name=\"%s\"\r\nContent-Disposition: attachment; filename=\"%s\"\r\nContent-Transfer-Encoding: base64\r\n\r\n", name, name)
	raw.WriteString(base64.StdEncoding.EncodeToString(pdf) + "\r\n--demo--\r\n")
	if err := svc.Deliver(ctx, from, []string{svc.Address(a)}, raw.Bytes()); err != nil {
		return fmt.Errorf("demo: the mailed invoice: %w", err)
	}
	return nil
}
