-- +goose Up
-- お問い合わせ (issue 31): questions from anyone (the public form) or a signed-in buyer,
-- answered by the operators in the console.
--
-- buyer_id and user_id are NULL for the public form; name and email are who gets the
-- answer (a signed-in buyer's, copied from the account when sent, so that an answer
-- still reaches them if the account changes later). invoice_id is one of the buyer's
-- own payments, named by the buyer (the store checks that it is theirs; the CHECK keeps
-- a signed-out inquiry from naming any).
CREATE TABLE inquiries (
    id         BIGSERIAL PRIMARY KEY,
    buyer_id   BIGINT REFERENCES buyers (id) ON DELETE CASCADE,
    user_id    BIGINT REFERENCES users (id) ON DELETE SET NULL,
    name       TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    email      TEXT NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
    company    TEXT NOT NULL DEFAULT '' CHECK (length(company) <= 200),
    category   TEXT NOT NULL CHECK (category IN ('payment', 'card', 'screening', 'receipt', 'request', 'account', 'receiving', 'other')),
    body       TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 4000),
    invoice_id BIGINT REFERENCES invoices (id) ON DELETE SET NULL,
    status     TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'answered', 'closed')),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    CHECK (buyer_id IS NOT NULL OR (user_id IS NULL AND invoice_id IS NULL))
);
-- The buyer's list, newest first; the console's, 受付 first.
CREATE INDEX inquiries_buyer_idx ON inquiries (buyer_id, id DESC) WHERE buyer_id IS NOT NULL;
CREATE INDEX inquiries_status_idx ON inquiries (status, id DESC);

-- The operators' answers, oldest first. A table of their own rather than columns of the
-- inquiry: an operator may need to add to an answer (a correction, a follow-up after
-- looking into a payment), and each answer is mailed and shown as it was sent.
CREATE TABLE inquiry_answers (
    id          BIGSERIAL PRIMARY KEY,
    inquiry_id  BIGINT NOT NULL REFERENCES inquiries (id) ON DELETE CASCADE,
    operator_id BIGINT NOT NULL REFERENCES operators (id),
    body        TEXT NOT NULL CHECK (length(body) BETWEEN 1 AND 4000),
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX inquiry_answers_inquiry_idx ON inquiry_answers (inquiry_id, id);

-- +goose Down
DROP TABLE inquiry_answers;
DROP TABLE inquiries;
