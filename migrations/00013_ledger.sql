-- +goose Up
-- Money that cannot go missing (issue 23): the transfer stage is part of a payment's state,
-- and every movement of money posts balanced lines to an append-only journal in the same
-- transaction as the state change that causes it (pay/ledger.go has the rules).

-- The transfer stage: '' none, filed (in a file), sent (the bank has the file), done
-- (paid), failed (the bank could not pay), returned (given up, the card refunded).
ALTER TABLE invoices DROP CONSTRAINT invoices_transfer_state_check;
UPDATE invoices SET transfer_state = 'done' WHERE transferred_at IS NOT NULL;
UPDATE invoices i SET transfer_state = 'sent' FROM transfer_files f
    WHERE i.transfer_state = 'filed' AND f.id = i.transfer_file_id AND f.sent_at IS NOT NULL;
UPDATE invoices SET transfer_state = 'returned' WHERE transfer_state = 'failed' AND examination_status = 5;
ALTER TABLE invoices ADD CONSTRAINT invoices_transfer_state_check
    CHECK (transfer_state IN ('', 'filed', 'sent', 'done', 'failed', 'returned'));
-- How many transfer files the payment was put in: once filed, only the transfer's own
-- steps move it, also after a failed transfer was retried (pay.PaymentState.EverFiled).
ALTER TABLE invoices ADD COLUMN transfer_attempts INT NOT NULL DEFAULT 0 CHECK (transfer_attempts >= 0);
UPDATE invoices SET transfer_attempts = 1 WHERE transfer_state <> '' OR transfer_file_id IS NOT NULL;
-- The service's full fee rate when the payment was made: a promotion's discount is the
-- difference, posted as an expense against the full fee.
ALTER TABLE invoices ADD COLUMN fee_full_basis_points INT NOT NULL DEFAULT 0 CHECK (fee_full_basis_points >= 0);
UPDATE invoices i SET fee_full_basis_points = i.fee_basis_points + COALESCE(
    (SELECT p.discount_basis_points FROM promotions p WHERE p.code = i.promotion_code), 0);

-- The events carry the transfer stage too.
ALTER TABLE invoice_events
    ADD COLUMN from_transfer TEXT,
    ADD COLUMN to_transfer   TEXT;

