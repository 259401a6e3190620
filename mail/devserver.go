package mail

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"cardpay/mail/internal/smtpd"
	"cardpay/store"
)

// StartDevServer runs the development mailbox: a real SMTP server on 127.0.0.1 (a free
// port, no AUTH, 1 MB per message) that decodes every message it accepts and keeps it
// in box. smtpURL is what NewSMTP takes; stop shuts the server down, as does the end
// of ctx. It is for development only: anyone on the machine can send to it, and the
// mailbox pages show every message to anyone.
func StartDevServer(ctx context.Context, box Box) (smtpURL string, stop func() error, err error) {
	srv, err := smtpd.Start(smtpd.Options{
		ErrorLog: slog.NewLogLogger(slog.Default().Handler(), slog.LevelWarn),
	}, func(dctx context.Context, d smtpd.Delivery) error {
		r, err := Decode(d.Data)
		if err != nil {
			return err
		}
		if r.From == "" {
			r.From = clean(d.From)
		}
		if r.To == "" {
			r.To = clean(strings.Join(d.To, ", "))
		}
		_, err = box.SaveDevMail(dctx, store.DevMail{
			From: r.From, To: r.To, Subject: r.Subject, Text: r.Text, ReceivedAt: time.Now(),
		})
		return err
	})
	if err != nil {
		return "", nil, fmt.Errorf("mail: start the development mailbox: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	stop = func() error {
		cancel()
		return srv.Close()
	}
	return "smtp://" + srv.Addr(), stop, nil
}
