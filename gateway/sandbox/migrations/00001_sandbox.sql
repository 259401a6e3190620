-- +goose Up
-- The sandbox PSP's own tables, in the app's database but under their own prefix and
-- their own goose version table (sandbox_goose_db_version): a real PSP keeps its data
-- elsewhere, and nothing of the app reads these.
--
-- No table holds a card number or a security code, not even a test one. A card is kept
-- as brand, last 4 digits, expiry, holder, a fingerprint (HMAC of the number with the
-- sandbox secret) and the test-card scenario it plays.

-- One-time tokens from /v1/tokens and the hosted card page: single use, 30 minutes.
CREATE TABLE sandbox_tokens (
    id           TEXT PRIMARY KEY,
    brand        TEXT NOT NULL,
    last4        TEXT NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
    exp_month    INT NOT NULL CHECK (exp_month BETWEEN 1 AND 12),
    exp_year     INT NOT NULL,
    holder       TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    scenario     TEXT NOT NULL,
    decline_code TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMPTZ NOT NULL,
    expires_at   TIMESTAMPTZ NOT NULL,
    used_at      TIMESTAMPTZ
);

-- Saved cards (payment methods): what a token becomes through POST /v1/cards.
CREATE TABLE sandbox_cards (
    id           TEXT PRIMARY KEY,
    brand        TEXT NOT NULL,
    last4        TEXT NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
    exp_month    INT NOT NULL CHECK (exp_month BETWEEN 1 AND 12),
    exp_year     INT NOT NULL,
    holder       TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    scenario     TEXT NOT NULL,
    decline_code TEXT NOT NULL DEFAULT '',
    created_at   TIMESTAMPTZ NOT NULL
);

-- Hosted card page sessions, created server to server by the app.
CREATE TABLE sandbox_hosted_sessions (
    id         TEXT PRIMARY KEY,
    return_url TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL,
    used_at    TIMESTAMPTZ
);

-- Authorisations, one per payment id of the app (the idempotency key): a second
-- authorise with the same payment id answers this row and never charges again.
CREATE TABLE sandbox_authorizations (
    id                   TEXT PRIMARY KEY,
    payment_id           TEXT NOT NULL UNIQUE,
    card_id              TEXT NOT NULL REFERENCES sandbox_cards (id),
    amount               BIGINT NOT NULL CHECK (amount >= 0),
    verify_only          BOOLEAN NOT NULL,
    status               TEXT NOT NULL CHECK (status IN ('authorized', 'requires_action', 'declined', 'captured',
                             'voided', 'refunded', 'partially_refunded', 'lapsed')),
    result_code          TEXT NOT NULL,
    captured             BIGINT NOT NULL DEFAULT 0 CHECK (captured >= 0 AND captured <= amount),
    refunded             BIGINT NOT NULL DEFAULT 0 CHECK (refunded >= 0 AND refunded <= captured),
    return_url           TEXT NOT NULL,
    -- The 3-D Secure challenge: its own random id (the page's URL), the passcode the
    -- page shows, the wrong attempts so far and when it stops being answerable.
    challenge_id         TEXT UNIQUE,
    passcode             TEXT,
    challenge_attempts   INT NOT NULL DEFAULT 0,
    challenge_expires_at TIMESTAMPTZ,
    -- lapses_at: an authorisation not captured by then is released (NULL for a
    -- verification, which reserves nothing).
    lapses_at            TIMESTAMPTZ,
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL
);
CREATE INDEX sandbox_authorizations_lapse_idx ON sandbox_authorizations (lapses_at) WHERE status = 'authorized';

-- Webhook events and their delivery: each event keeps its id across redeliveries;
-- next_attempt_at follows the backoff table, claimed with FOR UPDATE SKIP LOCKED.
CREATE TABLE sandbox_events (
    id              TEXT PRIMARY KEY,
    seq             BIGSERIAL NOT NULL UNIQUE, -- the order events were written in
    type            TEXT NOT NULL,
    payment_id      TEXT NOT NULL,
    body            TEXT NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INT NOT NULL DEFAULT 0,
    next_attempt_at TIMESTAMPTZ NOT NULL,
    delivered_at    TIMESTAMPTZ,
    last_error      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sandbox_events_due_idx ON sandbox_events (next_attempt_at) WHERE status = 'pending';
CREATE INDEX sandbox_events_payment_idx ON sandbox_events (payment_id, seq);

-- +goose Down
DROP TABLE sandbox_events;
DROP TABLE sandbox_authorizations;
DROP TABLE sandbox_hosted_sessions;
DROP TABLE sandbox_cards;
DROP TABLE sandbox_tokens;
