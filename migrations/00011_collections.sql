-- +goose Up
-- Card-payment requests (collections, issue 14). A corporation (the requester) asks its
-- customer to pay its invoice by card. The requester's side is an invoice of type 3
-- (InvoiceRequestSeller) with no supplier; its request row holds the customer, the key and
-- the receiving account. Once the customer is known (found by corporate number when the
-- request is sent, or when they open the key), the customer's side is an invoice of type 2
-- (InvoiceRequestBuyer) paid to the requester like any payment. The requester's invoice
-- follows the customer's status (store.insertEvent), so the two never disagree.

-- The requester's own receiving accounts (GET and POST /api/v1/buyers/{id}/accounts).
-- Same rules as a supplier's accounts: names copied from the zengin data, our type codes,
-- the holder name in the zengin character set.
CREATE TABLE buyer_accounts (
    id             BIGSERIAL PRIMARY KEY,
    buyer_id       BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    bank_code      TEXT NOT NULL CHECK (bank_code ~ '^[0-9]{4}$'),
    bank_name      TEXT NOT NULL,
    branch_code    TEXT NOT NULL CHECK (branch_code ~ '^[0-9]{3}$'),
    branch_name    TEXT NOT NULL,
    account_type   SMALLINT NOT NULL CHECK (account_type IN (1, 2)),
    account_number TEXT NOT NULL CHECK (account_number ~ '^[0-9]{7}$'),
    holder_name    TEXT NOT NULL CHECK (holder_name <> ''),
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX buyer_accounts_unique_idx
    ON buyer_accounts (buyer_id, bank_code, branch_code, account_type, account_number);

-- The requester's invoice has no supplier; every other invoice has one.
ALTER TABLE invoices ALTER COLUMN supplier_id DROP NOT NULL;
ALTER TABLE invoices ADD CONSTRAINT invoices_supplier_by_type CHECK ((invoice_type = 3) = (supplier_id IS NULL));
-- A request's fee borne by the requester is taken from the transfer, not charged to the
-- customer's card: the transfer is amount - payee_fee.
ALTER TABLE invoices ADD COLUMN payee_fee BIGINT NOT NULL DEFAULT 0 CHECK (payee_fee >= 0 AND payee_fee < amount);
-- A request waiting for the customer's card has no card yet ('none').
ALTER TABLE invoices DROP CONSTRAINT invoices_card_status_check;
ALTER TABLE invoices ADD CONSTRAINT invoices_card_status_check
    CHECK (card_status IN ('none', 'pending', 'requires_action', 'authorized', 'declined', 'captured', 'voided', 'refunded'));

CREATE TABLE invoice_requests (
    -- The requester's invoice (type 3).
    invoice_id                BIGINT PRIMARY KEY REFERENCES invoices (id) ON DELETE CASCADE,
    requester_id              BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    customer_name             TEXT NOT NULL CHECK (customer_name <> ''),
    customer_contact_name     TEXT NOT NULL DEFAULT '',
    customer_email            TEXT NOT NULL CHECK (customer_email <> ''),
    customer_corporate_number TEXT NOT NULL DEFAULT '' CHECK (customer_corporate_number = '' OR customer_corporate_number ~ '^[0-9]{13}$'),
    -- The customer once known, and their invoice (type 2).
    customer_buyer_id         BIGINT REFERENCES buyers (id) ON DELETE SET NULL,
    payment_invoice_id        BIGINT UNIQUE REFERENCES invoices (id) ON DELETE SET NULL,
    account_id                BIGINT NOT NULL REFERENCES buyer_accounts (id),
    fee_bearer                TEXT NOT NULL DEFAULT 'customer' CHECK (fee_bearer IN ('customer', 'requester')),
    message                   TEXT NOT NULL DEFAULT '',
    -- SHA-256 of the link's key (pay.HashRequestKey); the key itself is only in the mail.
    key_hash                  BYTEA NOT NULL UNIQUE,
    key_used_at               TIMESTAMPTZ,
    key_used_by               BIGINT REFERENCES buyers (id) ON DELETE SET NULL,
    -- The customer's mail, sent once through the job queue.
    mailed_at                 TIMESTAMPTZ,
    created_at                TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX invoice_requests_requester_idx ON invoice_requests (requester_id);
CREATE INDEX invoice_requests_customer_idx ON invoice_requests (customer_buyer_id) WHERE customer_buyer_id IS NOT NULL;
-- The daily job's work: open requests by deadline (invoices.due_date of type 3).
CREATE INDEX invoices_open_requests_idx ON invoices (due_date) WHERE invoice_type = 3 AND examination_status IN (6, 7);

-- A request being prepared, saved with 下書き保存 (SPEC.md §3 invoice_request_drafts).
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

-- Keys that matched nothing, per buyer, for the try limit (store.RequestKeyMisses).
CREATE TABLE request_key_misses (
    id       BIGSERIAL PRIMARY KEY,
    buyer_id BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX request_key_misses_buyer_idx ON request_key_misses (buyer_id, at);

-- +goose Down
DROP TABLE request_key_misses;
DROP TABLE invoice_request_drafts;
DROP INDEX invoices_open_requests_idx;
DROP TABLE invoice_requests;
DELETE FROM invoices WHERE invoice_type = 3;
ALTER TABLE invoices DROP CONSTRAINT invoices_card_status_check;
ALTER TABLE invoices ADD CONSTRAINT invoices_card_status_check
    CHECK (card_status IN ('pending', 'requires_action', 'authorized', 'declined', 'captured', 'voided', 'refunded'));
ALTER TABLE invoices DROP COLUMN payee_fee;
ALTER TABLE invoices DROP CONSTRAINT invoices_supplier_by_type;
ALTER TABLE invoices ALTER COLUMN supplier_id SET NOT NULL;
DROP TABLE buyer_accounts;
