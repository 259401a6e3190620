-- +goose Up
-- The operators of the service (issue 13): a separate kind of account from the buyers'
-- users, with their own sign-in, an authenticator (TOTP) always required and roles.
-- roles: screening (審査), transfers (振込), admin (creates operators).
CREATE TABLE operators (
    id                 BIGSERIAL PRIMARY KEY,
    email_address      TEXT NOT NULL,
    name               TEXT NOT NULL,
    password_hash      TEXT NOT NULL,
    -- The authenticator's secret, sealed with SECRET_KEY (auth.Sealer); never readable here.
    totp_secret_sealed TEXT NOT NULL,
    totp_last_step     BIGINT NOT NULL DEFAULT 0,
    roles              TEXT[] NOT NULL CHECK (roles <@ ARRAY['screening', 'transfers', 'admin']::TEXT[] AND cardinality(roles) > 0),
    failed_sign_ins    INT NOT NULL DEFAULT 0,
    last_failed_at     TIMESTAMPTZ,
    locked_until       TIMESTAMPTZ,
    created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    disabled_at        TIMESTAMPTZ
);
CREATE UNIQUE INDEX operators_email_address_key ON operators (lower(email_address));

-- Every operator action, append-only: who, when, on what, the state before and after,
-- and why. /ops/audit lists them.
CREATE TABLE operator_audit (
    id          BIGSERIAL PRIMARY KEY,
    operator_id BIGINT NOT NULL REFERENCES operators (id),
    object_type TEXT NOT NULL,
    object_id   BIGINT NOT NULL,
    action      TEXT NOT NULL,
    before      JSONB,
    after       JSONB,
    reason      TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX operator_audit_created_idx ON operator_audit (created_at DESC, id DESC);
CREATE INDEX operator_audit_object_idx ON operator_audit (object_type, object_id);
CREATE INDEX operator_audit_operator_idx ON operator_audit (operator_id, created_at DESC);

-- +goose StatementBegin
CREATE FUNCTION operator_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'operator_audit is append-only';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER operator_audit_no_change BEFORE UPDATE OR DELETE ON operator_audit
    FOR EACH ROW EXECUTE FUNCTION operator_audit_append_only();

-- Screening: who checked a payment (確認済), so that a different operator completes it
-- (dual control); the reason code of a send-back (pay.SendBackReason).
ALTER TABLE invoices
    ADD COLUMN checked_by       BIGINT REFERENCES operators (id),
    ADD COLUMN send_back_code   TEXT NOT NULL DEFAULT '';
-- The screening queue: submitted payments waiting for an operator, oldest first.
CREATE INDEX invoices_screening_idx ON invoices (submitted_at, id)
    WHERE examination_status IN (1, 2) AND submitted_at IS NOT NULL;

-- A supplier's review by an operator: the reason of an escalation or a rejection.
ALTER TABLE suppliers ADD COLUMN review_reason TEXT NOT NULL DEFAULT '';

-- Notifications tell the buyer about one event each (a payment's state change, a
-- supplier's review): event_key makes a second notification of the same event
-- impossible, and link is the page it is about.
ALTER TABLE notifications
    ADD COLUMN event_key TEXT,
    ADD COLUMN link      TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX notifications_event_key ON notifications (event_key);
CREATE INDEX notifications_buyer_idx ON notifications (buyer_id, created_at DESC, id DESC);

-- Bank transfers (振込): one 全銀協 総合振込 file per made batch, kept as it was given to
-- the bank (content, its SHA-256), then marked sent; each payment in it is then marked
-- transferred (振込完了) or failed with a reason. A failed transfer can be retried on a
-- later bank day (back out of its file) or cancelled, which refunds the card.
CREATE TABLE transfer_files (
    id            BIGSERIAL PRIMARY KEY,
    transfer_date DATE NOT NULL,
    record_count  INT NOT NULL,
    total         BIGINT NOT NULL,
    content       BYTEA NOT NULL,
    sha256        TEXT NOT NULL,
    created_by    BIGINT NOT NULL REFERENCES operators (id),
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    sent_by       BIGINT REFERENCES operators (id),
    sent_at       TIMESTAMPTZ
);
CREATE INDEX transfer_files_date_idx ON transfer_files (transfer_date, id);

ALTER TABLE invoices
    ADD COLUMN transfer_file_id BIGINT REFERENCES transfer_files (id),
    -- '' not in a file; filed: in a file; failed: the bank returned it (reason kept).
    ADD COLUMN transfer_state TEXT NOT NULL DEFAULT '' CHECK (transfer_state IN ('', 'filed', 'failed')),
    ADD COLUMN transfer_failure TEXT NOT NULL DEFAULT '',
    ADD COLUMN transferred_at TIMESTAMPTZ,
    ADD COLUMN captured_at TIMESTAMPTZ;
-- The day's transfers: completed screenings by transfer date.
CREATE INDEX invoices_transfer_idx ON invoices (transfer_date, id) WHERE examination_status = 3;

-- The daily expiry runs once a day whichever instance runs it: a row per day taken.
CREATE TABLE daily_runs (
    name     TEXT NOT NULL,
    run_date DATE NOT NULL,
    ran_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (name, run_date)
);

-- +goose Down
DROP TABLE daily_runs;
DROP INDEX invoices_transfer_idx;
ALTER TABLE invoices DROP COLUMN transfer_file_id, DROP COLUMN transfer_state, DROP COLUMN transfer_failure,
    DROP COLUMN transferred_at, DROP COLUMN captured_at;
DROP TABLE transfer_files;
DROP INDEX notifications_buyer_idx;
DROP INDEX notifications_event_key;
ALTER TABLE notifications DROP COLUMN event_key, DROP COLUMN link;
ALTER TABLE suppliers DROP COLUMN review_reason;
DROP INDEX invoices_screening_idx;
ALTER TABLE invoices DROP COLUMN checked_by, DROP COLUMN send_back_code;
DROP TABLE operator_audit;
DROP FUNCTION operator_audit_append_only();
DROP TABLE operators;
