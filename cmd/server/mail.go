package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"net/url"

	"cardpay/inbox"
	"cardpay/mail"
	"cardpay/pay"
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

// inboundListener starts the listener for the buyers' receiving addresses when one is
// configured (Config.InboundAddr; "off" is none). In development a taken port gives way
// to a free one, so that two servers on one machine (the tests) both start. The line it
// prints on standard output names the address, for scripts that send it mail.
func inboundListener(cfg Config, svc *inbox.Service, logger *slog.Logger) (stop func() error, err error) {
	if cfg.InboundAddr == "" || cfg.InboundAddr == "off" {
		return func() error { return nil }, nil
	}
	o := mail.InboundOptions{Addr: cfg.InboundAddr, Domain: cfg.InboundDomain, MaxMessageBytes: pay.MaxInboundMailBytes, MaxRecipients: 10, Logger: logger}
	srv, err := mail.StartInbound(o, svc)
	if err != nil && !cfg.Production() && cfg.InboundAddr == devInboundAddr {
		logger.Warn("inbound mail: the usual port is taken; listening on a free one", "error", err)
		o.Addr = "127.0.0.1:0"
		srv, err = mail.StartInbound(o, svc)
	}
	if err != nil {
		return nil, fmt.Errorf("INBOUND_SMTP_ADDR: %w", err)
	}
	fmt.Printf("inbound mail on smtp://%s for @%s\n", srv.Addr(), cfg.InboundDomain)
	logger.Info("inbound mail", "smtp", srv.Addr(), "domain", cfg.InboundDomain, "trusted authserv-id", cfg.InboundAuthservID)
	return srv.Close, nil
}
