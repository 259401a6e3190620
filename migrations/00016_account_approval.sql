-- +goose Up
-- Receiving accounts and step-up (issue 24, businesses part 2).
--
-- A supplier's bank account is where money goes, so every account carries who vouched
-- for it. An account the buyer typed is approved by the buyer as it is saved (approved_at
-- set, approved_by NULL), as before. An account that came with a card-payment request
-- (the requester's own receiving account, copied onto the customer's supplier) is NOT
-- vouched for by anyone the customer trusts: it starts unapproved (approved_at NULL) and
-- no transfer file includes a payment to it until an operator approves it (approved_by).
ALTER TABLE supplier_accounts
    ADD COLUMN origin      TEXT NOT NULL DEFAULT 'buyer' CHECK (origin IN ('buyer', 'request')),
    ADD COLUMN approved_at TIMESTAMPTZ DEFAULT now(),
    ADD COLUMN approved_by BIGINT REFERENCES operators (id);
UPDATE supplier_accounts SET approved_at = created_at;
-- The operators' list of accounts waiting for them.
CREATE INDEX supplier_accounts_unapproved_idx ON supplier_accounts (id) WHERE approved_at IS NULL;
-- Screening asks when an account was first paid (pay.AccountIsNew).
CREATE INDEX invoices_account_idx ON invoices (account_id, submitted_at) WHERE account_id IS NOT NULL;

-- When the session (browser, or the API token family's sign-in) last gave its second
-- factor: adding or changing a supplier's bank account needs one from the last 5
-- minutes (account.StepUpWindow). Kept on the session row, which belongs to one user.
ALTER TABLE user_sessions ADD COLUMN factor_at TIMESTAMPTZ;

-- +goose Down
ALTER TABLE user_sessions DROP COLUMN factor_at;
DROP INDEX invoices_account_idx;
DROP INDEX supplier_accounts_unapproved_idx;
ALTER TABLE supplier_accounts DROP COLUMN approved_by, DROP COLUMN approved_at, DROP COLUMN origin;
