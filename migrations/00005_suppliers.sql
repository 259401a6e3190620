-- +goose Up
-- Registered suppliers (SPEC.md §2 "Registered suppliers", §3 supplier status). A supplier
-- belongs to one buyer; two buyers who pay the same company each have their own row, so
-- nothing one buyer types is ever shown to another. status: 1 Approved, 2 Escalation,
-- 3 Unapproved (every new supplier), 4 Rejected (pay.SupplierStatus).
--
-- A deleted supplier keeps its row (deleted_at) because past payments point at it and
-- their history must still say whom they paid.
CREATE TABLE suppliers (
    id               BIGSERIAL PRIMARY KEY,
    buyer_id         BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    business_form    SMALLINT NOT NULL CHECK (business_form IN (1, 2)),
    name             TEXT NOT NULL CHECK (name <> ''),
    name_kana        TEXT NOT NULL DEFAULT '',
    corporate_number TEXT NOT NULL DEFAULT '' CHECK (corporate_number = '' OR corporate_number ~ '^[0-9]{13}$'),
    business_name    TEXT NOT NULL DEFAULT '',
    status           SMALLINT NOT NULL DEFAULT 3 CHECK (status BETWEEN 1 AND 4),
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    deleted_at       TIMESTAMPTZ,
    CHECK (business_form = 2 OR corporate_number <> '')
);
CREATE INDEX suppliers_buyer_idx ON suppliers (buyer_id, status, id) WHERE deleted_at IS NULL;

-- A supplier's bank accounts. Bank and branch names are copied from the zengin data when
-- the account is saved, so the account reads the same after a bank renames a branch.
-- account_type uses our codes (2 普通, 1 当座; pay.AccountType), never the banks' codes.
-- holder_name is already in the zengin character set (pay.NormalizeHolderName).
CREATE TABLE supplier_accounts (
    id             BIGSERIAL PRIMARY KEY,
    buyer_id       BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    supplier_id    BIGINT NOT NULL REFERENCES suppliers (id) ON DELETE CASCADE,
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
CREATE INDEX supplier_accounts_supplier_idx ON supplier_accounts (buyer_id, supplier_id);
-- The same account twice on one supplier is a typing slip, not a second account.
CREATE UNIQUE INDEX supplier_accounts_unique_idx
    ON supplier_accounts (supplier_id, bank_code, branch_code, account_type, account_number);

-- Invoices are what a buyer pays: their own payments to a supplier (invoice_type 1) and
-- card-payment requests received from one (2). The payments issue adds the invoice
-- details, files and card fields; the supplier screens read who was paid, how much, in
-- which status. examination_status follows pay.ExaminationStatus (1–8).
CREATE TABLE invoices (
    id                 BIGSERIAL PRIMARY KEY,
    buyer_id           BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    supplier_id        BIGINT NOT NULL REFERENCES suppliers (id),
    account_id         BIGINT REFERENCES supplier_accounts (id),
    invoice_type       SMALLINT NOT NULL CHECK (invoice_type BETWEEN 1 AND 3),
    examination_status SMALLINT NOT NULL CHECK (examination_status BETWEEN 1 AND 8),
    action_required    BOOLEAN NOT NULL DEFAULT false,
    amount             BIGINT NOT NULL CHECK (amount > 0),
    fee                BIGINT NOT NULL DEFAULT 0 CHECK (fee >= 0),
    due_date           DATE,
    transfer_date      DATE,
    created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at         TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX invoices_buyer_idx ON invoices (buyer_id, examination_status);
CREATE INDEX invoices_supplier_idx ON invoices (buyer_id, supplier_id, id);

-- Corporations the service knows, for 法人名検索 (GET /api/v1/corporations): public
-- registry facts (the National Tax Agency publishes every corporate number with its name
-- and address), filled by the NTA adapter's answers and by imports, never by what a buyer
-- typed about its own supplier.
CREATE TABLE corporations (
    corporate_number TEXT PRIMARY KEY CHECK (corporate_number ~ '^[0-9]{13}$'),
    name             TEXT NOT NULL,
    name_kana        TEXT NOT NULL DEFAULT '',
    address          TEXT NOT NULL DEFAULT '',
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX corporations_name_idx ON corporations (name text_pattern_ops);

-- +goose Down
DROP TABLE corporations;
DROP TABLE invoices;
DROP TABLE supplier_accounts;
DROP TABLE suppliers;