-- The journal. A posting is one balanced movement; its entries are its lines, a debit
-- positive and a credit negative, in integer yen. Neither table has a foreign key to the
-- invoices: the books outlive a buyer's removal.
CREATE TABLE ledger_postings (
    id               BIGSERIAL PRIMARY KEY,
    kind             TEXT NOT NULL CHECK (kind IN ('opening', 'capture', 'collection_fee', 'refund',
                         'transfer_filed', 'transfer_done', 'transfer_failed')),
    invoice_id       BIGINT,
    buyer_id         BIGINT,
    payment_ref      TEXT NOT NULL DEFAULT '',
    transfer_file_id BIGINT,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX ledger_postings_invoice_idx ON ledger_postings (invoice_id, id);
CREATE INDEX ledger_postings_created_idx ON ledger_postings (created_at);
-- A charge is captured, and refunded, once; a payment enters a given file once.
CREATE UNIQUE INDEX ledger_postings_capture_once ON ledger_postings (payment_ref) WHERE kind = 'capture';
CREATE UNIQUE INDEX ledger_postings_collection_fee_once ON ledger_postings (payment_ref) WHERE kind = 'collection_fee';
CREATE UNIQUE INDEX ledger_postings_refund_once ON ledger_postings (payment_ref) WHERE kind = 'refund';
CREATE UNIQUE INDEX ledger_postings_opening_once ON ledger_postings (invoice_id) WHERE kind = 'opening';
CREATE UNIQUE INDEX ledger_postings_transfer_once ON ledger_postings (invoice_id, transfer_file_id, kind)
    WHERE kind IN ('transfer_filed', 'transfer_done', 'transfer_failed');

CREATE TABLE ledger_entries (
    id         BIGSERIAL PRIMARY KEY,
    posting_id BIGINT NOT NULL REFERENCES ledger_postings (id),
    account    TEXT NOT NULL CHECK (account IN ('card_receivable', 'supplier_payable', 'transfers_in_transit',
                   'bank', 'fee_revenue', 'promotion_expense')),
    amount     BIGINT NOT NULL CHECK (amount <> 0),
    invoice_id BIGINT,
    buyer_id   BIGINT,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX ledger_entries_posting_idx ON ledger_entries (posting_id);
CREATE INDEX ledger_entries_invoice_idx ON ledger_entries (invoice_id);
CREATE INDEX ledger_entries_buyer_idx ON ledger_entries (buyer_id, account);
CREATE INDEX ledger_entries_created_idx ON ledger_entries (created_at, account);

-- +goose StatementBegin
CREATE FUNCTION ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the ledger is append-only: % on % refused', TG_OP, TG_TABLE_NAME;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER ledger_postings_no_change BEFORE UPDATE OR DELETE ON ledger_postings
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_postings_no_truncate BEFORE TRUNCATE ON ledger_postings
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_entries_no_change BEFORE UPDATE OR DELETE ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION ledger_append_only();
CREATE TRIGGER ledger_entries_no_truncate BEFORE TRUNCATE ON ledger_entries
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_append_only();

-- At commit, every posting written in the transaction has at least two lines that sum
-- to zero; otherwise the whole transaction (and the state change with it) is refused.
-- +goose StatementBegin
CREATE FUNCTION ledger_posting_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    total BIGINT;
    n     INT;
    pid   BIGINT;
BEGIN
    IF TG_TABLE_NAME = 'ledger_postings' THEN
        pid := NEW.id;
    ELSE
        pid := NEW.posting_id;
    END IF;
    SELECT COALESCE(sum(amount), 0), count(*) INTO total, n FROM ledger_entries WHERE posting_id = pid;
    IF total <> 0 OR n < 2 THEN
        RAISE EXCEPTION 'ledger posting % does not balance: % lines summing to %', pid, n, total;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE CONSTRAINT TRIGGER ledger_entries_balanced AFTER INSERT ON ledger_entries
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_posting_balanced();
CREATE CONSTRAINT TRIGGER ledger_postings_balanced AFTER INSERT ON ledger_postings
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_posting_balanced();

-- The daily reconciliation's results: one row a day, the differences it found (with their
-- causes) and the three-way totals, for the console.
CREATE TABLE reconciliation_runs (
    id         BIGSERIAL PRIMARY KEY,
    run_date   DATE NOT NULL UNIQUE,
    from_date  DATE NOT NULL,
    to_date    DATE NOT NULL,
    payments   INT NOT NULL,
    files      INT NOT NULL,
    mismatches JSONB NOT NULL DEFAULT '[]',
    totals     JSONB NOT NULL DEFAULT '{}',
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Opening balances of the payments made before the journal: one posting each, with the
-- lines their state says they hold (pay.ExpectedBalances).
-- +goose StatementBegin
DO $$
DECLARE
    r   RECORD;
    pid BIGINT;
    full_fee BIGINT;
    payable BIGINT;
BEGIN
    FOR r IN SELECT id, buyer_id, payment_ref, amount, fee, payee_fee, transfer_state, fee_full_basis_points
             FROM invoices WHERE card_status = 'captured' AND submitted_at IS NOT NULL ORDER BY id LOOP
        full_fee := GREATEST(r.fee + r.payee_fee, r.amount * r.fee_full_basis_points / 10000);
        payable := r.amount - r.payee_fee;
        INSERT INTO ledger_postings (kind, invoice_id, buyer_id, payment_ref) VALUES ('opening', r.id, r.buyer_id, r.payment_ref)
            RETURNING id INTO pid;
        INSERT INTO ledger_entries (posting_id, account, amount, invoice_id, buyer_id)
        SELECT pid, a, v, r.id, r.buyer_id FROM (VALUES
            ('card_receivable', r.amount + r.fee),
            ('fee_revenue', -full_fee),
            ('promotion_expense', full_fee - r.fee - r.payee_fee),
            (CASE r.transfer_state WHEN 'filed' THEN 'transfers_in_transit' WHEN 'sent' THEN 'transfers_in_transit'
                 WHEN 'done' THEN 'bank' ELSE 'supplier_payable' END, -payable)) AS l(a, v)
        WHERE v <> 0;
    END LOOP;
END;
$$;
-- +goose StatementEnd

-- +goose Down
DROP TABLE reconciliation_runs;
DROP TABLE ledger_entries;
DROP TABLE ledger_postings;
DROP FUNCTION ledger_posting_balanced();
DROP FUNCTION ledger_append_only();
ALTER TABLE invoice_events DROP COLUMN from_transfer, DROP COLUMN to_transfer;
ALTER TABLE invoices DROP COLUMN fee_full_basis_points, DROP COLUMN transfer_attempts;
ALTER TABLE invoices DROP CONSTRAINT invoices_transfer_state_check;
UPDATE invoices SET transfer_state = 'filed' WHERE transfer_state IN ('sent', 'done');
UPDATE invoices SET transfer_state = 'failed' WHERE transfer_state = 'returned';
ALTER TABLE invoices ADD CONSTRAINT invoices_transfer_state_check CHECK (transfer_state IN ('', 'filed', 'failed'));
