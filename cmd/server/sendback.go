package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"cardpay/pay"
	"cardpay/store"
)

// sendBack is `server -send-back ID:REASON`, development only: it sends a payment back to
// its buyer as screening would, so that the correction pages can be tried (and are, by the
// browser tests) before the operator console exists. It opens the development database
// the way the server does (without resetting it).
func sendBack(arg string, logger *slog.Logger) error {
	idText, reason, _ := strings.Cut(arg, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 || strings.TrimSpace(reason) == "" {
		return errors.New("-send-back wants PAYMENT_ID:REASON")
	}
	ctx := context.Background()
	st, err := devStore(ctx, "-send-back", logger)
	if err != nil {
		return err
	}
	defer st.Close()
	buyerID, err := st.InvoiceOwner(ctx, id)
	if err != nil {
		return err
	}
	_, err = st.Transition(ctx, buyerID, id, pay.ActSendBack, "operator:dev", reason, time.Now(), nil)
	return err
}

// devStore opens the development database the way the server does, never resetting it,
// for the development-only flags (flag names them in the refusal).
func devStore(ctx context.Context, flag string, logger *slog.Logger) (*store.Store, error) {
	cfg, err := LoadConfig(os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	if cfg.Production() {
		return nil, errors.New(flag + " is for development only")
	}
	cfg.ResetDatabase = false
	return openStore(ctx, cfg, logger)
}
