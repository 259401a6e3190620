-- +goose Up
-- A buyer's saved cards (issue 10). The card number and the security code never reach
-- the service (割賦販売法): the browser sends them to the PSP, and a row keeps only the
-- PSP's reusable reference, what the buyer needs to recognise the card (brand, last 4,
-- expiry, holder name) and the PSP's fingerprint, so that the same card is saved once.
-- A deleted card keeps its row (deleted_at) because payments made with it point at it.
CREATE TABLE cards (
    id          BIGSERIAL PRIMARY KEY,
    buyer_id    BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    gateway     TEXT NOT NULL CHECK (gateway <> ''),
    ref         TEXT NOT NULL CHECK (ref <> ''),
    brand       TEXT NOT NULL CHECK (brand IN ('JCB', 'VISA', 'MASTER')),
    last4       TEXT NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
    exp_month   SMALLINT NOT NULL CHECK (exp_month BETWEEN 1 AND 12),
    exp_year    SMALLINT NOT NULL CHECK (exp_year BETWEEN 2000 AND 2200),
    holder_name TEXT NOT NULL DEFAULT '',
    fingerprint TEXT NOT NULL CHECK (fingerprint <> ''),
    is_default  BOOLEAN NOT NULL DEFAULT false,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    deleted_at  TIMESTAMPTZ
);
CREATE INDEX cards_buyer_idx ON cards (buyer_id, id) WHERE deleted_at IS NULL;
-- The same card is saved once per buyer and PSP (the fingerprint is per PSP).
CREATE UNIQUE INDEX cards_fingerprint_idx ON cards (buyer_id, gateway, fingerprint) WHERE deleted_at IS NULL;
-- At most one default; the store keeps exactly one while the buyer has any card.
CREATE UNIQUE INDEX cards_default_idx ON cards (buyer_id) WHERE is_default AND deleted_at IS NULL;

-- A card being verified before it is saved: the PSP has given a reference and we have
-- asked for a zero-amount authorisation (VerifyOnly) under payment_id, our idempotency
-- key. It waits here while the buyer answers a 3-D Secure challenge, and whichever comes
-- first (the buyer's return page or the PSP's webhook) finishes it exactly once.
-- status: pending (asked, no answer yet), requires_action (challenge), authorized (the
-- card was saved as card_id), declined (result_code says why), refused (the service
-- refused it after the PSP said yes: refusal says why, a duplicate or the limit of saved
-- cards).
CREATE TABLE card_checks (
    id          BIGSERIAL PRIMARY KEY,
    buyer_id    BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    payment_id  TEXT GENERATED ALWAYS AS ('cardcheck-' || id) STORED UNIQUE,
    gateway     TEXT NOT NULL,
    ref         TEXT NOT NULL,
    brand       TEXT NOT NULL,
    last4       TEXT NOT NULL CHECK (last4 ~ '^[0-9]{4}$'),
    exp_month   SMALLINT NOT NULL,
    exp_year    SMALLINT NOT NULL,
    holder_name TEXT NOT NULL DEFAULT '',
    fingerprint TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'requires_action', 'authorized', 'declined', 'refused')),
    result_code TEXT NOT NULL DEFAULT '',
    refusal     TEXT NOT NULL DEFAULT '' CHECK (refusal IN ('', 'duplicate', 'too_many')),
    action_url  TEXT NOT NULL DEFAULT '',
    card_id     BIGINT REFERENCES cards (id),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX card_checks_buyer_idx ON card_checks (buyer_id, id);

-- An authorisation (与信) asked for on a saved card, for a payment the buyer is preparing:
-- POST /api/v1/invoices/credit_cards/approval. payment_id is the caller's id and the PSP's
-- idempotency key; the row ties it to one buyer, card and amount before the PSP is asked,
-- so that no buyer can read or repeat another buyer's authorisation by naming its id.
CREATE TABLE card_approvals (
    id          BIGSERIAL PRIMARY KEY,
    buyer_id    BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    card_id     BIGINT NOT NULL REFERENCES cards (id),
    payment_id  TEXT NOT NULL UNIQUE CHECK (payment_id <> ''),
    amount      BIGINT NOT NULL CHECK (amount > 0),
    status      TEXT NOT NULL DEFAULT 'pending',
    result_code TEXT NOT NULL DEFAULT '',
    action_url  TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX card_approvals_buyer_idx ON card_approvals (buyer_id, id);

-- Webhooks received from the PSP, after their signature was checked. A PSP delivers an
-- event again until it gets a 2xx, each time with the same id: the unique key makes a
-- redelivery a no-op. processed_at is set once the event has been acted on.
CREATE TABLE psp_events (
    id           BIGSERIAL PRIMARY KEY,
    gateway      TEXT NOT NULL,
    event_id     TEXT NOT NULL CHECK (event_id <> ''),
    type         TEXT NOT NULL,
    payment_id   TEXT NOT NULL DEFAULT '',
    -- The payment's status and result code as the verified event told them, so that a
    -- background job can act on the event without decoding each PSP's body again.
    status       TEXT NOT NULL DEFAULT '',
    result_code  TEXT NOT NULL DEFAULT '',
    body         JSONB NOT NULL,
    received_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    processed_at TIMESTAMPTZ,
    UNIQUE (gateway, event_id)
);
CREATE INDEX psp_events_payment_idx ON psp_events (payment_id);

-- +goose Down
DROP TABLE psp_events;
DROP TABLE card_approvals;
DROP TABLE card_checks;
DROP TABLE cards;
