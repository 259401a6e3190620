-- +goose Up
-- The development mailbox (DESIGN.md §3, mail): without SMTP_URL the app receives its
-- own mails on a loopback SMTP server and keeps them here so developers can read them
-- at /dev/mailbox. Production never writes to it; the store keeps the newest 500.
CREATE TABLE dev_mails (
    id          BIGSERIAL PRIMARY KEY,
    mail_from   TEXT NOT NULL DEFAULT '',
    mail_to     TEXT NOT NULL DEFAULT '',
    subject     TEXT NOT NULL DEFAULT '',
    body        TEXT NOT NULL DEFAULT '',
    received_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE dev_mails;
