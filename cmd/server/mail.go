package main

import (
	"context"
	"log/slog"
	"net/url"

	"cardpay/mail"
	"cardpay/store"
)

// mailSender sends over SMTP_URL. In development without SMTP_URL it is replaced until
// the dev mailbox lands by one that logs each mail.
func mailSender(ctx context.Context, cfg Config, st *store.Store, logger *slog.Logger) (mail.Sender, func() error, error) {
	from := "no-reply@localhost"
	if u, err := url.Parse(cfg.BaseURL); err == nil && u.Hostname() != "" {
		from = "no-reply@" + u.Hostname()
	}
	if cfg.SMTPURL != "" {
		s, err := mail.NewSMTP(cfg.SMTPURL, from)
		return s, func() error { return nil }, err
	}
	return logSender{logger}, func() error { return nil }, nil
}

type logSender struct{ logger *slog.Logger }

func (l logSender) Send(_ context.Context, m mail.Message) error {
	l.logger.Info("mail", "to", m.To, "subject", m.Subject, "text", m.Text)
	return nil
}
