package main

import (
	"context"
	"errors"
	"log/slog"
	netmail "net/mail"
	"net/url"

	"cardpay/mail"
	"cardpay/store"
)

// mailSender sends over SMTP_URL. In development without SMTP_URL it starts an SMTP
// server in the process whose mails land in PostgreSQL and are read at /dev/mailbox;
// the returned box is that mailbox (nil otherwise).
func mailSender(ctx context.Context, cfg Config, st *store.Store, logger *slog.Logger) (mail.Sender, mail.Box, func() error, error) {
	addr := "no-reply@localhost"
	if u, err := url.Parse(cfg.BaseURL); err == nil && u.Hostname() != "" {
		addr = "no-reply@" + u.Hostname()
	}
	from := (&netmail.Address{Name: cfg.ServiceName, Address: addr}).String()
	smtpURL, stop := cfg.SMTPURL, func() error { return nil }
	var box mail.Box
	if smtpURL == "" {
		if cfg.Production() {
			return nil, nil, nil, errors.New("production needs SMTP_URL")
		}
		var err error
		if smtpURL, stop, err = mail.StartDevServer(ctx, st); err != nil {
			return nil, nil, nil, err
		}
		box = st
		logger.Info("development mailbox", "read at", cfg.BaseURL+"/dev/mailbox", "smtp", smtpURL)
	}
	newSender := mail.NewSMTP
	if cfg.Production() {
		newSender = mail.NewSMTPRequiringTLS
	}
	s, err := newSender(smtpURL, from)
	if err != nil {
		_ = stop()
		return nil, nil, nil, err
	}
	return s, box, stop, nil
}
