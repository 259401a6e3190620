// Package mail sends the service's e-mails: plain-text Japanese messages built from the
// templates in templates/, delivered over SMTP (SMTP_URL). In development, without
// SMTP_URL, StartDevServer runs an SMTP server in the process that keeps every message
// in a Box (PostgreSQL), so developers read the mails in the browser.
package mail

import (
	"context"
	"time"

	"cardpay/store"
)

// Message is one plain-text mail to one recipient. The text is UTF-8; the sender
// takes care of encoding the Japanese subject and body for the wire.
type Message struct {
	To      string
	Subject string
	Text    string
	// AutoReply marks an answer a program sent to a mail (Auto-Submitted: auto-replied,
	// RFC 3834), so that the other side's programs do not answer it in turn.
	AutoReply bool `json:",omitempty"`
}

// Sender delivers messages.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// Received is a message as an SMTP server received it, decoded for reading: the
// subject and body are plain UTF-8 text whatever their transfer encoding was.
type Received struct {
	ID         int64
	From       string
	To         string
	Subject    string
	Text       string
	ReceivedAt time.Time
}

// Box keeps the development mailbox's messages; *store.Store implements it. Its
// messages are the store's rows, so that mail depends on store and not the reverse.
type Box interface {
	// SaveDevMail stores a received message and returns its id.
	SaveDevMail(ctx context.Context, m store.DevMail) (int64, error)
	// DevMails lists the newest messages first, at most limit of them.
	DevMails(ctx context.Context, limit int) ([]store.DevMail, error)
	// DevMail returns one message, or store.ErrNotFound.
	DevMail(ctx context.Context, id int64) (store.DevMail, error)
}

var _ Box = (*store.Store)(nil)
