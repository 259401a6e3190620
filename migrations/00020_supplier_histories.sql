-- +goose Up
-- What a buyer last used for one supplier's invoice (issue 28, learn per supplier): when a
-- payment that started from an uploaded invoice is submitted, the values the buyer finally
-- used for the fields the reading produces, and which of them the buyer corrected (the
-- reading missed them or read them otherwise: invoiceread.Corrections). The next invoice of
-- the same issuer (its registration number, the supplier's corporate number, or the
-- supplier it matched) is offered these values first (invoiceread.Offer).
--
-- One row per supplier, the last payment's: a supplier's bank account changes, and the
-- newest values are the ones to offer. Scoped by the buyer like every row a buyer makes
-- (two buyers paying one company learn apart). A supplier's deletion keeps its row
-- (deleted_at) for the payments' history, so store.DeleteSupplier deletes this row in its
-- transaction; the cascades cover the rows being removed for good.
CREATE TABLE supplier_histories (
    buyer_id            BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    supplier_id         BIGINT NOT NULL REFERENCES suppliers (id) ON DELETE CASCADE,
    -- The payment it was learned from.
    invoice_id          BIGINT NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
    registration_number TEXT NOT NULL DEFAULT '' CHECK (registration_number = '' OR registration_number ~ '^T[0-9]{13}$'),
    corporate_number    TEXT NOT NULL DEFAULT '' CHECK (corporate_number = '' OR corporate_number ~ '^[0-9]{13}$'),
    issuer_name         TEXT NOT NULL DEFAULT '',
    bank_code           TEXT NOT NULL DEFAULT '',
    bank_name           TEXT NOT NULL DEFAULT '',
    branch_code         TEXT NOT NULL DEFAULT '',
    branch_name         TEXT NOT NULL DEFAULT '',
    account_type        SMALLINT NOT NULL DEFAULT 0 CHECK (account_type IN (0, 1, 2)),
    account_number      TEXT NOT NULL DEFAULT '',
    holder_name         TEXT NOT NULL DEFAULT '',
    -- The fields (invoiceread.Fields' keys) the reading missed or got wrong last time.
    corrected           TEXT[] NOT NULL DEFAULT '{}',
    updated_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (buyer_id, supplier_id)
);
CREATE INDEX supplier_histories_invoice_idx ON supplier_histories (invoice_id);

-- +goose Down
DROP TABLE supplier_histories;
