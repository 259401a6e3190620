package main

import (
	"log/slog"

	"cardpay/gateway"
	"cardpay/gateway/stripe"
)

// stripeGateway builds the Stripe adapter from the configuration (PSP=stripe). Its log
// lines go to the server's logger; they carry no more of a card than brand, last 4
// digits and expiry.
func stripeGateway(cfg Config, logger *slog.Logger) (gateway.Gateway, error) {
	sc := cfg.Stripe
	sc.Logger = logger.With("psp", "stripe")
	return stripe.New(sc)
}
