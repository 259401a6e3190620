package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"cardpay/account"
	"cardpay/auth"
	"cardpay/pay"
	"cardpay/store"
)

// createOperator is `server create-operator -email … -name … -roles …`: it adds an
// operator of the console and prints, once, the password and the authenticator's
// secret to enter in the operator's app. It opens the database as the server does
// (DATABASE_URL in production).
func createOperator(args []string, logger *slog.Logger) error {
	fs := flag.NewFlagSet("create-operator", flag.ContinueOnError)
	email := fs.String("email", "", "the operator's e-mail address (signs in with it)")
	name := fs.String("name", "", "the operator's name, as the console and the audit log show it")
	roles := fs.String("roles", "", "comma-separated roles: screening, transfers, admin")
	if err := fs.Parse(args); err != nil {
		return err
	}
	rs, err := pay.ParseRoles(*roles)
	if err != nil {
		return err
	}
	cfg, err := LoadConfig(os.Getenv)
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	ctx := context.Background()
	cfg.ResetDatabase = false
	st, err := openStore(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return err
	}
	password, err := auth.NewPassword()
	if err != nil {
		return err
	}
	svc := &account.Service{Store: st, Sealer: auth.NewSealer(cfg.SecretKey), ServiceName: cfg.ServiceName}
	created, err := svc.CreateOperator(ctx, account.NewOperatorInput{EmailAddress: *email, Name: *name, Password: password, Roles: rs})
	var errs pay.FieldErrors
	if errors.As(err, &errs) {
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Field+": "+e.Message)
		}
		return errors.New(strings.Join(msgs, "; "))
	}
	if err != nil {
		return err
	}
	fmt.Printf("operator %d created: %s (%s), roles %s\n", created.Operator.ID, created.Operator.EmailAddress, created.Operator.Name, strings.Join(rs, ","))
	fmt.Printf("password: %s\n", password)
	fmt.Printf("authenticator secret: %s\n", created.TOTPSecret)
	fmt.Printf("authenticator URL: %s\n", created.TOTPURL)
	fmt.Println("Give these to the operator once; they are not shown again.")
	return nil
}

// demoOperators are the console's operators in development: two screeners (completing
// a screening needs a second operator), one for transfers and administration, and a
// second administrator (an invitation or a change of roles one administrator proposes
// takes another's approval). They
// share DemoOperatorSecret, so that `task dev` and the browser tests can compute codes.
var demoOperators = []account.NewOperatorInput{
	{EmailAddress: "screening1@ops.demo.example", Name: "審査 一郎", Roles: []string{pay.RoleScreening}},
	{EmailAddress: "screening2@ops.demo.example", Name: "審査 二郎", Roles: []string{pay.RoleScreening}},
	{EmailAddress: "admin@ops.demo.example", Name: "管理 花子", Roles: []string{pay.RoleTransfers, pay.RoleAdmin}},
	{EmailAddress: "admin2@ops.demo.example", Name: "管理 次郎", Roles: []string{pay.RoleAdmin}},
}

// DemoOperatorSecret is the development demo operators' authenticator secret (base32).
// It is never used outside development.
const DemoOperatorSecret = "DEMOOPSDEMOOPSDEMOOPSDEMOOPSDEMO"

func seedOperators(ctx context.Context, st *store.Store, cfg Config, password string) error {
	svc := &account.Service{Store: st, Sealer: auth.NewSealer(cfg.SecretKey), ServiceName: cfg.ServiceName}
	// The operators that exist get the password back with one hash for all of them: every
	// start of a development server seeds (the kill tests start one 100 times), and each
	// argon2id hash is ~60 ms (a lookup first, then CreateOperator's own hash only for a
	// new one: 8 hashes a start became 1).
	var hash, sealed string
	for _, in := range demoOperators {
		in.Password, in.TOTPSecret = password, DemoOperatorSecret
		_, err := st.OperatorByEmail(ctx, in.EmailAddress)
		if errors.Is(err, store.ErrNotFound) {
			// Not one who may work: a new one, or (the address taken) a disabled one,
			// whose credentials are reset as before.
			_, err = svc.CreateOperator(ctx, in)
			var errs pay.FieldErrors
			if err == nil {
				continue
			}
			if !errors.As(err, &errs) || errs.For("email_address") != account.MsgOperatorExists {
				return fmt.Errorf("demo operator %s: %w", in.EmailAddress, err)
			}
		} else if err != nil {
			return err
		}
		if hash == "" {
			if hash, err = auth.HashPassword(password); err != nil {
				return err
			}
			if sealed, err = svc.Sealer.Seal(DemoOperatorSecret); err != nil {
				return err
			}
		}
		if err := st.ResetOperatorCredentials(ctx, in.EmailAddress, hash, sealed); err != nil {
			return err
		}
	}
	fmt.Printf("demo operators (/ops/signin): screening1@ops.demo.example, screening2@ops.demo.example (審査), admin@ops.demo.example (振込・管理), admin2@ops.demo.example (管理: approves admin@'s proposals) — password: %s, authenticator secret: %s\n", password, DemoOperatorSecret)
	return nil
}
