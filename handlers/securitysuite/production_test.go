package securitysuite_test

// Production settings fail safe (issue 24): a server started without APP_ENV applies the
// production rules, so it refuses to start on development defaults (the development
// secret key, the sandbox PSP, the in-process mailbox, demo accounts); and production
// mail goes over TLS or not at all.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cardpay/mail"
	"cardpay/mail/mailtest"
)

// The real binary, started with an environment that names nothing but PATH and HOME
// (and a demo password, as a development habit would): it must exit with an error that
// says why, before it opens a port or a database.
func TestServerWithoutAppEnvRefusesToStart(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "server")
	build := exec.Command("go", "build", "-o", bin, "cardpay/cmd/server")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "PORT=0", "SANDBOX_PSP_PORT=0", "DEMO_PASSWORD=demo-password-1"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var exit *exec.ExitError
	exited := errors.As(err, &exit) && exit.ExitCode() != 0
	said := stderr.String()
	named := 0
	for _, want := range []string{"APP_ENV is not set", "SECRET_KEY", "DATABASE_URL", "SMTP_URL", "PSP=stripe", "DEMO_PASSWORD"} {
		if strings.Contains(said, want) {
			named++
		}
	}
	listened := strings.Contains(stdout.String()+said, "listening")
	record(t, "abuse", "server started without APP_ENV (development defaults, a demo password)",
		fmt.Sprintf("exit code %d after %d ms, listened: %t, %d of 6 reasons named", exitCode(err), took.Milliseconds(), listened, named),
		exited && !listened && named == 6)
}

func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// Production's sender against a server that offers no STARTTLS (or a connection whose
// STARTTLS was stripped on the way) delivers nothing; against STARTTLS and smtps it
// delivers.
func TestProductionMailRequiresTLS(t *testing.T) {
	const from = "no-reply@cardpay.example"
	msg := mail.PasswordChanged("user@example.jp", "請求書カード払い", time.Now())
	plain := mailtest.NewServer(t)
	sender, err := mail.NewSMTPRequiringTLS(plain.URL(), from)
	require.NoError(t, err)
	plainErr := sender.Send(context.Background(), msg)
	delivered := len(plain.Messages())

	// The test servers' certificates are not in the system roots: the sender must try
	// TLS and fail on the certificate, never fall back to plain text.
	tlsFailures := 0
	for _, opt := range []mailtest.Option{mailtest.WithSTARTTLS(), mailtest.WithImplicitTLS()} {
		srv := mailtest.NewServer(t, opt)
		s, err := mail.NewSMTPRequiringTLS(srv.URL(), from)
		require.NoError(t, err)
		if err := s.Send(context.Background(), msg); err != nil && strings.Contains(err.Error(), "certificate") && len(srv.Messages()) == 0 {
			tlsFailures++
		}
	}
	record(t, "abuse", "production mail to an SMTP server without STARTTLS",
		fmt.Sprintf("%d of 1 mails delivered in plain text; TLS attempted on %d of 2 TLS servers", delivered, tlsFailures),
		plainErr != nil && delivered == 0 && tlsFailures == 2)
}
