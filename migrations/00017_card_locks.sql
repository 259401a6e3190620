-- +goose Up
-- Card checks that the issuer declined, per buyer and Japan day (issue 24, abuse limits):
-- a buyer trying stolen cards against the add-card check reads a decline each time, so
-- after a few declines in a day adding cards is locked for that buyer until the next day
-- (JST) or until an operator unlocks it. The limiter's rate_limit_hits keeps only
-- hashes, which operators cannot list: this table names the buyer so the console can.
-- declines counts the day's declines since the last unlock; locked_at is set when they
-- reach the limit; an unlock clears both and records who (the audit row holds the rest).
CREATE TABLE card_check_locks (
    buyer_id         BIGINT NOT NULL REFERENCES buyers (id) ON DELETE CASCADE,
    day              DATE NOT NULL,
    declines         INT NOT NULL DEFAULT 0 CHECK (declines >= 0),
    last_declined_at TIMESTAMPTZ NOT NULL,
    locked_at        TIMESTAMPTZ,
    unlocked_at      TIMESTAMPTZ,
    unlocked_by      BIGINT REFERENCES operators (id),
    PRIMARY KEY (buyer_id, day)
);
CREATE INDEX card_check_locks_locked_idx ON card_check_locks (day, locked_at) WHERE locked_at IS NOT NULL;

-- +goose Down
DROP TABLE card_check_locks;
