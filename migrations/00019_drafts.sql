-- +goose Up
-- One table for the journeys saved with 下書き保存 (issue 25): a payment's (kind 'payment')
-- and a card-payment request's (kind 'request') were kept in two tables of the same
-- columns. counterparty_name and due_date are the supplier and the due date of a payment,
-- the customer and the deadline of a request. Every read is by the buyer and the kind, so
-- that a draft of one kind never opens as the other.
CREATE TABLE drafts (
    id                BIGSERIAL PRIMARY KEY,
    buyer_id          BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    kind              TEXT NOT NULL CHECK (kind IN ('payment', 'request')),
    data              JSONB NOT NULL,
    counterparty_name TEXT NOT NULL DEFAULT '',
    amount            BIGINT,
    due_date          DATE,
    step              TEXT NOT NULL DEFAULT '',
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX drafts_buyer_kind_idx ON drafts (buyer_id, kind, updated_at DESC, id DESC);

-- Payment drafts keep their ids (their resume links, /payments/draft/{id}, stay good).
INSERT INTO drafts (id, buyer_id, kind, data, counterparty_name, amount, due_date, step, created_at, updated_at)
SELECT id, buyer_id, 'payment', data, supplier_name, amount, due_date, step, created_at, updated_at
FROM payment_drafts;

-- Request drafts take new ids, numbered past every id either old table ever gave, so that
-- a request draft id still held in a session matches no draft and is saved anew.
-- (A sequence's last_value counts only once is_called: before, it gave nothing.)
SELECT setval(pg_get_serial_sequence('drafts', 'id'), GREATEST(
    (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM payment_drafts_id_seq),
    (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM invoice_request_drafts_id_seq),
    (SELECT coalesce(max(id), 0) FROM payment_drafts)) + 1, false);
INSERT INTO drafts (buyer_id, kind, data, counterparty_name, amount, due_date, step, created_at, updated_at)
SELECT buyer_id, 'request', data, customer_name, amount, deadline, step, created_at, updated_at
FROM invoice_request_drafts ORDER BY id;

DROP TABLE payment_drafts;
DROP TABLE invoice_request_drafts;

-- +goose Down
CREATE TABLE payment_drafts (
    id            BIGSERIAL PRIMARY KEY,
    buyer_id      BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    data          JSONB NOT NULL,
    supplier_name TEXT NOT NULL DEFAULT '',
    amount        BIGINT,
    due_date      DATE,
    step          TEXT NOT NULL DEFAULT '',
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX payment_drafts_buyer_idx ON payment_drafts (buyer_id, updated_at DESC, id DESC);
CREATE TABLE invoice_request_drafts (
    id            BIGSERIAL PRIMARY KEY,
    buyer_id      BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    data          JSONB NOT NULL,
    customer_name TEXT NOT NULL DEFAULT '',
    amount        BIGINT,
    deadline      DATE,
    step          TEXT NOT NULL DEFAULT '',
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX invoice_request_drafts_buyer_idx ON invoice_request_drafts (buyer_id, updated_at DESC, id DESC);

INSERT INTO payment_drafts (id, buyer_id, data, supplier_name, amount, due_date, step, created_at, updated_at)
SELECT id, buyer_id, data, counterparty_name, amount, due_date, step, created_at, updated_at
FROM drafts WHERE kind = 'payment';
INSERT INTO invoice_request_drafts (id, buyer_id, data, customer_name, amount, deadline, step, created_at, updated_at)
SELECT id, buyer_id, data, counterparty_name, amount, due_date, step, created_at, updated_at
FROM drafts WHERE kind = 'request';
-- Both sequences go past every id the one table gave, so neither reuses one.
SELECT setval(pg_get_serial_sequence('payment_drafts', 'id'),
    (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM drafts_id_seq) + 1, false);
SELECT setval(pg_get_serial_sequence('invoice_request_drafts', 'id'),
    (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM drafts_id_seq) + 1, false);

DROP TABLE drafts;
