-- +goose Up
-- A corporation's number is checked against the 法人番号 registry at registration
-- (issue 24). A buyer the registry could not confirm, or one claiming a number an
-- active buyer already holds, is held for the operators: it can sign in, but pays and
-- requests nothing until an operator approves it (pay/buyerreview.go has the rules).
-- Existing buyers stay active.
ALTER TABLE buyers
    ADD COLUMN review_status TEXT NOT NULL DEFAULT 'active' CHECK (review_status IN ('active', 'held', 'rejected')),
    ADD COLUMN review_reason TEXT NOT NULL DEFAULT ''
        CHECK (review_reason IN ('', 'registry_unknown', 'registry_unavailable', 'number_taken')),
    -- The operator's reason for the decision, shown in the console.
    ADD COLUMN review_note   TEXT NOT NULL DEFAULT '',
    ADD COLUMN reviewed_at   TIMESTAMPTZ,
    ADD CONSTRAINT buyers_review_held_reason CHECK ((review_status = 'active') = (review_reason = '') OR reviewed_at IS NOT NULL);
-- The holders of a number (one active buyer per number, found at each registration)
-- and the console's queue of held buyers.
CREATE INDEX buyers_corporate_number_idx ON buyers (corporate_number) WHERE corporate_number <> '';
CREATE INDEX buyers_held_idx ON buyers (created_at) WHERE review_status = 'held';

-- +goose Down
DROP INDEX buyers_held_idx;
DROP INDEX buyers_corporate_number_idx;
ALTER TABLE buyers DROP COLUMN reviewed_at, DROP COLUMN review_note, DROP COLUMN review_reason, DROP COLUMN review_status;
