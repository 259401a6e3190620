-- +goose Up
-- Server-side sessions for scs (postgresstore's schema): the process keeps no state.
CREATE TABLE sessions (
    token  TEXT PRIMARY KEY,
    data   BYTEA NOT NULL,
    expiry TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);

-- A buyer is the business (corporation or sole proprietor); every buyer-owned row hangs
-- off buyer_id so that queries can always be scoped by it.
CREATE TABLE buyers (
    id               BIGSERIAL PRIMARY KEY,
    business_form    SMALLINT NOT NULL CHECK (business_form IN (1, 2)),
    corporate_name   TEXT NOT NULL DEFAULT '',
    corporate_number TEXT NOT NULL DEFAULT '',
    business_name    TEXT NOT NULL DEFAULT '',
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id              BIGSERIAL PRIMARY KEY,
    buyer_id        BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    email_address   TEXT NOT NULL,
    password_hash   TEXT NOT NULL,
    user_last_name  TEXT NOT NULL DEFAULT '',
    user_first_name TEXT NOT NULL DEFAULT '',
    phone_number    TEXT NOT NULL DEFAULT '',
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- E-mail addresses are compared case-insensitively.
CREATE UNIQUE INDEX users_email_address_key ON users (lower(email_address));
CREATE INDEX users_buyer_id_idx ON users (buyer_id);

CREATE TABLE notifications (
    id         BIGSERIAL PRIMARY KEY,
    buyer_id   BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    title      TEXT NOT NULL,
    body       TEXT NOT NULL DEFAULT '',
    read_at    TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX notifications_unread_idx ON notifications (buyer_id) WHERE read_at IS NULL;

-- +goose Down
DROP TABLE notifications;
DROP TABLE users;
DROP TABLE buyers;
DROP TABLE sessions;
