-- +goose Up
-- The accounts a buyer's journal exports use (issue 30, pay.BookAccounts): saved when
-- the buyer exports, so that the next export uses the same names. No row: the defaults.
CREATE TABLE book_accounts (
    buyer_id    BIGINT PRIMARY KEY REFERENCES buyers (id) ON DELETE CASCADE,
    payable     TEXT NOT NULL CHECK (length(payable) BETWEEN 1 AND 12),
    fee         TEXT NOT NULL CHECK (length(fee) BETWEEN 1 AND 12),
    card        TEXT NOT NULL CHECK (length(card) BETWEEN 1 AND 12),
    card_detail TEXT NOT NULL DEFAULT '' CHECK (length(card_detail) <= 12),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- The books' period is the day the supplier was paid.
CREATE INDEX invoices_transferred_idx ON invoices (buyer_id, transferred_at) WHERE transferred_at IS NOT NULL;

-- +goose Down
DROP INDEX invoices_transferred_idx;
DROP TABLE book_accounts;
