-- +goose Up
-- Paying a supplier's invoice by card (issue 12). An invoice row is created when the buyer
-- submits, before the card is authorised, so that no authorisation can exist without a
-- row; until the PSP says yes (submitted_at is set) the row is nobody's payment: the lists,
-- the counts and screening ignore it, and the reconciler settles it by asking the PSP.

ALTER TABLE invoices
    -- Our id for the payment at the PSP and its idempotency key. A corrected amount is
    -- authorised again under the next auth_seq; the old authorisation is voided.
    ADD COLUMN auth_seq            INT NOT NULL DEFAULT 1 CHECK (auth_seq >= 1),
    ADD COLUMN payment_ref         TEXT GENERATED ALWAYS AS ('inv-' || id || '-' || auth_seq) STORED UNIQUE,
    -- The confirm page's one-time key: a double click, a replayed POST or a second tab
    -- submitting the same page finds the row the first one made.
    ADD COLUMN submit_key          TEXT CHECK (submit_key <> ''),
    ADD COLUMN card_id             BIGINT REFERENCES cards (id),
    ADD COLUMN card_status         TEXT NOT NULL DEFAULT 'authorized'
        CHECK (card_status IN ('pending', 'requires_action', 'authorized', 'declined', 'captured', 'voided', 'refunded')),
    ADD COLUMN card_result_code    TEXT NOT NULL DEFAULT '',
    ADD COLUMN action_url          TEXT NOT NULL DEFAULT '',
    -- What the card was authorised for: amount + fee, in yen.
    ADD COLUMN authorized_amount   BIGINT NOT NULL DEFAULT 0 CHECK (authorized_amount >= 0),
    ADD COLUMN fee_basis_points    INT NOT NULL DEFAULT 0 CHECK (fee_basis_points >= 0),
    ADD COLUMN promotion_code      TEXT NOT NULL DEFAULT '',
    ADD COLUMN invoice_number      TEXT NOT NULL DEFAULT '',
    ADD COLUMN invoice_date        DATE,
    ADD COLUMN registration_number TEXT NOT NULL DEFAULT '',
    ADD COLUMN memo                TEXT NOT NULL DEFAULT '',
    ADD COLUMN file_id             BIGINT REFERENCES invoice_files (id),
    -- The evidence-check warnings the buyer acknowledged on the confirm page.
    ADD COLUMN acknowledged        JSONB NOT NULL DEFAULT '[]',
    ADD COLUMN send_back_reason    TEXT NOT NULL DEFAULT '',
    -- A correction waiting for the buyer's 3-D Secure challenge of its new amount: the new
    -- authorisation's id and the corrected invoice, applied when the PSP says yes.
    ADD COLUMN pending_correction  JSONB,
    ADD COLUMN submitted_at        TIMESTAMPTZ,
    ADD COLUMN created_by          BIGINT REFERENCES users (id);
-- Rows made before this migration (demo data, the supplier screens' tests) were submitted.
UPDATE invoices SET submitted_at = created_at, authorized_amount = amount + fee;
CREATE UNIQUE INDEX invoices_submit_key_idx ON invoices (buyer_id, submit_key);
-- The lists: a buyer's submitted payments by bucket, newest first (a small bucket), or
-- newest first filtered (a large one, such as the history); and the counts behind every
-- page's tabs, from the index alone.
CREATE INDEX invoices_lists_idx ON invoices (buyer_id, examination_status, id DESC) WHERE submitted_at IS NOT NULL;
CREATE INDEX invoices_newest_idx ON invoices (buyer_id, id DESC) WHERE submitted_at IS NOT NULL;
CREATE INDEX invoices_counts_idx ON invoices (buyer_id, examination_status, invoice_type, action_required) WHERE submitted_at IS NOT NULL;
-- The reconciler's work: submissions the PSP has not settled yet.
CREATE INDEX invoices_unsettled_idx ON invoices (created_at) WHERE card_status IN ('pending', 'requires_action');

-- Every change of a payment, append-only: who, when, from, to, why. The state machine
-- (pay.NextPayment) decides the change; the store writes it with a conditional UPDATE
-- and this row in one transaction.
CREATE TABLE invoice_events (
    id                   BIGSERIAL PRIMARY KEY,
    invoice_id           BIGINT NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
    buyer_id             BIGINT NOT NULL,
    action               TEXT NOT NULL CHECK (action <> ''),
    from_status          SMALLINT,
    to_status            SMALLINT NOT NULL,
    from_action_required BOOLEAN NOT NULL DEFAULT false,
    to_action_required   BOOLEAN NOT NULL DEFAULT false,
    -- buyer:<user id>, operator:<id>, system
    actor                TEXT NOT NULL CHECK (actor <> ''),
    reason               TEXT NOT NULL DEFAULT '',
    created_at           TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX invoice_events_invoice_idx ON invoice_events (invoice_id, id);

-- +goose StatementBegin
CREATE FUNCTION invoice_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- A buyer's removal cascades through invoices to their events (a trigger of a
    -- trigger); a change made directly is refused.
    IF TG_OP = 'DELETE' AND pg_trigger_depth() > 1 THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'invoice_events is append-only';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER invoice_events_no_change BEFORE UPDATE OR DELETE ON invoice_events
    FOR EACH ROW EXECUTE FUNCTION invoice_events_append_only();

-- A payment being prepared, saved with 下書き保存: the journey's answers as they were,
-- valid or not, and what the list shows.
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

-- Promotion codes lower the fee while valid; each buyer uses one once.
CREATE TABLE promotions (
    code                  TEXT PRIMARY KEY CHECK (code ~ '^[A-Z0-9_-]{1,32}$'),
    discount_basis_points INT NOT NULL CHECK (discount_basis_points > 0),
    valid_from            TIMESTAMPTZ NOT NULL,
    valid_to              TIMESTAMPTZ NOT NULL CHECK (valid_to > valid_from),
    created_at            TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE promotion_uses (
    buyer_id   BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    code       TEXT NOT NULL REFERENCES promotions (code),
    invoice_id BIGINT NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
    used_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (buyer_id, code)
);

-- The card's billing cycle, when the buyer gives it (the deadline plan shows the day the
-- card company debits them).
ALTER TABLE cards
    ADD COLUMN closing_day  SMALLINT CHECK (closing_day BETWEEN 1 AND 31),
    ADD COLUMN payment_day  SMALLINT CHECK (payment_day BETWEEN 1 AND 31),
    ADD COLUMN months_later SMALLINT CHECK (months_later BETWEEN 1 AND 2);

-- +goose Down
ALTER TABLE cards DROP COLUMN closing_day, DROP COLUMN payment_day, DROP COLUMN months_later;
DROP TABLE promotion_uses;
DROP TABLE promotions;
DROP TABLE payment_drafts;
DROP TABLE invoice_events;
DROP FUNCTION invoice_events_append_only();
ALTER TABLE invoices DROP COLUMN payment_ref, DROP COLUMN auth_seq, DROP COLUMN submit_key, DROP COLUMN card_id,
    DROP COLUMN card_status, DROP COLUMN card_result_code, DROP COLUMN action_url, DROP COLUMN authorized_amount,
    DROP COLUMN fee_basis_points, DROP COLUMN promotion_code, DROP COLUMN invoice_number, DROP COLUMN invoice_date,
    DROP COLUMN registration_number, DROP COLUMN memo, DROP COLUMN file_id, DROP COLUMN acknowledged,
    DROP COLUMN send_back_reason, DROP COLUMN pending_correction, DROP COLUMN submitted_at, DROP COLUMN created_by;
