package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
)

// setTermsVersion is `server -terms-version EMAIL:VERSION`, development only: it makes
// the user with that address one who accepted VERSION of the terms (and no later one),
// so that the re-acceptance after a revision can be tried, and is by the browser tests
// (tools/e2e/terms.test.mjs). It opens the development database the way the server does.
func setTermsVersion(arg string, logger *slog.Logger) error {
	email, versionText, _ := strings.Cut(arg, ":")
	version, err := strconv.Atoi(versionText)
	if err != nil || version < 0 || strings.TrimSpace(email) == "" {
		return errors.New("-terms-version wants EMAIL:VERSION")
	}
	ctx := context.Background()
	st, err := devStore(ctx, "-terms-version", logger)
	if err != nil {
		return err
	}
	defer st.Close()
	u, err := st.UserByEmail(ctx, email)
	if err != nil {
		return fmt.Errorf("user %s: %w", email, err)
	}
	if err := st.ForgetTermsAfter(ctx, u.BuyerID, u.ID, version); err != nil || version == 0 {
		return err
	}
	return st.AcceptTerms(ctx, u.BuyerID, u.ID, version, time.Now())
}
